//go:build unix

package hostile

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// nobody is the user unprivileged runs switch to when the tests run as
// root (root reads a mode-000 file anyway).
const nobody = 65534

// asNobody makes a command run as nobody when the test runs as root.
func asNobody(cmd *exec.Cmd) {
	if os.Geteuid() == 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
}

// publicDir makes a directory every user can traverse (t.TempDir is
// private), removed at the end of the test.
func publicDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(the.work, "public-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestSpecialFiles gives every command a path that is not a regular file,
// by name and inside a directory it searches: a directory named *.jsonl, a
// FIFO nobody writes to (opening it for reading blocks until a writer
// comes), a symbolic-link loop, a dangling link, /dev/null, and a file of
// mode 000 (read as the nobody user when the tests run as root: root
// reads it anyway). Nothing may hang or crash; the exit code is 1 (not a
// session) or 2 (cannot be read, or a directory with no session in it).
func TestSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := publicDir(t)
	mk := func(name string, make func(path string) error) string {
		path := filepath.Join(dir, name)
		if err := make(path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		name  string
		path  string
		asNob bool
		many  []int // validate, audit, migrate, repair
		views []int // tree, path, context
	}{
		// An empty directory: a usage error without --allow-empty (issue 11).
		{"directory", mk("dir.jsonl", func(p string) error { return os.Mkdir(p, 0o755) }), false, []int{2}, []int{2}},
		{"fifo", mk("fifo.jsonl", func(p string) error { return syscall.Mkfifo(p, 0o644) }), false, []int{1, 2}, []int{1, 2}},
		{"symlink-loop", mk("loop.jsonl", func(p string) error { return os.Symlink(filepath.Base(p), p) }), false, []int{2}, []int{2}},
		{"dangling-symlink", mk("dangling.jsonl", func(p string) error { return os.Symlink("nowhere.jsonl", p) }), false, []int{2}, []int{2}},
		{"dev-null", "/dev/null", false, []int{1, 2}, []int{1, 2}},
		{"mode-000", mk("locked.jsonl", func(p string) error { return os.WriteFile(p, Base(), 0) }), true, []int{2}, []int{2}},
	}
	if os.Geteuid() == 0 {
		the.tally.note("mode 000: the tests run as root, which reads any file; the unreadable runs switch to uid %d (nobody) with SysProcAttr.Credential.", nobody)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range the.available(commands) {
				want := tc.many
				if c == "tree" || c == "path" || c == "context" {
					want = tc.views
				}
				if (c == "migrate" || c == "repair") && tc.name != "directory" {
					want = []int{1, 2}
				}
				var cfg func(*exec.Cmd)
				if tc.asNob {
					cfg = asNobody
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				r := the.exec(ctx, cfg, c, tc.path)
				cancel()
				the.sane(t, r, want)
				the.tally.input(c, 1)
			}
		})
	}
	// The same files inside a directory the many-file commands search.
	for _, c := range the.available([]string{"validate", "audit", "migrate", "repair"}) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r := the.exec(ctx, asNobody, c, dir)
		cancel()
		the.sane(t, r, []int{2})
		the.tally.input(c, 1)
	}
	if info, err := os.Lstat(filepath.Join(dir, "fifo.jsonl")); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is gone or changed: %v %v", info, err)
	}
}
