package render

import (
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
)

// A file name or message with ESC went raw into `validate --format github`
// (workflow commands are printed to a terminal too), and JSON Lines kept
// C1 controls raw.
func TestGitHubAndJSONLineEscapeControls(t *testing.T) {
	var b strings.Builder
	f := finding.Errorf(finding.Schema, 3, "bad \x1b]0;title\x07 value")
	if err := GitHub(&b, "evil\x1b[31m\x9b.jsonl", f); err != nil {
		t.Fatal(err)
	}
	if err := JSONLine(&b, map[string]string{"text": "csi \u009b1m del \x7f"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, c := range []string{"\x1b", "\x07", "\x9b", "\u009b", "\x7f"} {
		if strings.Contains(out, c) {
			t.Errorf("output holds %q: %q", c, out)
		}
	}
	for _, want := range []string{`file=evil\x1b[31m\x9b.jsonl`, `bad \x1b]0;title\a value`, `csi \u009b1m del \u007f`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q: %q", want, out)
		}
	}
}
