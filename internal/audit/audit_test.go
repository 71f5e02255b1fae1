package audit_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

func options() validate.Options { return validate.Options{Limits: session.DefaultLimits()} }

// fileOf audits one file, failing the test on an I/O error.
func fileOf(t testing.TB, path string) *audit.Record {
	t.Helper()
	r, _ := fileReportOf(t, path)
	return r
}

// fileReportOf is fileOf with the file's validation report.
func fileReportOf(t testing.TB, path string) (*audit.Record, *validate.Report) {
	t.Helper()
	r, rep, err := audit.FileReport(path, options())
	if err != nil {
		t.Fatal(err)
	}
	return r, rep
}

// Shared lines: session A's first three entries, which forks B and C copy
// with their ids.
var (
	u1 = user("10000001", "", 0, "Please look at   the\nbug")
	a1 = assistant("10000002", "10000001", 1, "anthropic", "claude", usage(60, 40, 0, 0, 100, 0.5), "c1")
	t1 = toolResult("10000003", "10000002", 2, "c1", usage(1, 2, 3, 4, -1, 0.01)) // no totalTokens: 1+2+3+4
)

// forkSet writes session A, fork B (parentSession: A's name in another
// directory), fork C (branchedFrom: a different file name with A's session
// id) and an unrelated D that reuses one of A's ids, and audits them.
func forkSet(t testing.TB) []*audit.Record {
	dir := t.TempDir()
	paths := []string{
		write(t, dir, "2026-01-01T00-00-00-000Z_aaaa.jsonl",
			header("aaaa", "/work/proj", ""), u1, a1, t1,
			assistant("10000004", "10000003", 3, "anthropic", "claude", usage(150, 50, 0, 0, 200, 1.0), "")),
		write(t, dir, "2026-01-02T00-00-00-000Z_bbbb.jsonl",
			header("bbbb", "/work/proj", `,"parentSession":"/elsewhere/sessions/2026-01-01T00-00-00-000Z_aaaa.jsonl"`), u1, a1, t1,
			assistant("20000001", "10000003", 24*60+10, "openai", "gpt", usage(30, 20, 0, 0, 50, 0.25), "")),
		write(t, dir, "sub/2026-01-03T00-00-00-000Z_cccc.jsonl",
			header("cccc", "/work/proj", `,"branchedFrom":"C:\\old\\2025-12-31T00-00-00-000Z_aaaa.jsonl"`), u1, a1,
			assistant("30000001", "10000002", 20, "openai", "gpt", usage(5, 2, 0, 0, 7, 0.07), ""),
			compaction("30000002", "30000001", 21, usage(20, 10, 0, 0, 30, 0.3), usage(500, 500, 0, 0, 1000, 10)),
			branchSummary("30000003", "30000002", 22, "10000001", usage(30, 10, 0, 0, 40, 0.4)),
			usageEntry("30000004", "30000003", 23, "openai", "gpt-mini", usage(4, 1, 0, 0, 5, 0.05)),
			sessionInfo("30000005", "30000004", 24, "C fork")),
		write(t, dir, "d.jsonl",
			header("dddd", "/other", ""),
			assistant("10000002", "", 30, "anthropic", "claude", usage(60, 40, 0, 0, 100, 0.5), "")),
	}
	recs := make([]*audit.Record, len(paths))
	for i, p := range paths {
		var rep *validate.Report
		recs[i], rep = fileReportOf(t, p)
		if recs[i].Verdict != audit.OK {
			t.Fatalf("%s: verdict %s, want ok: %v", p, recs[i].Verdict, rep.Findings)
		}
	}
	return recs
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func checkUsage(t *testing.T, what string, got audit.Usage, records int, tokens int64, cost float64) {
	t.Helper()
	if got.Records != records || got.Tokens.Total != tokens || !near(got.Cost, cost) {
		t.Errorf("%s: %d records, %d tokens, $%v; want %d, %d, $%v", what, got.Records, got.Tokens.Total, got.Cost, records, tokens, cost)
	}
}

// Each file counts everything in it, copies included.
func TestFileUsage(t *testing.T) {
	recs := forkSet(t)
	checkUsage(t, "A", recs[0].Usage, 3, 100+10+200, 0.5+0.01+1.0)
	checkUsage(t, "B", recs[1].Usage, 3, 100+10+50, 0.5+0.01+0.25)
	// C: copied a1, c1, compaction, branch_summary, usage entry; never the
	// retainedTail's 1000 tokens and $10.
	checkUsage(t, "C", recs[2].Usage, 5, 100+7+30+40+5, 0.5+0.07+0.3+0.4+0.05)
	checkUsage(t, "D", recs[3].Usage, 1, 100, 0.5)
}

// Copied entries count once per lineage: B and C copy A's entries; D
// shares an id with A but is no fork of it.
func TestTotalDeduplicatesForks(t *testing.T) {
	s := audit.Total(forkSet(t), audit.Options{})
	if s.Files != 4 || s.Entries != 4+4+7+1-5 || s.Duplicates.Entries != 3+2 {
		t.Errorf("files %d, entries %d, duplicate entries %d; want 4, 11, 5", s.Files, s.Entries, s.Duplicates.Entries)
	}
	checkUsage(t, "total", s.Usage, 12-3, 752-210, 4.09-1.01)
	checkUsage(t, "duplicates", s.Duplicates.Usage, 3, 110+100, 0.51+0.5)
	if s.Verdicts[audit.OK] != 4 || s.Versions[3] != 4 {
		t.Errorf("verdicts %v, versions %v", s.Verdicts, s.Versions)
	}
}

// Without a link, the same ids in two files are two sessions' entries.
func TestTotalWithoutLinks(t *testing.T) {
	recs := forkSet(t)
	s := audit.Total([]*audit.Record{recs[0], recs[3]}, audit.Options{})
	if s.Duplicates.Entries != 0 {
		t.Errorf("%d duplicates between unrelated files", s.Duplicates.Entries)
	}
	checkUsage(t, "total", s.Usage, 4, 410, 2.01)
}

// The copy left out is the later one, whichever file names the other.
func TestTotalOrder(t *testing.T) {
	recs := forkSet(t)
	s := audit.Total([]*audit.Record{recs[1], recs[0]}, audit.Options{})
	checkUsage(t, "B then A", s.Usage, 3+1, 160+200, 0.76+1.0)
	checkUsage(t, "duplicates", s.Duplicates.Usage, 2, 110, 0.51)
}

func TestGroups(t *testing.T) {
	tests := []struct {
		by   audit.Grouping
		want []audit.Group
	}{
		{audit.ByModel, []audit.Group{ // costliest last
			{Key: "openai/gpt-mini", Files: 1, Usage: usageOf(1, 5, 0.05)},
			{Key: "openai/gpt", Files: 2, Usage: usageOf(4, 127, 1.02)}, // b1; c1, compaction, branch_summary
			{Key: "anthropic/claude", Files: 2, Usage: usageOf(4, 410, 2.01)},
		}},
		{audit.ByDay, []audit.Group{
			{Key: "2026-01-01", Files: 3, Usage: usageOf(8, 492, 2.83)},
			{Key: "2026-01-02", Files: 1, Usage: usageOf(1, 50, 0.25)},
		}},
		{audit.ByWeek, []audit.Group{
			{Key: "2026-W01", Files: 4, Usage: usageOf(9, 542, 3.08)},
		}},
		{audit.ByMonth, []audit.Group{
			{Key: "2026-01", Files: 4, Usage: usageOf(9, 542, 3.08)},
		}},
		{audit.ByProject, []audit.Group{
			{Key: "/other", Files: 1, Usage: usageOf(1, 100, 0.5)},
			{Key: "/work/proj", Files: 3, Usage: usageOf(8, 442, 2.58)},
		}},
		{audit.BySession, []audit.Group{
			{Key: "bbbb", Files: 1, Usage: usageOf(1, 50, 0.25)},
			{Key: "dddd", Files: 1, Usage: usageOf(1, 100, 0.5)},
			{Key: "cccc", Files: 1, Usage: usageOf(4, 82, 0.82)},
			{Key: "aaaa", Files: 1, Usage: usageOf(3, 310, 1.51)},
		}},
	}
	recs := forkSet(t)
	for _, tt := range tests {
		got := audit.Total(recs, audit.Options{By: tt.by}).Groups
		if len(got) != len(tt.want) {
			t.Errorf("by %s: %+v, want %+v", tt.by, got, tt.want)
			continue
		}
		for i := range got {
			g, w := got[i], tt.want[i]
			if g.Key != w.Key || g.Files != w.Files || g.Usage.Records != w.Usage.Records || g.Usage.Tokens.Total != w.Usage.Tokens.Total || !near(g.Usage.Cost, w.Usage.Cost) {
				t.Errorf("by %s, group %d: %+v, want %+v", tt.by, i, g, w)
			}
		}
	}
}

// usageOf is a Usage with a total of tokens.
func usageOf(records int, tokens int64, cost float64) audit.Usage {
	return audit.Usage{Records: records, Tokens: audit.Tokens{Total: tokens}, Cost: cost}
}

func TestRecordFigures(t *testing.T) {
	recs := forkSet(t)
	a, c := recs[0], recs[2]
	if a.FirstMessage != "Please look at the bug" || a.CWD != "/work/proj" || a.SessionID != "aaaa" {
		t.Errorf("A: first message %q, cwd %q, session %q", a.FirstMessage, a.CWD, a.SessionID)
	}
	if want := map[string]int{"user": 1, "assistant": 2, "toolResult": 1}; !reflect.DeepEqual(a.Messages, want) {
		t.Errorf("A messages %v, want %v", a.Messages, want)
	}
	if !a.LastActivity.Equal(at(3)) {
		t.Errorf("A last activity %v, want %v", a.LastActivity, at(3))
	}
	if c.Name != "C fork" || c.Compactions != 1 || c.Entries != 7 || c.Leaves != 1 || c.Branches != 0 {
		t.Errorf("C: name %q, %d compactions, %d entries, %d leaves, %d branches", c.Name, c.Compactions, c.Entries, c.Leaves, c.Branches)
	}
	if want := []string{"anthropic/claude", "openai/gpt", "openai/gpt-mini"}; !reflect.DeepEqual(c.Models, want) {
		t.Errorf("C models %v, want %v", c.Models, want)
	}
	if !strings.HasSuffix(c.ParentSession, `_aaaa.jsonl`) {
		t.Errorf("C parent %q", c.ParentSession)
	}
}

// A tree with a branch point: r has children a and b; a has child c.
func TestShape(t *testing.T) {
	dir := t.TempDir()
	r := fileOf(t, write(t, dir, "tree.jsonl", header("tree", "/w", ""),
		user("000000aa", "", 0, "root"),
		assistant("000000ab", "000000aa", 1, "p", "m", usage(1, 1, 0, 0, 2, 0), ""),
		assistant("000000ac", "000000aa", 2, "p", "m", usage(1, 1, 0, 0, 2, 0), ""),
		user("000000ad", "000000ab", 3, "more")))
	if r.Branches != 1 || r.Leaves != 2 || r.Verdict != audit.OK {
		t.Errorf("%d branches, %d leaves, verdict %s; want 1, 2, ok", r.Branches, r.Leaves, r.Verdict)
	}
}

func TestVerdicts(t *testing.T) {
	ok := header("s1", "/w", "") + "\n" + u1 + "\n"
	tests := []struct {
		name, content string
		want          audit.Verdict
		firstError    finding.Code
	}{
		{"ok", ok, audit.OK, ""},
		{"v2", strings.Replace(ok, `"version":3`, `"version":2`, 1), audit.NeedsMigration, ""},
		{"v1", `{"type":"session","id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n" +
			`{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n", audit.NeedsMigration, ""},
		{"torn", ok + `{"type":"message","id":"x`, audit.Repairable, ""},
		{"no final newline", strings.TrimSuffix(ok, "\n"), audit.Repairable, ""},
		{"invalid json", header("s1", "/w", "") + "\nnot json\n" + u1 + "\n", audit.Corrupt, finding.InvalidJSON},
		{"concatenated", header("s1", "/w", "") + "\n" + u1 + strings.Replace(u1, "10000001", "10000009", 1) + "\n", audit.Corrupt, finding.ConcatenatedObjects},
		{"missing parent", header("s1", "/w", "") + "\n" + user("10000001", "ffffffff", 0, "x") + "\n", audit.Corrupt, finding.MissingParent},
		{"too new", `{"kind":"header","version":4,"id":"x"}` + "\n", audit.TooNew, finding.UnsupportedVersion},
		{"not a session", `{"version":1,"recordType":"message"}` + "\n", audit.NotSession, finding.NotASession},
		{"empty", "", audit.Corrupt, finding.MissingHeader},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			r, rep := fileReportOf(t, path)
			if r.Verdict != tt.want {
				t.Errorf("verdict %s, want %s (%v)", r.Verdict, tt.want, rep.Findings)
			}
			var code finding.Code
			if r.FirstError != nil {
				code = r.FirstError.Code
			}
			if code != tt.firstError {
				t.Errorf("first error %q, want %q", code, tt.firstError)
			}
		})
	}
}

// A version-1 file is one chain: one leaf, no branch point.
func TestVersion1Shape(t *testing.T) {
	dir := t.TempDir()
	r := fileOf(t, write(t, dir, "v1.jsonl",
		`{"type":"session","id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","provider":"anthropic","modelId":"claude"}`,
		`{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}`,
		`{"type":"compaction","timestamp":"2026-01-01T00:01:00.000Z","summary":"s","tokensBefore":5,"firstKeptEntryIndex":1,"usage":`+usage(1, 2, 3, 4, -1, 0.25)+`}`))
	if r.Leaves != 1 || r.Branches != 0 || r.Version != 1 {
		t.Errorf("%d leaves, %d branches, version %d", r.Leaves, r.Branches, r.Version)
	}
	checkUsage(t, "v1", r.Usage, 1, 10, 0.25)
	s := audit.Total([]*audit.Record{r}, audit.Options{By: audit.ByModel})
	if len(s.Groups) != 1 || s.Groups[0].Key != "anthropic/claude" {
		t.Errorf("compaction usage attributed to %+v, want the header's model", s.Groups)
	}
}

// Without entry timestamps, last activity is the file's modification time.
func TestLastActivityFallback(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "header-only.jsonl", header("s1", "/w", ""))
	mtime := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	r := fileOf(t, path)
	if !r.LastActivity.Equal(mtime) || !r.Modified.Equal(mtime) {
		t.Errorf("last activity %v, modified %v; want %v", r.LastActivity, r.Modified, mtime)
	}
}

func TestUnreadable(t *testing.T) {
	_, err := audit.File(filepath.Join(t.TempDir(), "missing.jsonl"), options())
	var ioErr *validate.IOError
	if err == nil || !errors.As(err, &ioErr) {
		t.Errorf("error %v, want a *validate.IOError", err)
	}
}

func TestParseGrouping(t *testing.T) {
	for in, want := range map[string]audit.Grouping{"": audit.NoGrouping, "project": audit.ByProject, "model": audit.ByModel,
		"day": audit.ByDay, "week": audit.ByWeek, "month": audit.ByMonth, "session": audit.BySession} {
		if got, err := audit.ParseGrouping(in); err != nil || got != want {
			t.Errorf("ParseGrouping(%q) = %q, %v", in, got, err)
		}
	}
	_, err := audit.ParseGrouping("year")
	if err == nil || err.Error() != `--by must be day, week, month, model, project or session, not "year"` {
		t.Errorf("ParseGrouping(year): %v", err)
	}
}

// The name is the latest session_info's, trimmed as pi trims it
// (String.prototype.trim, U+FEFF included); a blank one clears it, so the
// title is the first user message again.
func TestSessionNameTrimmed(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		names     []string
		wantName  string
		wantTitle string
	}{
		{[]string{"Fix the bug"}, "Fix the bug", "Fix the bug"},
		{[]string{" \u00a0Padded\n\ufeff"}, "Padded", "Padded"},
		{[]string{"\u0085kept"}, "\u0085kept", "\u0085kept"}, // NEL is no white space to JavaScript
		{[]string{"Fix the bug", " \t\n"}, "", "Please look at the bug"},
	}
	for i, tt := range tests {
		lines := []string{header("s", "/w", ""), u1}
		parent := "10000001"
		for k, name := range tt.names {
			id := fmt.Sprintf("5000000%d", k)
			lines = append(lines, sessionInfo(id, parent, 1, name))
			parent = id
		}
		r := fileOf(t, write(t, dir, fmt.Sprintf("s%d.jsonl", i), lines...))
		if r.Name != tt.wantName || r.Title() != tt.wantTitle {
			t.Errorf("names %q: name %q, title %q; want %q, %q", tt.names, r.Name, r.Title(), tt.wantName, tt.wantTitle)
		}
	}
}
