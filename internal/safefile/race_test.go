//go:build linux

package safefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pisess/pisess/internal/testfs"
)

// hookFS runs a hook once, right after the first hard link it makes.
type hookFS struct {
	FS
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

func (h *hookFS) Lock(f File) error {
	if h.noLock {
		return nil
	}
	return h.FS.Lock(f)
}

// Issue 17 item 1: run A linked the backup; before A's re-check, run B
// reused that backup, replaced the file and reported the backup as its
// own. A's cleanup then deleted it, and the old generation was gone. Here
// no lock keeps them apart (as on a file system without flock): A must
// keep a backup once the original is no longer at its name.
func TestRewriteKeepsABackupAnotherRunReported(t *testing.T) {
	for i := 0; i < 20; i++ {
		dir := t.TempDir()
		path := testfs.WriteSession(t, dir, sampleV1, origMode)
		var b Outcome
		var berr error
		fsys := &hookFS{FS: OS(), noLock: true}
		fsys.afterLink = func() {
			b, berr = Rewrite(&hookFS{FS: OS(), noLock: true}, path, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
		}
		_, aerr := Rewrite(fsys, path, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
		if berr != nil || !b.Written || !b.BackupReused {
			t.Fatalf("run B: %+v, %v", b, berr)
		}
		var e *Error
		if !errors.As(aerr, &e) || e.Code != ChangedDuringRewrite || !strings.Contains(aerr.Error(), "kept the backup") {
			t.Fatalf("run A: got %v, want changed_during_rewrite naming the kept backup", aerr)
		}
		if got, err := os.ReadFile(b.Backup); err != nil || string(got) != sampleV1 {
			t.Fatalf("the backup run B reported is gone or changed: %v", err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, expectedV1(t)) {
			t.Fatal("the file is not the migrated generation")
		}
	}
}

// A lock held elsewhere for longer than LockWait: refused, untouched.
func TestRewriteRefusesWhileLocked(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	holder, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX); err != nil {
		t.Skipf("no flock here: %v", err)
	}
	_, err = Rewrite(OS(), path, RewriteOptions{BackupSuffix: ".v1.bak", LockWait: 50 * time.Millisecond}, migrateGen)
	var e *Error
	if !errors.As(err, &e) || e.Code != ChangedDuringRewrite || !strings.Contains(err.Error(), "lock") {
		t.Fatalf("got %v, want changed_during_rewrite about the lock", err)
	}
	if got, _ := os.ReadFile(path); string(got) != sampleV1 {
		t.Error("original changed")
	}
	if names := testfs.Names(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

const appendedLine = `{"type":"message","id":"c0ffee01","parentId":null,"timestamp":"2025-12-01T00:00:09.000Z","message":{"role":"user","content":"during","timestamp":9}}` + "\n"

// appendOnRename appends to the original just before the rename (pi
// appending a line in the window after the re-check).
func appendOnRename(t *testing.T, path string, data string) func(op, name string) error {
	return func(op, name string) error {
		if op == "Rename" {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Error(err)
				return nil
			}
			f.WriteString(data)
			f.Close()
		}
		return nil
	}
}

// Issue 17 item 2: a line appended during the rename went to the old
// generation only, and was lost (or kept only in the backup).
func TestRewriteCarriesOverLinesAppendedDuringTheRename(t *testing.T) {
	for _, suffix := range []string{"", ".v1.bak"} {
		t.Run("backup="+suffix, func(t *testing.T) {
			dir := t.TempDir()
			path := testfs.WriteSession(t, dir, sampleV1, origMode)
			out, err := Rewrite(newFaultFS(appendOnRename(t, path, appendedLine)), path, RewriteOptions{BackupSuffix: suffix}, migrateGen)
			if err != nil {
				t.Fatal(err)
			}
			want := append(expectedV1(t), appendedLine...)
			if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
				t.Errorf("the appended line was not carried over:\n%s", got)
			}
			if out.Carried != int64(len(appendedLine)) {
				t.Errorf("Carried %d, want %d", out.Carried, len(appendedLine))
			}
			testfs.NoTempLeft(t, dir, TempPrefix)
		})
	}
}

// If the old generation was rewritten in place during the rename (pi's
// own migration truncates and rewrites), nothing can be carried: it is
// kept in a rescue file, and the error says where.
func TestRewriteRescuesAnOldGenerationRewrittenDuringTheRename(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	other := strings.Replace(sampleV1, `"hi"`, `"rewritten by pi"`, 1)
	fsys := newFaultFS(func(op, name string) error {
		if op == "Rename" {
			if err := os.WriteFile(path, []byte(other), 0); err != nil {
				t.Error(err)
			}
		}
		return nil
	})
	out, err := Rewrite(fsys, path, RewriteOptions{}, migrateGen)
	var e *Error
	if !errors.As(err, &e) || e.Code != ChangedDuringRewrite || e.ExitCode() != 1 || !out.Written {
		t.Fatalf("got %+v, %v", out, err)
	}
	if out.Rescued == "" || !strings.Contains(err.Error(), out.Rescued) {
		t.Fatalf("the error does not name the rescue file: %v", err)
	}
	if got, _ := os.ReadFile(out.Rescued); string(got) != other {
		t.Errorf("rescue file holds %q", got)
	}
}

// Issue 17 item 11: a name of 231+ bytes made the temp name longer than
// 255 bytes: create_failed.
func TestRewriteLongFileName(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", 249) + ".jsonl" // 255 bytes, the most a name can have
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(sampleV1), 0o600); err != nil {
		t.Skipf("this file system refuses a 255-byte name: %v", err)
	}
	fsys := newFaultFS(nil)
	out, err := Rewrite(fsys, path, RewriteOptions{}, migrateGen)
	if err != nil || !out.Written {
		t.Fatalf("got %+v, %v", out, err)
	}
	for name := range fsys.perms {
		if b := filepath.Base(name); !IsTempName(b) || len(b) != len(TempPrefix)+12 {
			t.Errorf("temp name %q: want %s and 12 hex digits", b, TempPrefix)
		}
	}
}

// Issue 17 item 5: the new file (and a copied backup) keeps the
// original's times and extended attributes; pi's --continue resumes the
// session with the newest mtime.
func TestRewriteKeepsTimesAndExtendedAttributes(t *testing.T) {
	for _, copied := range []bool{false, true} {
		t.Run(map[bool]string{false: "hard-link backup", true: "copied backup"}[copied], func(t *testing.T) {
			dir := t.TempDir()
			path := testfs.WriteSession(t, dir, sampleV1, origMode)
			xattr := unix.Setxattr(path, "user.pisess.test", []byte("kept"), 0)
			if err := os.Chmod(path, 0o444); err != nil { // the owner must still get the attribute onto the new file
				t.Fatal(err)
			}
			mtime := time.Date(2020, 2, 3, 4, 5, 6, 7000, time.UTC)
			atime := time.Date(2021, 2, 3, 4, 5, 6, 0, time.UTC)
			if err := os.Chtimes(path, atime, mtime); err != nil {
				t.Fatal(err)
			}
			var fail func(op, name string) error
			if copied {
				fail = failing("Link", any_, syscall.EXDEV)
			}
			out, err := Rewrite(newFaultFS(fail), path, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
			if err != nil || !out.Written || !out.ReadOnly {
				t.Fatalf("got %+v, %v (want written, read-only noted)", out, err)
			}
			for _, p := range []string{path, out.Backup} {
				info, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if !info.ModTime().Equal(mtime) {
					t.Errorf("%s: mtime %v, want %v", filepath.Base(p), info.ModTime(), mtime)
				}
				if got := atimeOf(info); (p == path || copied) && !got.Equal(atime) { // a hard link is the original, read since
					t.Errorf("%s: atime %v, want %v", filepath.Base(p), got, atime)
				}
				if info.Mode().Perm() != 0o444 {
					t.Errorf("%s: mode %v", filepath.Base(p), info.Mode())
				}
				if xattr != nil {
					continue
				}
				buf := make([]byte, 16)
				n, err := unix.Getxattr(p, "user.pisess.test", buf)
				if err != nil || string(buf[:n]) != "kept" {
					t.Errorf("%s: extended attribute not kept: %v", filepath.Base(p), err)
				}
			}
			if xattr != nil {
				t.Logf("extended attributes not checked: this file system has none (%v)", xattr)
			}
		})
	}
}
