package cli

import (
	"strings"
	"testing"
)

// `migrate --dry-run --diff` printed the diff's lines (file content, file
// names) raw, and `audit --format csv` its cells: a crafted session could
// drive the terminal through either.
func TestDiffAndCSVAreTerminalSafe(t *testing.T) {
	diff := "--- a\x1b[2J.jsonl\n+++ b.jsonl\n+{\"text\":\"\u009b31m\"}\r\n-\x9b\n"
	got := safeLines(diff)
	if want := "--- a\\x1b[2J.jsonl\n+++ b.jsonl\n+{\"text\":\"\\u009b31m\"}\\r\n-\\x9b\n"; got != want {
		t.Errorf("safeLines = %q, want %q", got, want)
	}
	row := safeRow("dir\x1b]0;t\x07/s.jsonl", "plain", "line\nbreak")
	if strings.Join(row, "|") != `dir\x1b]0;t\a/s.jsonl|plain|line\nbreak` {
		t.Errorf("safeRow = %q", row)
	}
}
