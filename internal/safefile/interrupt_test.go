package safefile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pisess/pisess/internal/testfs"
)

// tempsIn lists the rewrite protocol's temp files in dir.
func tempsIn(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for _, name := range testfs.Names(t, dir) {
		if IsTempName(name) {
			names = append(names, name)
		}
	}
	return names
}

// TestInterruptRemovesTheTempFile: a run stopped by a signal (Ctrl-C)
// while it writes the new generation removes its temp file before the
// process ends (Temps.RemoveAll, called by the signal handler); before,
// `.pisess-tmp-<hex>` was left behind. The original stays as it was.
func TestInterruptRemovesTheTempFile(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	temps := &Temps{}
	gen := func(in io.ReadSeeker, out io.Writer) error {
		io.WriteString(out, "partial")
		if got := tempsIn(t, dir); len(got) != 1 {
			t.Fatalf("temp files while writing: %v", got)
		}
		temps.RemoveAll(OS()) // what the signal handler does
		if got := tempsIn(t, dir); len(got) != 0 {
			t.Errorf("temp files after RemoveAll: %v", got)
		}
		return io.ErrUnexpectedEOF // the process would be gone by now
	}
	if _, err := Rewrite(OS(), path, RewriteOptions{Temps: temps}, gen); err == nil {
		t.Fatal("no error")
	}
	if got, _ := os.ReadFile(path); string(got) != sampleV1 {
		t.Errorf("original changed: %q", got)
	}
	// Once stopped, no rewrite creates a temp file any more.
	if _, err := Rewrite(OS(), path, RewriteOptions{Temps: temps}, copyGen("x\n")); err == nil {
		t.Error("a rewrite after RemoveAll created a temp file")
	}
	if got := tempsIn(t, dir); len(got) != 0 {
		t.Errorf("temp files left: %v", got)
	}
}

// TestTempsForgetsFinishedRuns: a finished rewrite (renamed, or unchanged)
// leaves nothing recorded, so a later signal touches no file of it.
func TestTempsForgetsFinishedRuns(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	temps := &Temps{}
	if _, err := Rewrite(OS(), path, RewriteOptions{Temps: temps}, copyGen("new\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := Rewrite(OS(), path, RewriteOptions{Temps: temps}, copyGen("new\n")); err != nil {
		t.Fatal(err)
	}
	if n := temps.pending(); n != 0 {
		t.Errorf("%d temp files still recorded", n)
	}
	if got := tempsIn(t, filepath.Dir(path)); len(got) != 0 {
		t.Errorf("temp files left: %v", got)
	}
}

// copyGen is a generator that writes s whatever the input.
func copyGen(s string) Generator {
	return func(_ io.ReadSeeker, out io.Writer) error {
		_, err := io.Copy(out, strings.NewReader(s))
		return err
	}
}

// TestInterruptRemovesAPartialBackupCopy: where a hard link is impossible
// the backup is a copy; a signal while it is being written removes it
// with the temp file. Left behind, the partial copy refused every later
// run (backup_exists: different size).
func TestInterruptRemovesAPartialBackupCopy(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	backup := path + ".v1.bak"
	temps := &Temps{}
	signalled := false
	fsys := newFaultFS(func(op, name string) error {
		switch {
		case op == "Link":
			return syscall.EXDEV
		case op == "write" && name == backup && !signalled:
			signalled = true
			temps.RemoveAll(OS()) // the signal, while the copy is written; the process ends here
			if _, err := os.Lstat(backup); !os.IsNotExist(err) {
				t.Errorf("the partial backup is left: %v", err)
			}
			if got := tempsIn(t, dir); len(got) != 0 {
				t.Errorf("temp files left: %v", got)
			}
			return syscall.EINTR
		}
		return nil
	})
	if _, err := Rewrite(fsys, path, RewriteOptions{BackupSuffix: ".v1.bak", Temps: temps}, copyGen("new\n")); err == nil {
		t.Fatal("no error")
	}
	if !signalled {
		t.Fatal("the backup was not copied")
	}
	if got, _ := os.ReadFile(path); string(got) != sampleV1 {
		t.Errorf("original changed: %q", got)
	}
}

// TestBackupCopyIsNeverPartialUnderItsName: a run killed while it copies
// the backup (no hard link possible) must not leave a partial file under
// the backup's name, which the next run would refuse as a different
// backup in the way (CI saw it: EIO on the copy, then the Go runtime
// aborted). While the copy is written the name is free; once the run is
// done it holds the whole original, and no temp file is left.
func TestBackupCopyIsNeverPartialUnderItsName(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	backup := path + ".v1.bak"
	writes := 0
	fsys := newFaultFS(func(op, name string) error {
		switch {
		case op == "Link":
			return syscall.EXDEV
		case op == "write" && name == backup:
			writes++
			if _, err := os.Lstat(backup); !os.IsNotExist(err) {
				t.Errorf("while the copy is written, the backup's name holds a file (%v): a kill now leaves a partial backup", err)
			}
		}
		return nil
	})
	if _, err := Rewrite(fsys, path, RewriteOptions{BackupSuffix: ".v1.bak", Temps: &Temps{}}, copyGen("new\n")); err != nil {
		t.Fatal(err)
	}
	if writes == 0 {
		t.Fatal("the backup was not copied")
	}
	if got, _ := os.ReadFile(backup); string(got) != sampleV1 {
		t.Errorf("backup = %q, want the original", got)
	}
	if got := tempsIn(t, dir); len(got) != 0 {
		t.Errorf("temp files left: %v", got)
	}
}

// TestFinishedBackupCopyIsNotRemoved: a backup copy that is complete is
// the user's: a later signal leaves it.
func TestFinishedBackupCopyIsNotRemoved(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	temps := &Temps{}
	fsys := newFaultFS(func(op, _ string) error {
		if op == "Link" {
			return syscall.EXDEV
		}
		return nil
	})
	if _, err := Rewrite(fsys, path, RewriteOptions{BackupSuffix: ".v1.bak", Temps: temps}, copyGen("new\n")); err != nil {
		t.Fatal(err)
	}
	temps.RemoveAll(OS())
	if got, err := os.ReadFile(path + ".v1.bak"); err != nil || string(got) != sampleV1 {
		t.Errorf("backup: %q, %v", got, err)
	}
}

// pending is how many temp files are recorded.
func (t *Temps) pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.names)
}
