package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/testfs"
)

// TestScratch: a scratch file is made in the directory under the
// pattern's name, for this user only, recorded in Temps, and removed (and
// forgotten) by Close.
func TestScratch(t *testing.T) {
	dir := t.TempDir()
	temps := &Temps{}
	f, err := scratchIn(dir, temps, "pisess-test-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(f.Name())
	if filepath.Dir(f.Name()) != dir || !strings.HasPrefix(base, "pisess-test-") || !strings.HasSuffix(base, ".jsonl") || len(base) != len("pisess-test-.jsonl")+12 {
		t.Errorf("name %s", f.Name())
	}
	info, err := os.Lstat(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("mode %v: others may read it", perm)
	}
	if n := temps.pending(); n != 1 {
		t.Errorf("%d files recorded, want 1", n)
	}
	if _, err := f.WriteString("line\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if names := testfs.Names(t, dir); len(names) != 0 {
		t.Errorf("left behind: %v", names)
	}
	if n := temps.pending(); n != 0 {
		t.Errorf("%d files still recorded", n)
	}
}

// TestScratchUnlink: an unlinked scratch file has no name from then on
// (nothing to leave behind whatever ends the process) and stays readable
// and writable through its descriptor.
func TestScratchUnlink(t *testing.T) {
	dir := t.TempDir()
	temps := &Temps{}
	f, err := scratchIn(dir, temps, "pisess-test-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Unlink()
	if names := testfs.Names(t, dir); len(names) != 0 {
		t.Errorf("after Unlink: %v", names)
	}
	if n := temps.pending(); n != 0 {
		t.Errorf("%d files still recorded", n)
	}
	if _, err := f.WriteString("kept"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := f.ReadAt(buf, 0); err != nil || string(buf) != "kept" {
		t.Errorf("read back %q, %v", buf, err)
	}
}

// TestScratchInterrupted: a signal (Temps.RemoveAll) removes a scratch
// file in use, and one asked for afterwards is refused with nothing left.
func TestScratchInterrupted(t *testing.T) {
	dir := t.TempDir()
	temps := &Temps{}
	f, err := scratchIn(dir, temps, "pisess-test-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	temps.RemoveAll(OS()) // what the signal handler does
	if names := testfs.Names(t, dir); len(names) != 0 {
		t.Errorf("after the signal: %v", names)
	}
	if _, err := scratchIn(dir, temps, "pisess-test-*"); !errors.Is(err, errStopped) {
		t.Errorf("after the signal: %v, want it refused", err)
	}
	if names := testfs.Names(t, dir); len(names) != 0 {
		t.Errorf("left behind: %v", names)
	}
}

// TestScratchPatternNamesNoDirectory: a pattern is a name, never a path.
func TestScratchPatternNamesNoDirectory(t *testing.T) {
	for _, pattern := range []string{"../x-*", "sub/x-*", string(filepath.Separator) + "x"} {
		if f, err := scratchIn(t.TempDir(), nil, pattern); err == nil {
			f.Close()
			t.Errorf("%q: made %s", pattern, f.Name())
		}
	}
}
