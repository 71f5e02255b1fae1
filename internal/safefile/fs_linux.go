//go:build linux

package safefile

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// atimeOf is the access time of a file (its mtime when unknown).
func atimeOf(info fs.FileInfo) time.Time {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Atim.Unix())
	}
	return info.ModTime()
}

// copyXattrs copies src's extended attributes to dst. A file system
// without them (ENOTSUP) and an attribute the process may not set (EPERM:
// trusted.* and security.* need privileges) are skipped; dst may have been
// created read-only, so it is made owner-writable for the copy (its final
// mode is set afterwards).
func copyXattrs(src, dst File) error {
	sfd, ok1 := src.(fder)
	dfd, ok2 := dst.(fder)
	if !ok1 || !ok2 {
		return nil
	}
	names, err := listXattrs(int(sfd.Fd()))
	if err != nil || len(names) == 0 {
		return err
	}
	writable := false
	for _, name := range names {
		value, err := getXattr(int(sfd.Fd()), name)
		if skippable(err) {
			continue
		}
		if err != nil {
			return err
		}
		err = unix.Fsetxattr(int(dfd.Fd()), name, value, 0)
		if errors.Is(err, unix.EACCES) && !writable {
			writable = true
			if err = makeOwnerWritable(dst); err == nil {
				err = unix.Fsetxattr(int(dfd.Fd()), name, value, 0)
			}
		}
		if err != nil && !skippable(err) {
			return &fs.PathError{Op: "setxattr " + name, Path: statName(dst), Err: err}
		}
	}
	return nil
}

func skippable(err error) bool {
	return errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENODATA)
}

func makeOwnerWritable(f File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	of, ok := f.(interface{ Chmod(fs.FileMode) error })
	if !ok {
		return unix.EACCES
	}
	return of.Chmod(info.Mode().Perm() | 0o200)
}

func statName(f File) string {
	if info, err := f.Stat(); err == nil {
		return info.Name()
	}
	return "?"
}

// listXattrs returns the names of the extended attributes of fd (none
// where the file system has none).
func listXattrs(fd int) ([]string, error) {
	size, err := unix.Flistxattr(fd, nil)
	if err == nil && size > 0 {
		buf := make([]byte, size)
		if size, err = unix.Flistxattr(fd, buf); err == nil {
			return strings.FieldsFunc(string(buf[:size]), func(c rune) bool { return c == 0 }), nil // NUL-terminated names
		}
	}
	if skippable(err) {
		return nil, nil
	}
	return nil, err
}

func getXattr(fd int, name string) ([]byte, error) {
	size, err := unix.Fgetxattr(fd, name, nil)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	if size, err = unix.Fgetxattr(fd, name, buf); err != nil {
		return nil, err // the value grew between the two calls (ERANGE), or went away
	}
	return buf[:size], nil
}
