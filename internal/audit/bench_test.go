package audit_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/audit"
)

// bigSession writes a session of turns user → assistant(tool call) →
// toolResult → assistant, with a few KiB of text per turn, and returns
// its path and size.
func bigSession(b *testing.B, dir, name, sessionID, extra string, turns int) (string, int64) {
	b.Helper()
	lines := []string{header(sessionID, "/work/proj", extra)}
	parent := ""
	payload := strings.Repeat("lorem ipsum dolor sit amet ", 100)
	for i := 0; i < turns; i++ {
		id := func(k int) string { return fmt.Sprintf("%08x", i*4+k+1) }
		call := "call" + id(0)
		lines = append(lines,
			user(id(0), parent, i, payload),
			assistant(id(1), id(0), i, "anthropic", "claude", usage(100, 50, 1000, 10, 1160, 0.0123), call),
			toolResult(id(2), id(1), i, call, ""),
			assistant(id(3), id(2), i, "anthropic", "claude", usage(100, 50, 1000, 10, 1160, 0.0123), ""))
		parent = id(3)
	}
	path := write(b, dir, name, lines...)
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, info.Size()
}

// BenchmarkFile is one validation pass with the figures gathered.
func BenchmarkFile(b *testing.B) {
	path, size := bigSession(b, b.TempDir(), "big.jsonl", "big", "", 300)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := audit.File(path, options()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTotal totals a session and 50 forks of it (deduplication).
func BenchmarkTotal(b *testing.B) {
	dir := b.TempDir()
	root, _ := bigSession(b, dir, "2026-01-01T00-00-00-000Z_root.jsonl", "root", "", 200)
	recs := []*audit.Record{fileOf(b, root)}
	for k := 0; k < 50; k++ {
		path, _ := bigSession(b, dir, fmt.Sprintf("fork%02d.jsonl", k), fmt.Sprintf("fork%02d", k), fmt.Sprintf(`,"parentSession":%q`, root), 200)
		recs = append(recs, fileOf(b, path))
	}
	b.ReportAllocs()
	for b.Loop() {
		s := audit.Total(recs, audit.Options{By: audit.ByModel})
		if s.Duplicates.Entries != 50*800 {
			b.Fatalf("%d duplicates, want %d", s.Duplicates.Entries, 50*800)
		}
	}
}
