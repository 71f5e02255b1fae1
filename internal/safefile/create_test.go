package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pisess/pisess/internal/testfs"
)

const createBody = "{\"type\":\"session\"}\n{\"type\":\"message\"}\n"

// produceBody writes createBody in two writes.
func produceBody(w io.Writer, _ string) error {
	if _, err := io.WriteString(w, createBody[:10]); err != nil {
		return err
	}
	_, err := io.WriteString(w, createBody[10:])
	return err
}

// createDir is a directory holding one file of someone else's, other.
func createDir(t *testing.T) (dir, other string) {
	t.Helper()
	dir = t.TempDir()
	other = filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, other
}

// noHardLinks makes every Link fail as a file system without them does.
func noHardLinks(fail func(op, name string) error) func(op, name string) error {
	return func(op, name string) error {
		var err error
		if fail != nil {
			err = fail(op, name)
		}
		if err == nil && op == "Link" {
			err = syscall.EPERM
		}
		return err
	}
}

// TestCreateFailuresLeaveNothing injects a failure at every file-system
// operation of Create, one at a time, with and without hard links: the
// run fails and leaves nothing behind (the other file of the directory
// untouched), or it succeeds and the new file is complete. The one
// failure that leaves a name behind is removing the temp name once the
// complete file is linked under its own: it is then a second name of the
// complete file, which repair --clean-temps knows.
func TestCreateFailuresLeaveNothing(t *testing.T) {
	for _, links := range []bool{true, false} {
		t.Run(fmt.Sprintf("hard links %v", links), func(t *testing.T) {
			wrap := func(fail func(op, name string) error) func(op, name string) error { return fail }
			if !links {
				wrap = noHardLinks
			}
			dir, _ := createDir(t)
			clean := newFaultFS(wrap(nil))
			if err := Create(clean, filepath.Join(dir, "new.jsonl"), 0o600, nil, produceBody); err != nil {
				t.Fatal(err)
			}
			ops := append([]string(nil), clean.ops...)
			if len(ops) < 6 {
				t.Fatalf("only %d operations: %v", len(ops), ops)
			}
			injected := errors.New("injected")
			for i, op := range ops {
				verb, name, _ := strings.Cut(op, " ")
				t.Run(fmt.Sprintf("%02d_%s_%s", i, verb, filepath.Base(name)), func(t *testing.T) {
					dir, other := createDir(t)
					path := filepath.Join(dir, "new.jsonl")
					n := 0
					fsys := newFaultFS(wrap(func(string, string) error {
						if n++; n == i+1 {
							return injected
						}
						return nil
					}))
					err := Create(fsys, path, 0o600, &Temps{}, produceBody)
					if got, _ := os.ReadFile(other); string(got) != "theirs\n" {
						t.Errorf("the other file now holds %q", got)
					}
					left := testfs.Names(t, dir)
					if err != nil {
						var e *Error
						if !errors.As(err, &e) || e.Path != path {
							t.Errorf("error %v (%T) does not name %s", err, err, path)
						}
						if len(left) != 1 {
							t.Errorf("failed (%v) and left %v", err, left)
						}
						return
					}
					if got, _ := os.ReadFile(path); string(got) != createBody {
						t.Fatalf("succeeded, and the new file holds %q", got)
					}
					if len(left) == 2 {
						return
					}
					if verb != "Remove" || !isTemp(name) || len(left) != 3 || !isTemp(left[0]) {
						t.Fatalf("succeeded and left %v", left)
					}
					temp := filepath.Join(dir, left[0])
					if got, _ := os.ReadFile(temp); string(got) != createBody {
						t.Errorf("the temp file left holds %q", got)
					}
					tempInfo, _ := os.Stat(temp)
					newInfo, _ := os.Stat(path)
					if links && !os.SameFile(tempInfo, newInfo) {
						t.Errorf("the temp name left is not the new file's second name")
					}
				})
			}
		})
	}
}

// TestCreateAppearsWhole: the new file is written under a temp file's
// name (one repair --clean-temps knows) beside it and only then linked
// under its own, with the permission bits asked for: a run killed while
// it writes leaves no partial file under the name.
func TestCreateAppearsWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.jsonl")
	err := Create(OS(), path, 0o600, nil, func(w io.Writer, name string) error {
		if _, err := os.Lstat(path); err == nil {
			t.Error("the output exists while it is being written")
		}
		if !IsTempName(filepath.Base(name)) || filepath.Dir(name) != dir {
			t.Errorf("written as %s", name)
		}
		return produceBody(w, name)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != createBody {
		t.Errorf("the output holds %q", got)
	}
	if info, _ := os.Stat(path); info == nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", info)
	}
	if left := testfs.Names(t, dir); len(left) != 1 {
		t.Errorf("left behind: %v", left)
	}
}

// TestCreateNeverOverwrites: a path that exists (a file, a symbolic link,
// a directory) or appears while the new file is written (before the link,
// or before the file is created under its name without hard links) is
// refused with ErrExists and left as it was; nothing else is left.
func TestCreateNeverOverwrites(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, path string)
		fail  func(path string) func(op, name string) error
	}{
		{"file", func(t *testing.T, path string) { os.WriteFile(path, []byte("mine\n"), 0o644) }, nil},
		{"dangling symlink", func(t *testing.T, path string) { os.Symlink("nowhere", path) }, nil},
		{"directory", func(t *testing.T, path string) { os.Mkdir(path, 0o755) }, nil},
		{"appears before the link", nil, func(path string) func(op, name string) error {
			return func(op, name string) error {
				if op == "Link" {
					os.WriteFile(path, []byte("mine\n"), 0o644)
				}
				return nil
			}
		}},
		{"appears without hard links", nil, func(path string) func(op, name string) error {
			return noHardLinks(func(op, name string) error {
				if op == "CreateExcl" && name == path {
					os.WriteFile(path, []byte("mine\n"), 0o644)
				}
				return nil
			})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "new.jsonl")
			if tt.setup != nil {
				tt.setup(t, path)
			}
			before, _ := os.Lstat(path)
			var fail func(op, name string) error
			if tt.fail != nil {
				fail = tt.fail(path)
			}
			err := Create(newFaultFS(fail), path, 0o600, &Temps{}, produceBody)
			if !errors.Is(err, ErrExists) {
				t.Fatalf("err = %v, want ErrExists", err)
			}
			after, lerr := os.Lstat(path)
			if lerr != nil || (before != nil && !os.SameFile(before, after)) {
				t.Fatalf("the existing file was replaced (lstat %v)", lerr)
			}
			if after.Mode().IsRegular() {
				if got, _ := os.ReadFile(path); string(got) != "mine\n" {
					t.Errorf("the existing file now holds %q", got)
				}
			}
			if left := testfs.Names(t, dir); len(left) != 1 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// interruptAt stops the run (as Ctrl-C's handler does: Temps.RemoveAll)
// at the first operation op on a name that match accepts, before doing it.
func interruptAt(temps *Temps, op string, match func(string) bool, links bool) func(string, string) error {
	fail := func(o, name string) error {
		if o == op && match(name) {
			temps.RemoveAll(OS())
		}
		return nil
	}
	if !links {
		return noHardLinks(fail)
	}
	return fail
}

// TestCreateInterrupted: what Create makes is recorded in Temps from the
// moment it exists until it is removed or complete, so a run stopped by a
// signal at any step before the file is complete leaves nothing behind,
// and one stopped after leaves the complete file. (The signal then ends
// the process; here the run goes on, and a file created after the stop
// is refused.)
func TestCreateInterrupted(t *testing.T) {
	for _, tt := range []struct {
		name     string
		op       string
		match    func(path string) func(string) bool
		links    bool
		complete bool
	}{
		{"creating the temp file", "CreateExcl", func(string) func(string) bool { return isTemp }, true, false},
		{"writing the temp file", "write", func(string) func(string) bool { return isTemp }, true, false},
		{"syncing the temp file", "sync", func(string) func(string) bool { return isTemp }, true, false},
		{"linking", "Link", func(string) func(string) bool { return any_ }, true, false},
		{"syncing the directory", "SyncDir", func(string) func(string) bool { return any_ }, true, true},
		{"creating without hard links", "CreateExcl", func(p string) func(string) bool { return func(n string) bool { return n == p } }, false, false},
		{"writing without hard links", "write", func(p string) func(string) bool { return func(n string) bool { return n == p } }, false, false},
		{"syncing without hard links", "sync", func(p string) func(string) bool { return func(n string) bool { return n == p } }, false, false},
		{"syncing the directory without hard links", "SyncDir", func(string) func(string) bool { return any_ }, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := createDir(t)
			path := filepath.Join(dir, "new.jsonl")
			temps := &Temps{}
			err := Create(newFaultFS(interruptAt(temps, tt.op, tt.match(path), tt.links)), path, 0o600, temps, produceBody)
			left := testfs.Names(t, dir)
			if tt.complete {
				if got, _ := os.ReadFile(path); err != nil || string(got) != createBody || len(left) != 2 {
					t.Errorf("err %v, left %v, new file %q", err, left, got)
				}
				return
			}
			if err == nil && tt.op == "CreateExcl" {
				t.Error("a file created after the stop was kept")
			}
			if len(left) != 1 {
				t.Errorf("left behind: %v", left)
			}
			if temps.pending() != 0 {
				t.Errorf("%d names still recorded", temps.pending())
			}
		})
	}
}

// TestCreateProducerError: the producer's own *Error (a check that failed)
// comes back as it is; any other error is write_failed naming the path.
func TestCreateProducerError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.jsonl")
	own := &Error{Code: VerifyFailed, Err: errors.New("not the same context")}
	err := Create(OS(), path, 0o600, nil, func(io.Writer, string) error { return own })
	if err != own {
		t.Errorf("err = %v, want the producer's", err)
	}
	err = Create(OS(), path, 0o600, nil, func(io.Writer, string) error { return fs.ErrInvalid })
	var e *Error
	if !errors.As(err, &e) || e.Code != WriteFailed || e.Path != path {
		t.Errorf("err = %#v", err)
	}
	if left := testfs.Names(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
