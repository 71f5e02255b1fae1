package text

import (
	"strings"
	"testing"
)

func TestWidthAndCuts(t *testing.T) {
	tests := []struct {
		s           string
		width       int
		end, middle string
	}{
		{"short", 10, "short", "short"},
		{"exactly10!", 10, "exactly10!", "exactly10!"},
		{"/home/user/projects/app/session.jsonl", 16, "/home/user/proj…", "/home/u…on.jsonl"},
		{"如月家の記録", 7, "如月家…", "如…記録"}, // wide characters take two columns
		{"💾 save", 4, "💾 …", "…ave"},
		{"abc", 1, "…", "…"},
		{"abc", 0, "", ""},
	}
	for _, tt := range tests {
		if got := CutEnd(tt.s, tt.width); got != tt.end || Width(got) > tt.width {
			t.Errorf("CutEnd(%q, %d) = %q (%d columns), want %q", tt.s, tt.width, got, Width(got), tt.end)
		}
		if got := CutMiddle(tt.s, tt.width); got != tt.middle || Width(got) > tt.width {
			t.Errorf("CutMiddle(%q, %d) = %q (%d columns), want %q", tt.s, tt.width, got, Width(got), tt.middle)
		}
	}
	if got := Width("\x1b[32mok\x1b[0m"); got != 2 {
		t.Errorf("a coloured word is %d columns wide, want 2", got)
	}
	if !strings.HasPrefix(CutMiddle(strings.Repeat("a", 100), 9), "aaaa…") {
		t.Errorf("CutMiddle keeps the start: %q", CutMiddle(strings.Repeat("a", 100), 9))
	}
}
