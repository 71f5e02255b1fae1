package validate

import (
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// TestOmpRule6 holds rule 6 to omp's context builder on omp files: a
// session that ends in a tool call without a result is stuck for pi, not
// for omp (which strips the call), and a failed turn's results leave with
// it; the same entries in a pi file keep pi's verdicts.
func TestOmpRule6(t *testing.T) {
	entries := []string{
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-03-01T09:00:00.000Z","message":{"role":"user","content":"go","timestamp":1}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-03-01T09:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"bash","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":2}}`,
	}
	tests := []struct {
		name, header string
		want         []finding.Code
	}{
		{"pi", `{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T09:00:00.000Z","cwd":"/w"}`, []finding.Code{finding.UnansweredToolCall}},
		{"omp", `{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T09:00:00.000Z","cwd":"/w","titleSource":"auto"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := strings.Join(append([]string{tt.header}, entries...), "\n") + "\n"
			rep, err := Stream("f.jsonl", strings.NewReader(file), Options{Limits: session.DefaultLimits()})
			if err != nil {
				t.Fatal(err)
			}
			if string(rep.Dialect) != tt.name {
				t.Fatalf("dialect %s, want %s", rep.Dialect, tt.name)
			}
			var got []finding.Code
			for _, f := range rep.Findings {
				if f.Code == finding.UnansweredToolCall || f.Code == finding.UnpairedToolInContext {
					got = append(got, f.Code)
				}
			}
			if strings.Join(codes(got), " ") != strings.Join(codes(tt.want), " ") {
				t.Errorf("rule-6 findings %v, want %v", got, tt.want)
			}
		})
	}
}

func codes(cs []finding.Code) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c))
	}
	return out
}
