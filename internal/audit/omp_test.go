package audit_test

import (
	"encoding/json"
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
		if r.Verdict != audit.OK || r.Dialect != "omp" {
			t.Fatalf("%s: verdict %s, dialect %s", name, r.Verdict, r.Dialect)
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

// ompSlot is omp's title slot for title, padded to its 256 bytes.
func ompSlot(title string) string {
	line := fmt.Sprintf(`{"type":"title","v":1,"title":%s,"source":"user","updatedAt":"2026-12-01T05:57:37.870Z","pad":""}`, jsonString(title))
	return strings.Replace(line, `"pad":""`, `"pad":"`+strings.Repeat(" ", 255-len(line))+`"`, 1)
}

// TestOmpName: an omp file's session name is its title as omp lists it:
// the title slot's (a blank slot clears the header's title), else the
// header's, else the latest title_change's; its first line, control
// characters removed, trimmed. session_info is pi's, not omp's.
func TestOmpName(t *testing.T) {
	const entries = `{"type":"message","id":"eb2702c0","parentId":null,"timestamp":"2026-12-01T05:57:37.864Z","message":{"role":"user","content":"Why?","timestamp":1772355601000}}`
	header := func(title string) string {
		h := `{"type":"session","version":3,"id":"01a2302e-1bac-772f-a21f-6eb6b51e834e","timestamp":"2026-12-01T05:57:37.836Z","cwd":"/home/ana/src/shop"`
		if title != "" {
			h += `,"title":` + jsonString(title)
		}
		return h + "}"
	}
	change := func(id, title string) string {
		return fmt.Sprintf(`{"type":"title_change","id":%q,"parentId":"eb2702c0","timestamp":"2026-12-01T05:57:38.000Z","title":%s,"source":"user"}`, id, jsonString(title))
	}
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"slot", []string{ompSlot("Cart total rounding"), header(""), entries}, "Cart total rounding"},
		{"slot over header", []string{ompSlot("From the slot"), header("From the header"), entries}, "From the slot"},
		{"slot over a title_change", []string{ompSlot("From the slot"), header(""), entries, change("a1", "Later")}, "From the slot"},
		{"blank slot clears the header's", []string{ompSlot("  "), header("From the header"), entries}, ""},
		{"no slot: the header's", []string{header("From the header"), entries, change("a1", "Later")}, "From the header"},
		{"no slot, no header title: the latest title_change", []string{header(""), entries, change("a1", "First"), change("a2", "Second")}, "Second"},
		{"first line, controls removed, trimmed", []string{ompSlot(" Line\tone\u0007 \r\nline two"), header(""), entries}, "Lineone"},
		{"session_info is not omp's", []string{ompSlot("Title"), header(""), entries,
			`{"type":"session_info","id":"b1","parentId":"eb2702c0","timestamp":"2026-12-01T05:57:39.000Z","name":"pi name"}`}, "Title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fileOf(t, write(t, t.TempDir(), "omp.jsonl", tt.lines...))
			if r.Dialect != "omp" {
				t.Fatalf("dialect %s", r.Dialect)
			}
			if r.Name != tt.want {
				t.Errorf("name %q, want %q", r.Name, tt.want)
			}
		})
	}
	// A pi file is named by its session_info, whatever its header says.
	pi := fileOf(t, write(t, t.TempDir(), "pi.jsonl", header("Header title"), entries,
		`{"type":"session_info","id":"b1","parentId":"eb2702c0","timestamp":"2026-12-01T05:57:39.000Z","name":" pi name "}`))
	if pi.Dialect != "pi" || pi.Name != "pi name" {
		t.Errorf("pi file: dialect %s, name %q, want pi and \"pi name\"", pi.Dialect, pi.Name)
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestOmpTaskUsage: omp's task tool results carry their subagents'
// aggregated usage in details.usage, which omp's own statistics count
// (session-manager.ts entryUsage, session-stats.ts): audit counts it for
// omp files, once (not the message's own usage beside it, nor the
// per-subagent usage of details.results), and nowhere else.
func TestOmpTaskUsage(t *testing.T) {
	src, err := os.ReadFile("../../testdata/corpus/omp/omp-minimal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(string(src), "\n")
	result := func(id, tool, details string) string {
		return fmt.Sprintf(`{"type":"message","id":%q,"parentId":"6f078a77","timestamp":"2026-12-01T06:00:00.000Z","message":{"role":"toolResult","toolCallId":"call_%s","toolName":%q,"content":[{"type":"text","text":"done"}],"isError":false,"usage":%s,"details":%s,"timestamp":1772355700000}}`,
			id, id, tool, usage(7, 7, 0, 0, 14, 0.7), details)
	}
	task := fmt.Sprintf(`{"projectAgentsDir":null,"totalDurationMs":10,"results":[{"usage":%s},{"usage":%s}],"usage":%s}`,
		usage(100, 10, 0, 0, 110, 0.1), usage(200, 20, 0, 0, 220, 0.2), usage(300, 30, 0, 0, 330, 0.3))
	const minimal = 2660 + 322 // the file's own usage: the assistant turn and the title's model_usage
	piSrc, err := os.ReadFile("../../testdata/corpus/valid/v3-minimal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	piResult := strings.Replace(result("t4", "task", task), `"parentId":"6f078a77"`, `"parentId":"0f849d97"`, 1)
	const piMinimal = 8815
	tests := []struct {
		name    string
		file    string
		records int
		total   int64
	}{
		{"omp: task details.usage, once", base + "\n" + result("t1", "task", task), 3, minimal + 330},
		{"omp: details.usage of another tool is not counted", base + "\n" + result("t2", "read", task), 3, minimal + 14},
		{"omp: a task result without details.usage counts nothing", base + "\n" + result("t3", "task", `{"results":[]}`), 2, minimal},
		{"pi: a task result's details.usage is not counted", string(piSrc) + piResult, 2, piMinimal + 14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fileOf(t, write(t, t.TempDir(), "s.jsonl", tt.file))
			if r.Usage.Records != tt.records || r.Usage.Tokens.Total != tt.total {
				t.Errorf("%s: %d records, %d tokens; want %d, %d", r.Dialect, r.Usage.Records, r.Usage.Tokens.Total, tt.records, tt.total)
			}
		})
	}
}
