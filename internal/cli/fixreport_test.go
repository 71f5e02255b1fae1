package cli

import (
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/fix"
	"github.com/pisess/pisess/internal/text"
)

// slimText writes r as slim's text output (no colour).
func slimText(r fixResult, quiet bool) string {
	var out, errw strings.Builder
	fixReport{Out: &out, Err: &errw, Command: "slim", Format: "text", Quiet: quiet, Style: text.NewStyle(false)}.Result(r)
	return out.String()
}

// An unchanged slim with nothing over the limit says so, as before.
func TestFixesSlimUnchangedNothingOver(t *testing.T) {
	r := fixResult{Report: fix.Report{File: "s.jsonl", Action: "unchanged", Leaf: "cccc0001"}}
	want := "s.jsonl: nothing to do (no message of the context of leaf cccc0001 is over the limit)\n"
	if got := slimText(r, false); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// An unchanged slim whose context keeps messages over the limit (a second
// run on a message its tool calls hold over, a compaction summary) does not
// say that none is over: it says slim can do no more and lists each of them
// as a changed slim does.
func TestFixesSlimUnchangedListsOver(t *testing.T) {
	const calls = "the tool calls it keeps (each result needs its call) hold it over the limit even with their arguments elided"
	over := []fix.Over{
		{EntryID: "aaaa0002", Role: "assistant", Bytes: 1468, Why: "already slim's placeholder: " + calls},
		{EntryID: "aaaa0005", Role: "compactionSummary", Bytes: 2048, Why: "not a message a context_edit can change"},
	}
	unchanged := fixResult{Report: fix.Report{File: "s.jsonl", Action: "unchanged", Leaf: "cccc0001"}}
	unchanged.Over = over
	got := slimText(unchanged, false)
	want := "s.jsonl: nothing to do (2 messages of the context of leaf cccc0001 stay over the limit; slim cannot make them smaller)\n" +
		"  ! aaaa0002 assistant (1.4 KiB): already slim's placeholder: " + calls + "\n" +
		"  ! aaaa0005 compactionSummary (2.0 KiB): not a message a context_edit can change\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "is over the limit)") {
		t.Errorf("says no message is over the limit while listing some:\n%s", got)
	}

	// The over lines are the ones a changed slim writes.
	changed := fixResult{Report: fix.Report{File: "s.jsonl", Action: "slimmed", Leaf: "cccc0001"}}
	changed.Over = over
	changedText := slimText(changed, false)
	for _, line := range strings.SplitAfter(got, "\n")[1:] {
		if !strings.Contains(changedText, line) {
			t.Errorf("over line %q is not written as a changed slim writes it:\n%s", line, changedText)
		}
	}

	unchanged.Over = over[:1]
	want = "s.jsonl: nothing to do (1 message of the context of leaf cccc0001 stays over the limit; slim cannot make it smaller)\n" +
		"  ! aaaa0002 assistant (1.4 KiB): already slim's placeholder: " + calls + "\n"
	if got := slimText(unchanged, false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// --quiet writes nothing for nothing to do, over or not.
	if got := slimText(unchanged, true); got != "" {
		t.Errorf("quiet: got %q, want nothing", got)
	}
}

// Entry ids and roles come from the file (validate accepts any string):
// control characters in them are escaped in text, as every other value
// from the file is, so a crafted session cannot drive the terminal.
func TestFixesEscapeIDsFromTheFile(t *testing.T) {
	const id = "a\x1b[31mRED\x1b]0;T\a"
	results := map[string]fixResult{
		"unstick": {Report: fix.Report{File: "s.jsonl", Action: "unstuck", Leaf: id, NewLeaf: "cccc0002",
			Added: []fix.Added{{ID: "cccc0002", Type: "context_edit", TargetID: id, ToolCallID: "c1", ToolName: "bash", Why: "w"}}}},
		"slim": {Report: fix.Report{File: "s.jsonl", Action: "unchanged", Leaf: id,
			Over: []fix.Over{{EntryID: id, Role: "x\x1b[2J", Bytes: 2048, Why: "w"}}}},
	}
	results["unstick unchanged"] = fixResult{Report: fix.Report{File: "s.jsonl", Action: "unchanged", Leaf: id}}
	for name, r := range results {
		var out, errw strings.Builder
		command, _, _ := strings.Cut(name, " ")
		fixReport{Out: &out, Err: &errw, Command: command, Format: "text", Style: text.NewStyle(false)}.Result(r)
		if got := out.String(); strings.ContainsAny(got, "\x1b\a") {
			t.Errorf("%s: control characters from the file reach the terminal: %q", name, got)
		}
	}
}
