package audit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/session"
)

// Two snapshots of one session (the same header id; the later one grew)
// count their shared entries once, whichever comes first, and a third file
// with another id is left alone although it reuses an entry id.
func TestSnapshotsCountOnce(t *testing.T) {
	dir := t.TempDir()
	early := write(t, dir, "a/early.jsonl", header("snap", "/w", ""), u1, a1, t1)
	late := write(t, dir, "b/late.jsonl", header("snap", "/w", ""), u1, a1, t1,
		assistant("10000004", "10000003", 3, "anthropic", "claude", usage(150, 50, 0, 0, 200, 1.0), ""))
	other := write(t, dir, "c/other.jsonl", header("other", "/w", ""), u1)
	recs := []*audit.Record{fileOf(t, early), fileOf(t, late), fileOf(t, other)}
	for _, order := range [][]int{{0, 1, 2}, {1, 0, 2}} {
		s := audit.Total([]*audit.Record{recs[order[0]], recs[order[1]], recs[order[2]]}, audit.Options{})
		if s.Duplicates.Entries != 3 || s.Entries != 4+1 {
			t.Errorf("order %v: %d duplicate entries, %d entries; want 3, 5", order, s.Duplicates.Entries, s.Entries)
		}
		checkUsage(t, "total", s.Usage, 3, 100+10+200, 0.5+0.01+1.0)
		checkUsage(t, "duplicates", s.Duplicates.Usage, 2, 100+10, 0.5+0.01)
	}
	s := audit.Total(recs, audit.Options{By: audit.BySession})
	if len(s.Groups) != 2 || s.Groups[1].Key != "snap" || s.Groups[1].Files != 2 || s.Groups[1].Usage.Tokens.Total != 310 {
		t.Errorf("session groups %+v", s.Groups)
	}
}

// The token split adds up per field; totalTokens stays the total.
func TestTokenSplit(t *testing.T) {
	recs := forkSet(t)
	want := audit.Tokens{Input: 60 + 1 + 150, Output: 40 + 2 + 50, CacheRead: 3, CacheWrite: 4, Total: 310}
	if got := recs[0].Usage.Tokens; got != want {
		t.Errorf("A: %+v, want %+v", got, want)
	}
	s := audit.Total(recs, audit.Options{})
	sum := s.Usage.Tokens
	sum.Input += s.Duplicates.Usage.Tokens.Input
	var all int64
	for _, r := range recs {
		all += r.Usage.Tokens.Input
	}
	if sum.Input != all {
		t.Errorf("counted and left-out input %d, want the files' %d", sum.Input, all)
	}
}

// A cost that is not recorded, or recorded as 0 for tokens, is unknown:
// counted apart, never as a known $0.
func TestUnknownCost(t *testing.T) {
	dir := t.TempDir()
	noCost := strings.Replace(usage(10, 5, 0, 0, 15, 0), `,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}`, "", 1)
	path := write(t, dir, "s.jsonl", header("s", "/w", ""), u1,
		assistant("10000002", "10000001", 1, "ollama", "llama", noCost, ""),
		assistant("10000003", "10000002", 2, "ollama", "llama", usage(10, 5, 0, 0, 15, 0), ""),
		assistant("10000004", "10000003", 3, "anthropic", "claude", usage(10, 5, 0, 0, 15, 0.25), ""),
		assistant("10000005", "10000004", 4, "anthropic", "claude", usage(0, 0, 0, 0, 0, 0), ""))
	u := fileOf(t, path).Usage
	if u.Records != 4 || u.CostMissing != 1 || u.CostZero != 1 || u.Priced() != 2 || !near(u.Cost, 0.25) {
		t.Errorf("usage %+v: want 4 records, 1 without cost, 1 at $0 for tokens, 2 priced, $0.25", u)
	}
}

// --since/--until: only usage in the window counts, and only files whose
// activity meets it are counted; files outside still claim their entries.
func TestWindow(t *testing.T) {
	recs := forkSet(t) // A: day 1 (minutes 0-3); B: copies of A, then day 2; C: day 1; D: day 1
	day2 := at(24 * 60)
	tests := []struct {
		name    string
		w       audit.Window
		files   int
		records int
		tokens  int64
	}{
		{"open", audit.Window{}, 4, 9, 542},
		{"day 2 on", audit.Window{From: day2}, 1, 1, 50},
		{"before day 2", audit.Window{To: day2}, 4, 8, 492}, // B's activity starts on day 1 (its copies)
		{"first minutes", audit.Window{From: at(0), To: at(2)}, 3, 1, 100},
		{"later", audit.Window{From: at(5 * 24 * 60)}, 0, 0, 0},
	}
	for _, tt := range tests {
		s := audit.Total(recs, audit.Options{Window: tt.w})
		if s.Files != tt.files || s.Usage.Records != tt.records || s.Usage.Tokens.Total != tt.tokens {
			t.Errorf("%s: %d files, %d records, %d tokens; want %d, %d, %d", tt.name, s.Files, s.Usage.Records, s.Usage.Tokens.Total, tt.files, tt.records, tt.tokens)
		}
		var shown int64
		for _, r := range recs {
			if tt.w.Overlaps(r) {
				shown += r.UsageIn(tt.w).Tokens.Total
			}
		}
		if shown != tt.tokens+s.Duplicates.Usage.Tokens.Total {
			t.Errorf("%s: files show %d tokens, totals %d + %d copies", tt.name, shown, tt.tokens, s.Duplicates.Usage.Tokens.Total)
		}
	}
	// B's copies stay copies when A is outside the window.
	s := audit.Total(recs, audit.Options{Window: audit.Window{From: at(3)}})
	if s.Duplicates.Entries == 0 {
		t.Error("no copies once A is out of the window")
	}
}

// Days, weeks and months are dated in the time zone asked for.
func TestGroupsInTimeZone(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	late := at(23*60 + 30) // 23:30 UTC on 2026-01-01: 08:30 on the 2nd in Tokyo
	path := write(t, dir, "s.jsonl", header("s", "/w", ""),
		assistant("10000001", "", 23*60+30, "p", "m", usage(1, 1, 0, 0, 2, 0.5), ""))
	r := fileOf(t, path)
	for loc, want := range map[*time.Location]string{time.UTC: "2026-01-01", tokyo: "2026-01-02"} {
		s := audit.Total([]*audit.Record{r}, audit.Options{By: audit.ByDay, Location: loc})
		if len(s.Groups) != 1 || s.Groups[0].Key != want {
			t.Errorf("%v at %v: groups %+v, want %s", late, loc, s.Groups, want)
		}
	}
}

// The real corpus holds two pairs of snapshots of one session (same header
// id; 152 and 15 identical entries): they count once.
func TestRealCorpusSnapshots(t *testing.T) {
	dir := "../../../shared/corpus/real"
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(paths) == 0 {
		t.Skip("the real corpus is not at " + dir)
	}
	var recs []*audit.Record
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			recs = append(recs, fileOf(t, p))
		}
	}
	s := audit.Total(recs, audit.Options{})
	if s.Duplicates.Entries != 167 {
		t.Errorf("%d duplicate entries, want 167 (152 + 15)", s.Duplicates.Entries)
	}
	var split int64
	for _, v := range []int64{s.Usage.Tokens.Input, s.Usage.Tokens.Output, s.Usage.Tokens.CacheRead, s.Usage.Tokens.CacheWrite} {
		split += v
	}
	if split != s.Usage.Tokens.Total {
		t.Errorf("split %d, total %d: the real files' totalTokens are the sums", split, s.Usage.Tokens.Total)
	}
	t.Logf("files %d, entries %d, duplicates %d, tokens %+v, cost $%.2f, duplicate cost $%.2f, unpriced %d of %d",
		s.Files, s.Entries, s.Duplicates.Entries, s.Usage.Tokens, s.Usage.Cost, s.Duplicates.Usage.Cost, s.Usage.Unpriced(), s.Usage.Records)
}

// Version-1 entries carry no ids: pisess reads them with the ids that
// migrate derives from the session id and the line (docs/format.md,
// "In-memory migration"). So a copy of a v1 file, and the v3 file `pisess
// migrate` made of it, are snapshots whose entries count once.
func TestVersion1SnapshotsCountOnce(t *testing.T) {
	dir := t.TempDir()
	v1 := []string{
		`{"type":"session","id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","provider":"anthropic","modelId":"claude"}`,
		`{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}`,
		`{"type":"message","timestamp":"2026-01-01T00:01:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"messages","provider":"anthropic","model":"claude","usage":` + usage(6, 4, 0, 0, 10, 0.5) + `,"stopReason":"stop","timestamp":2}}`,
		`{"type":"compaction","timestamp":"2026-01-01T00:02:00.000Z","summary":"s","tokensBefore":5,"firstKeptEntryIndex":1,"usage":` + usage(1, 2, 3, 4, -1, 0.25) + `}`,
	}
	// Enough lines that the reader's buffer is used again: the ids must
	// not depend on bytes that were read over.
	filler := `{"type":"message","timestamp":"2026-01-01T00:03:00.000Z","message":{"role":"user","content":"` + strings.Repeat("x", 1000) + `","timestamp":3}}`
	for range 500 {
		v1 = append(v1, filler)
	}
	original := write(t, dir, "a/2026-01-01T00-00-00-000Z_s1.jsonl", v1...)
	snapshot := write(t, dir, "backup/2026-01-01T00-00-00-000Z_s1.jsonl", v1...)
	in, err := os.Open(original)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out strings.Builder
	if _, err := migrate.Migrate(in, &out, session.DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	migrated := filepath.Join(dir, "migrated/2026-01-01T00-00-00-000Z_s1.jsonl")
	write(t, dir, "migrated/2026-01-01T00-00-00-000Z_s1.jsonl", strings.TrimSuffix(out.String(), "\n"))
	recs := []*audit.Record{fileOf(t, original), fileOf(t, snapshot), fileOf(t, migrated)}
	if recs[2].Version != 3 {
		t.Fatalf("migrated file has version %d", recs[2].Version)
	}
	s := audit.Total(recs, audit.Options{})
	if s.Entries != 503 || s.Duplicates.Entries != 2*503 {
		t.Errorf("%d entries, %d duplicates; want 503, 1006", s.Entries, s.Duplicates.Entries)
	}
	checkUsage(t, "total", s.Usage, 2, 20, 0.75)
	checkUsage(t, "duplicates", s.Duplicates.Usage, 4, 40, 1.5)
}

// A backup copy of a sessions directory holds a snapshot of each file: a
// fork's parentSession then names two files by its base name, which are
// snapshots of one session, and the fork still joins its parent's lineage.
// Two copies of a parent and its fork count as one of each.
func TestForkOfSnapshotsCountsOnce(t *testing.T) {
	dir := t.TempDir()
	var recs []*audit.Record
	for _, copy := range []string{"live", "backup"} {
		parent := write(t, dir, copy+"/2026-01-01T00-00-00-000Z_pppp.jsonl", header("pppp", "/w", ""), u1, a1, t1)
		fork := write(t, dir, copy+"/2026-01-02T00-00-00-000Z_ffff.jsonl",
			header("ffff", "/w", `,"parentSession":"/gone/2026-01-01T00-00-00-000Z_pppp.jsonl"`), u1, a1, t1,
			assistant("20000001", "10000003", 10, "openai", "gpt", usage(30, 20, 0, 0, 50, 0.25), ""))
		recs = append(recs, fileOf(t, parent), fileOf(t, fork))
	}
	one := audit.Total(recs[:2], audit.Options{})
	both := audit.Total(recs, audit.Options{})
	if both.Entries != one.Entries || both.Usage != one.Usage {
		t.Errorf("two copies: %d entries, %+v; one copy: %d entries, %+v", both.Entries, both.Usage, one.Entries, one.Usage)
	}
	checkUsage(t, "total", both.Usage, 3, 100+10+50, 0.5+0.01+0.25)
}
