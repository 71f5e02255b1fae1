package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const moveBody = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\"}\n"

// moveDirs is a sessions directory with one file in --old--, and the
// name in a --new-- directory (not made yet) it is to move to.
func moveDirs(t *testing.T) (from, to string) {
	t.Helper()
	root := t.TempDir()
	from = filepath.Join(root, "--old--", "s.jsonl")
	if err := os.Mkdir(filepath.Dir(from), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(from, []byte(moveBody), 0o600); err != nil {
		t.Fatal(err)
	}
	return from, filepath.Join(root, "--new--", "deeper", "s.jsonl")
}

// moveInto makes to's directory and moves from there, as sessdir does.
func moveInto(fsys FS, from, to string) error {
	if err := MkdirAll(fsys, filepath.Dir(to), 0o777); err != nil {
		return err
	}
	return Move(fsys, from, to)
}

// whole reports which of the names hold the file, complete; a name that
// holds anything else is an error.
func whole(t *testing.T, names ...string) (holding []string) {
	t.Helper()
	for _, name := range names {
		b, err := os.ReadFile(name)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			t.Errorf("%s: %v", name, err)
		case string(b) != moveBody:
			t.Errorf("%s holds %q", name, b)
		default:
			holding = append(holding, name)
		}
	}
	return holding
}

// TestMove: the file takes its new name, in a directory made for it, and
// the old name is gone; the directories are fsynced after the link and
// after the removal.
func TestMove(t *testing.T) {
	from, to := moveDirs(t)
	fsys := newFaultFS(nil)
	if err := moveInto(fsys, from, to); err != nil {
		t.Fatal(err)
	}
	if got := whole(t, from, to); len(got) != 1 || got[0] != to {
		t.Fatalf("the file is under %v, want %s", got, to)
	}
	ops := strings.Join(fsys.ops, "\n")
	for _, want := range []string{
		"Mkdir " + filepath.Dir(filepath.Dir(to)), "SyncDir " + filepath.Dir(filepath.Dir(filepath.Dir(to))),
		"Mkdir " + filepath.Dir(to), "SyncDir " + filepath.Dir(filepath.Dir(to)),
		"Link " + to, "SyncDir " + filepath.Dir(to), "Remove " + from, "SyncDir " + filepath.Dir(from),
	} {
		if !strings.Contains(ops, want) {
			t.Errorf("no %s in\n%s", want, ops)
		}
	}
	if i, j := strings.Index(ops, "Link "+to), strings.Index(ops, "Remove "+from); i > j {
		t.Errorf("the old name was removed before the link:\n%s", ops)
	}
}

// TestMoveFailuresKeepTheFile injects a failure at every file-system
// operation of a move, one at a time, from a fresh start and from the two
// states a stopped run leaves (the new name a second name of the file,
// or a copy of it): the file is whole under at least one of its names,
// and a second run finishes the move (while the old name is there: once
// it is gone, only a directory fsync failed).
func TestMoveFailuresKeepTheFile(t *testing.T) {
	for _, start := range []struct {
		name  string
		setup func(t *testing.T, from, to string)
	}{
		{"fresh", func(*testing.T, string, string) {}},
		{"linked", func(t *testing.T, from, to string) {
			os.MkdirAll(filepath.Dir(to), 0o755)
			if err := os.Link(from, to); err != nil {
				t.Fatal(err)
			}
		}},
		{"copied", func(t *testing.T, from, to string) {
			os.MkdirAll(filepath.Dir(to), 0o755)
			if err := os.WriteFile(to, []byte(moveBody), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(start.name, func(t *testing.T) {
			from, to := moveDirs(t)
			start.setup(t, from, to)
			clean := newFaultFS(nil)
			if err := moveInto(clean, from, to); err != nil {
				t.Fatal(err)
			}
			ops := len(clean.ops)
			for i := 0; i < ops; i++ {
				from, to := moveDirs(t)
				start.setup(t, from, to)
				n := 0
				fsys := newFaultFS(func(op, name string) error {
					if n++; n-1 == i {
						return syscall.EIO
					}
					return nil
				})
				err := moveInto(fsys, from, to)
				if got := whole(t, from, to); len(got) == 0 {
					t.Fatalf("%s failed: the file is under neither name", fsys.ops[i])
				}
				if err == nil && !strings.HasPrefix(fsys.ops[i], "close ") {
					t.Errorf("%s failed: no error", fsys.ops[i])
				}
				var e *Error
				if err != nil && !errors.As(err, &e) {
					t.Errorf("%s failed: %v is not a safefile.Error", fsys.ops[i], err)
				}
				if _, err := os.Lstat(from); err == nil { // else the move is done (the last fsync failed)
					if err := moveInto(OS(), from, to); err != nil {
						t.Fatalf("%s failed, then the second run: %v", fsys.ops[i], err)
					}
				}
				if got := whole(t, from, to); len(got) != 1 || got[0] != to {
					t.Fatalf("%s failed, then the second run left the file under %v", fsys.ops[i], got)
				}
			}
			t.Logf("%d operations, each failed in turn", ops)
		})
	}
}

// TestMoveRefuses: a new name that holds other bytes, or that is the old
// name itself by another path, is refused and nothing changes.
func TestMoveRefuses(t *testing.T) {
	from, to := moveDirs(t)
	os.MkdirAll(filepath.Dir(to), 0o755)
	if err := os.WriteFile(to, []byte("theirs\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var e *Error
	if err := Move(OS(), from, to); !errors.Is(err, ErrExists) || !errors.As(err, &e) || e.ExitCode() != 2 {
		t.Errorf("over another file: %v", err)
	}
	if got, _ := os.ReadFile(to); string(got) != "theirs\n" {
		t.Errorf("the other file changed: %q", got)
	}
	if got := whole(t, from); len(got) != 1 {
		t.Errorf("the file moved")
	}

	link := filepath.Join(filepath.Dir(filepath.Dir(from)), "link")
	if err := os.Symlink(filepath.Dir(from), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, same := range []string{from, filepath.Join(link, filepath.Base(from))} {
		if err := Move(OS(), from, same); err == nil {
			t.Errorf("%s: moved onto itself", same)
		}
		if got := whole(t, from); len(got) != 1 {
			t.Fatalf("moving %s onto %s lost it", from, same)
		}
	}
}

// TestMkdirAll: the missing directories are made, each one's parent
// fsynced after; an existing directory, or a link to one, is taken as it
// is; a file in the way is refused.
func TestMkdirAll(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	fsys := newFaultFS(nil)
	if err := MkdirAll(fsys, dir, 0o777); err != nil {
		t.Fatal(err)
	}
	want := "Mkdir " + dir + "\nMkdir " + filepath.Dir(dir) + "\nSyncDir " + root + "\nMkdir " + dir + "\nSyncDir " + filepath.Dir(dir)
	if got := strings.Join(fsys.ops, "\n"); got != want {
		t.Errorf("ops:\n%s\nwant:\n%s", got, want)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		t.Fatalf("%s: %v", dir, err)
	}
	if err := MkdirAll(OS(), dir, 0o777); err != nil {
		t.Errorf("again: %v", err)
	}
	if err := os.Symlink(dir, filepath.Join(root, "link")); err == nil {
		if err := MkdirAll(OS(), filepath.Join(root, "link"), 0o777); err != nil {
			t.Errorf("a link to a directory: %v", err)
		}
	}
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o600)
	for _, in := range []string{file, filepath.Join(file, "sub")} {
		if err := MkdirAll(OS(), in, 0o777); err == nil {
			t.Errorf("%s: made, through a file", in)
		}
	}
}
