package safefile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

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
			if _, ok := session.SourceOf(r); ok != tt.file {
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
	sp := Spool{file: &ScratchFile{File: readOnly}, filed: 5}
	defer sp.Close()
	if n, err := sp.Write([]byte("tail")); n != 4 || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got, err := sp.Bytes(); string(got) != "head|tail" || err != nil || sp.file != nil {
		t.Errorf("read back %q, %v (file %v), want the bytes in memory", got, err, sp.file)
	}
}
