package audit_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/audit"
)

// TestOmpUsage: an oh-my-pi file counts its assistant usage and its
// model_usage entries (calls outside the transcript: the title here) with
// the same split as pi's usage records; omp's model_change form
// ("provider/id") names the model of what follows. Figures from the file.
func TestOmpUsage(t *testing.T) {
	for _, name := range []string{"omp-minimal.jsonl", "omp-noslot.jsonl"} {
		r := fileOf(t, filepath.Join("../../testdata/corpus/omp", name))
		if r.Verdict != audit.OK || r.Report.Dialect != "omp" {
			t.Fatalf("%s: verdict %s, dialect %s", name, r.Verdict, r.Report.Dialect)
		}
		// the assistant turn (1500 input, 60 output, 200 cache read, 900
		// cache write) and the title's model_usage (310, 12)
		want := audit.Tokens{Input: 1500 + 310, Output: 60 + 12, CacheRead: 200, CacheWrite: 900, Total: 2660 + 322}
		if r.Usage.Records != 2 || r.Usage.Tokens != want || !near(r.Usage.Cost, 0.009945) {
			t.Errorf("%s: %d records %+v $%v, want 2 %+v $0.009945", name, r.Usage.Records, r.Usage.Tokens, r.Usage.Cost, want)
		}
		if models := []string{"anthropic/claude-haiku-4-5", "anthropic/claude-sonnet-4-5"}; !reflect.DeepEqual(r.Models, models) {
			t.Errorf("%s: models %v, want %v", name, r.Models, models)
		}
	}
	r := fileOf(t, "../../testdata/corpus/omp/omp-everything.jsonl")
	want := audit.Tokens{Input: 15210, Output: 367, CacheRead: 8600, CacheWrite: 300, Total: 24477}
	if r.Usage.Records != 9 || r.Usage.Tokens != want || !near(r.Usage.Cost, 0.05484) {
		t.Errorf("omp-everything: %d records %+v $%v, want 9 %+v $0.05484", r.Usage.Records, r.Usage.Tokens, r.Usage.Cost, want)
	}
}

// TestOmpSummary: the summary counts the oh-my-pi files.
func TestOmpSummary(t *testing.T) {
	recs := []*audit.Record{
		fileOf(t, "../../testdata/corpus/omp/omp-minimal.jsonl"),
		fileOf(t, "../../testdata/corpus/valid/v3-branched.jsonl"),
		fileOf(t, "../../testdata/corpus/omp/omp-reset.jsonl"),
	}
	if s := audit.Total(recs, audit.Options{}); s.Files != 3 || s.Omp != 2 {
		t.Errorf("%d files, %d omp; want 3, 2", s.Files, s.Omp)
	}
	if recs[0].Dialect != "omp" || recs[1].Dialect != "pi" {
		t.Errorf("dialects %s, %s", recs[0].Dialect, recs[1].Dialect)
	}
}

// TestOmpModelChangeKept: omp's model_change names its model in one
// string ("provider/id"); usage charged to it long after (here a branch
// summary's, 500 kB later) still names that model, not bytes the reader
// has since read over.
func TestOmpModelChangeKept(t *testing.T) {
	src, err := os.ReadFile("../../testdata/corpus/omp/omp-noslot.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{strings.TrimSuffix(string(src), "\n"),
		`{"type":"model_change","id":"a0000000","parentId":"6f078a77","timestamp":"2026-12-01T06:00:00.000Z","model":"acme/model-x"}`}
	parent := "a0000000"
	for i := range 500 {
		id := fmt.Sprintf("b%07d", i)
		lines = append(lines, fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-12-01T06:00:01.000Z","message":{"role":"user","content":%q,"timestamp":1772355601000}}`,
			id, parent, strings.Repeat("y", 1000)))
		parent = id
	}
	lines = append(lines, fmt.Sprintf(`{"type":"branch_summary","id":"c0000000","parentId":%q,"timestamp":"2026-12-01T06:00:02.000Z","fromId":"a0000000","summary":"s","usage":%s}`,
		parent, usage(5, 5, 0, 0, 10, 0.1)))
	r := fileOf(t, write(t, t.TempDir(), "omp.jsonl", lines...))
	s := audit.Total([]*audit.Record{r}, audit.Options{By: audit.ByModel})
	var keys []string
	for _, g := range s.Groups {
		keys = append(keys, g.Key)
	}
	if !slices.Contains(keys, "acme/model-x") {
		t.Errorf("model groups %q: the branch summary's usage is not acme/model-x's", keys)
	}
}

// TestOmpRoleModelChange: an omp model_change with a role other than the
// default one ("smol", "slow", ...) sets only that role's model (omp's
// buildSessionContext: models[role ?? "default"]); the usage that follows
// stays the default model's. An explicit "default" role (and a null one,
// which omp's ?? reads as absent) changes it.
func TestOmpRoleModelChange(t *testing.T) {
	src, err := os.ReadFile("../../testdata/corpus/omp/omp-noslot.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	summary := func(id, parent string) string {
		return fmt.Sprintf(`{"type":"branch_summary","id":%q,"parentId":%q,"timestamp":"2026-12-01T06:00:02.000Z","fromId":"6f078a77","summary":"s","usage":%s}`,
			id, parent, usage(5, 5, 0, 0, 10, 0.1))
	}
	change := func(id, parent, model, role string) string {
		return fmt.Sprintf(`{"type":"model_change","id":%q,"parentId":%q,"timestamp":"2026-12-01T06:00:00.000Z","model":%q%s}`, id, parent, model, role)
	}
	tests := []struct {
		role, want string
	}{
		{`,"role":"smol"`, "anthropic/claude-sonnet-4-5"},
		{`,"role":"slow"`, "anthropic/claude-sonnet-4-5"},
		{`,"role":"default"`, "acme/model-x"},
		{`,"role":null`, "acme/model-x"},
		{``, "acme/model-x"},
	}
	for _, tt := range tests {
		lines := []string{strings.TrimSuffix(string(src), "\n"),
			change("a0000000", "6f078a77", "acme/model-x", tt.role), summary("c0000000", "a0000000")}
		r := fileOf(t, write(t, t.TempDir(), "omp.jsonl", lines...))
		s := audit.Total([]*audit.Record{r}, audit.Options{By: audit.ByModel})
		got := map[string]int64{}
		for _, g := range s.Groups {
			got[g.Key] = g.Usage.Tokens.Total
		}
		// the assistant turn is sonnet's (2660), the title haiku's (322)
		want := map[string]int64{"anthropic/claude-sonnet-4-5": 2660, "anthropic/claude-haiku-4-5": 322}
		want[tt.want] += 10
		if !reflect.DeepEqual(got, want) {
			t.Errorf("role %q: tokens by model %v, want %v", tt.role, got, want)
		}
	}
}
