//go:build unix

package migrate

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// oNoFollow makes opening a symbolic link fail.
const oNoFollow = syscall.O_NOFOLLOW

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
