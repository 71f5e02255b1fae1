package render

import "testing"

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
