//go:build linux

package migrate

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/testfs"
)

// hookFS runs a hook once, right after the first hard link it makes.
type hookFS struct {
	safefile.FS
	once      sync.Once
	afterLink func()
	noLock    bool
}

func (h *hookFS) Link(oldname, newname string) error {
	err := h.FS.Link(oldname, newname)
	if err == nil && h.afterLink != nil {
		h.once.Do(h.afterLink)
	}
	return err
}

func (h *hookFS) Lock(f safefile.File) error {
	if h.noLock {
		return nil
	}
	return h.FS.Lock(f)
}

// With flock, the same race serialises: B waits for A's lock, then sees
// the file A installed, and has nothing left to do.
func TestMigrateFileRunsTakeTurns(t *testing.T) {
	for i := 0; i < 10; i++ {
		dir := t.TempDir()
		path := testfs.WriteSession(t, dir, sampleV1, 0o640)
		var wg sync.WaitGroup
		var b Report
		var berr error
		bDone := make(chan struct{})
		fsys := &hookFS{FS: safefile.OS()}
		fsys.afterLink = func() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(bDone)
				b, berr = MigrateFile(safefile.OS(), path, Options{Backup: true})
			}()
			select {
			case <-bDone:
				t.Error("run B finished while run A held the lock")
			case <-time.After(30 * time.Millisecond):
			}
		}
		a, aerr := MigrateFile(fsys, path, Options{Backup: true})
		wg.Wait()
		if aerr != nil || a.Action != Migrated || a.Backup == "" {
			t.Fatalf("run A: %+v, %v", a, aerr)
		}
		if berr != nil || b.Action != Unchanged {
			t.Fatalf("run B: %+v, %v (want unchanged after waiting)", b, berr)
		}
		if got, err := os.ReadFile(a.Backup); err != nil || string(got) != sampleV1 {
			t.Fatalf("backup: %v", err)
		}
	}
}
