package migrate

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/parse"
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
	path := writeSession(t, dir, longV1(n))
	lines := 0
	verify := func(_ string, r io.Reader) error { // a pass as validate makes it
		rd := parse.NewReader(r, parse.DefaultLimits())
		for rd.Next() {
			lines++
		}
		return rd.Err()
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := Rewrite(OS(), path, RewriteOptions{DryRun: true, Verify: verify}, migrateGen)
	runtime.ReadMemStats(&after)
	if err != nil || !out.Changed || out.Written || lines != 2 {
		t.Fatalf("changed %v, written %v, %v; the check read %d lines", out.Changed, out.Written, err, lines)
	}
	if out.Generated != nil {
		t.Errorf("a dry run without a diff returned the new generation (%d bytes)", len(out.Generated))
	}
	// Three passes: two of the migration, one of the check.
	if alloc, max := after.TotalAlloc-before.TotalAlloc, uint64(3*n+8<<20); alloc > max {
		t.Errorf("a dry run over a %d MiB line allocated %d MiB, want at most %d", n>>20, alloc>>20, max>>20)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

// A spool keeps every byte written to it, in memory or in its file, and
// reads them back from the start.
func TestSpool(t *testing.T) {
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	for _, tt := range []struct {
		name   string
		chunks int
		file   bool
	}{
		{"empty", 0, false},
		{"small", 2, false},
		{"at the limit", spoolMemory / len(chunk), false},
		{"past it", spoolMemory/len(chunk) + 1, true},
		{"far past it", 12, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var sp Spool
			defer sp.Close()
			var want []byte
			for i := 0; i < tt.chunks; i++ {
				p := chunk[:len(chunk)-i] // sizes that do not line up
				if n, err := sp.Write(p); n != len(p) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				want = append(want, p...)
			}
			r, err := sp.Reader()
			if err != nil {
				t.Fatal(err)
			}
			if _, isFile := r.(*os.File); isFile != tt.file {
				t.Errorf("in a file: %v, want %v", isFile, tt.file)
			}
			if _, ok := parse.SourceOf(r); ok != tt.file {
				t.Errorf("a Source: %v, want %v", ok, tt.file)
			}
			for i := 0; i < 2; i++ { // bytes reads from the start again
				got, err := sp.Bytes()
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("read back %d bytes (%v), want %d", len(got), err, len(want))
				}
			}
		})
	}
}

// A spool whose temporary file cannot be written (its file system is
// full) moves back to memory with every byte written so far.
func TestSpoolFileFails(t *testing.T) {
	name := filepath.Join(t.TempDir(), "spool")
	if err := os.WriteFile(name, []byte("head|"), 0o600); err != nil {
		t.Fatal(err)
	}
	readOnly, err := os.Open(name) // writes to it fail
	if err != nil {
		t.Fatal(err)
	}
	sp := Spool{file: readOnly, filed: 5}
	defer sp.Close()
	if n, err := sp.Write([]byte("tail")); n != 4 || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got, err := sp.Bytes(); string(got) != "head|tail" || err != nil || sp.file != nil {
		t.Errorf("read back %q, %v (file %v), want the bytes in memory", got, err, sp.file)
	}
}
