package render

import (
	"bytes"
	"testing"

	"github.com/pisess/pisess/internal/grep"
	"github.com/pisess/pisess/internal/text"
)

// TestGrepMatch: the occurrence is painted on a terminal only, and every
// part of the line is made safe for it (a crafted session cannot move the
// cursor).
func TestGrepMatch(t *testing.T) {
	m := grep.Match{Line: 3, EntryID: "a\x1b[2J", Role: "user", Timestamp: "T", Snippet: "say \x1b]0;x\x07 hi", At: [2]int{4, 10}}
	tests := []struct {
		on   bool
		want string
	}{
		{false, "f\\x1b.jsonl:3: a\\x1b[2J user T: say \\x1b]0;x\\a hi\n"},
		{true, "f\\x1b.jsonl:3: a\\x1b[2J user T: say \x1b[31;1m\\x1b]0;x\\a\x1b[0;22m hi\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		GrepMatch(&b, text.NewStyle(tt.on), "text", "f\x1b.jsonl", m, false)
		if b.String() != tt.want {
			t.Errorf("colour %v:\n got %q\nwant %q", tt.on, b.String(), tt.want)
		}
	}
	var b bytes.Buffer
	GrepMatch(&b, text.NewStyle(true), "json", "f.jsonl", m, true)
	if want := `{"file":"f.jsonl","line":3,"entryId":"a\u001b[2J","role":"user","timestamp":"T","onPath":true,"text":"say \u001b]0;x\u0007 hi"}` + "\n"; b.String() != want {
		t.Errorf("json:\n got %q\nwant %q", b.String(), want)
	}
}

// TestGrepMatchWithoutIDOrTimestamp: a missing id or timestamp is "-", so
// the fields keep their places (no "user : " with two spaces).
func TestGrepMatchWithoutIDOrTimestamp(t *testing.T) {
	var b bytes.Buffer
	GrepMatch(&b, text.NewStyle(false), "text", "f.jsonl", grep.Match{Line: 3, Role: "user", Snippet: "hi", At: [2]int{0, 2}}, false)
	if want := "f.jsonl:3: - user -: hi\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
