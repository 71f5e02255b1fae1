//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openFile opens name never through a symbolic link (O_NOFOLLOW),
// returning a nil File (not a nil *os.File) on failure.
func openFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// rename replaces newname by oldname atomically (rename(2) replaces a file
// others hold open; they keep reading the old generation).
func rename(oldname, newname string) error { return os.Rename(oldname, newname) }

// lockFile takes flock(LOCK_EX|LOCK_NB) on f.
func lockFile(f File) error {
	fd, ok := f.(fder)
	if !ok {
		return nil
	}
	err := unix.Flock(int(fd.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == syscall.Geteuid()
}

// linkCount is how many names the file has.
func linkCount(info fs.FileInfo) (n uint64, known bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

// chownLike gives name the owner and group of like when they differ from
// its own (only root may give a file away; anyone else gets an error
// rather than a file silently owned by someone else).
func chownLike(name string, like fs.FileInfo) error {
	want, ok := like.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	cur, err := os.Lstat(name)
	if err != nil {
		return err
	}
	have, ok := cur.Sys().(*syscall.Stat_t)
	if !ok || (have.Uid == want.Uid && have.Gid == want.Gid) {
		return nil
	}
	return os.Lchown(name, int(want.Uid), int(want.Gid))
}

// syncDir fsyncs a directory. File systems that cannot sync a directory
// (EINVAL) keep no separate directory metadata to flush.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := syncClose(d, nil); !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
