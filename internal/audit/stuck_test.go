package audit

import (
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

// TestStuck: a session whose default leaf's context ends in an unanswered
// tool call, or breaks the call/result pairing, is flagged stuck; its
// verdict is still about the file's form (ok here). Healthy files are not.
func TestStuck(t *testing.T) {
	corpus := "../../testdata/corpus"
	tests := []struct {
		file    string
		stuck   bool
		verdict Verdict
	}{
		{"invalid/unanswered_tool_call.jsonl", true, OK},
		{"invalid/unpaired_tool_in_context-edit.jsonl", true, OK},
		{"invalid/unpaired_tool_in_context-compaction.jsonl", true, OK},
		{"valid/v3-tools.jsonl", false, OK},
		{"valid/v3-everything.jsonl", false, OK},
	}
	var recs []*Record
	for _, tt := range tests {
		r, err := File(filepath.Join(corpus, tt.file), validate.Options{Limits: session.DefaultLimits()})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stuck != tt.stuck || r.Verdict != tt.verdict {
			t.Errorf("%s: stuck %v verdict %s, want %v %s", tt.file, r.Stuck, r.Verdict, tt.stuck, tt.verdict)
		}
		recs = append(recs, r)
	}
	if s := Total(recs, Options{}); s.Stuck != 3 {
		t.Errorf("summary: %d stuck, want 3", s.Stuck)
	}
}
