package validate

import (
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// A torn last line with no complete record before it must not claim that
// "the entries before it are intact": there are none.
func TestPartialTailWithNothingBefore(t *testing.T) {
	tests := []struct {
		name, input string
		line        int
		text        string // a part of the partial_tail message
	}{
		{"the only line", hdr3[:40], 1, "no complete record comes before it"},
		{"after blank lines", "\n\n" + hdr3[:40], 3, "no complete record comes before it"},
		{"after the header", hdr3 + "\n" + torn3, 2, "the entries before it are intact"},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 3} {
			rep, err := Stream("t.jsonl", strings.NewReader(tt.input), Options{Limits: session.DefaultLimits(), Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			var got *finding.Finding
			for i := range rep.Findings {
				if rep.Findings[i].Code == finding.PartialTail {
					got = &rep.Findings[i]
				}
			}
			if got == nil || got.Line != tt.line || !strings.Contains(got.Message, tt.text) {
				t.Errorf("%s (workers=%d): partial_tail finding %v, want line %d containing %q", tt.name, workers, got, tt.line, tt.text)
			}
			if strings.Contains(tt.text, "no complete") && strings.Contains(got.Message, "entries before it") {
				t.Errorf("%s: message still claims entries before it: %q", tt.name, got.Message)
			}
		}
	}
}
