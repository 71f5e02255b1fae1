package migrate

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/testfs"
)

// longV1 is a version-1 session whose second line is a user message of n
// bytes of text.
func longV1(n int) string {
	return `{"type":"session","id":"019c0000-0000-7000-8000-00000000cafe","timestamp":"2026-01-02T03:04:05.678Z","cwd":"/p"}` + "\n" +
		`{"type":"message","timestamp":"2026-01-02T03:04:05.678Z","message":{"role":"user","content":[{"type":"text","text":"` +
		strings.Repeat("x", n) + `"}],"timestamp":1767323045678}}` + "\n"
}

// A migration of a session with a long entry reads the line once per pass
// into a buffer of its size: a dry run holds neither the new generation
// (spooled to a temporary file) nor a second copy of the line when it
// verifies it (read from that file). Before, a dry run of a 200 MB entry
// peaked at 780 MiB.
func TestDryRunLongLineMemory(t *testing.T) {
	const n = 32 << 20
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, longV1(n), 0o640)
	lines := 0
	verify := func(_ string, r io.Reader) error { // a pass as validate makes it
		rd := session.NewReader(r, session.DefaultLimits())
		for rd.Next() {
			lines++
		}
		return rd.Err()
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := safefile.Rewrite(safefile.OS(), path, safefile.RewriteOptions{DryRun: true, Verify: verify}, func(in io.ReadSeeker, out io.Writer) error {
		_, err := Migrate(in, out, session.Limits{})
		return err
	})
	runtime.ReadMemStats(&after)
	if err != nil || !out.Changed || out.Written || lines != 2 {
		t.Fatalf("changed %v, written %v, %v; the check read %d lines", out.Changed, out.Written, err, lines)
	}
	if out.Diff != "" {
		t.Errorf("a dry run without --diff returned a diff of the new generation (%d bytes)", len(out.Diff))
	}
	// Three passes: two of the migration, one of the check.
	if alloc, max := after.TotalAlloc-before.TotalAlloc, uint64(3*n+8<<20); alloc > max {
		t.Errorf("a dry run over a %d MiB line allocated %d MiB, want at most %d", n>>20, alloc>>20, max>>20)
	}
	if names := testfs.Names(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}
