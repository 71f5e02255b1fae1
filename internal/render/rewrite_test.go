package render

import (
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
)

// `migrate --dry-run --diff` printed the diff's lines (file content, file
// names) raw: a crafted session could drive the terminal through them
// (audit's CSV cells: TestCSVIsTerminalSafe).
func TestDiffIsTerminalSafe(t *testing.T) {
	diff := "--- a\x1b[2J.jsonl\n+++ b.jsonl\n+{\"text\":\"\u009b31m\"}\r\n-\x9b\n"
	got := safeLines(diff)
	if want := "--- a\\x1b[2J.jsonl\n+++ b.jsonl\n+{\"text\":\"\\u009b31m\"}\\r\n-\\x9b\n"; got != want {
		t.Errorf("safeLines = %q, want %q", got, want)
	}
}

// migrate's notes are warnings on stderr in text (as validate writes them,
// not with --quiet) and "findings" in JSON; stdout's text is unchanged.
func TestRewriteNotes(t *testing.T) {
	note := finding.Warnf(finding.DanglingFirstKept, 5, "named no entry").WithPointer("/firstKeptEntryIndex")
	r := RewriteResult{File: "a.jsonl", Action: "migrated", From: 1, To: 3, Findings: []finding.Finding{note}}
	for _, tc := range []struct {
		format   string
		quiet    bool
		out, err string
	}{
		{"text", false, "a.jsonl: migrated (v1 → v3)\n", "a.jsonl:5: warning dangling_first_kept: named no entry at /firstKeptEntryIndex\n"},
		{"text", true, "a.jsonl: migrated (v1 → v3)\n", ""},
		{"json", false, `{"file":"a.jsonl","action":"migrated","from":1,"to":3,"backup":null,` +
			`"findings":[{"severity":"warning","code":"dangling_first_kept","line":5,"entryId":null,"pointer":"/firstKeptEntryIndex","message":"named no entry"}]}` + "\n", ""},
	} {
		var out, errw strings.Builder
		p := &Rewrites{Out: &out, Err: &errw, Format: tc.format, Quiet: tc.quiet}
		p.Result(r)
		if out.String() != tc.out || errw.String() != tc.err {
			t.Errorf("%s quiet=%v: stdout %q stderr %q, want %q and %q", tc.format, tc.quiet, out.String(), errw.String(), tc.out, tc.err)
		}
	}
}
