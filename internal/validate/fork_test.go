package validate

import (
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// TestForkBranchSummaryFromID: pi's createBranchedSession copies a
// branch_summary whose fromId names an entry of another branch, left in
// the parent session: in a fork (header parentSession) that is no error;
// in any other file it still is.
func TestForkBranchSummaryFromID(t *testing.T) {
	const body = `{"type":"branch_summary","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","fromId":"bbbb0001","summary":"tried x"}` + "\n"
	for _, tt := range []struct {
		header string
		want   bool // a dangling_reference
	}{
		{`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","parentSession":"/p/s.jsonl"}`, false},
		{`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`, true},
	} {
		rep, err := Stream("f.jsonl", strings.NewReader(tt.header+"\n"+body), Options{Limits: session.DefaultLimits()})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Has(finding.DanglingReference); got != tt.want {
			t.Errorf("%s: dangling_reference %v, want %v (%v)", tt.header, got, tt.want, rep.Findings)
		}
	}
}
