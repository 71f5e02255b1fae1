package safefile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Move gives the file at from the name to and takes the old name away,
// so that at every moment the file is whole under at least one of its
// names: a hard link under the new name (never over another file), the
// new name's directory fsynced, the old name removed, its directory
// fsynced. A run stopped half-way leaves the file under both names, and
// Move run again finishes: a to that holds the same file, or a file of the
// same bytes (a copy), is the move half done. A to that holds other bytes
// is refused (ErrExists) and nothing changes; so is a to that is from
// itself by another path. The new name's directory must exist
// (MkdirAll). Without hard links the move fails, and nothing changes.
func Move(fsys FS, from, to string) error {
	if err := fsys.Link(from, to); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return &Error{Code: RenameFailed, Path: from, Err: err}
		}
		if err := halfMoved(fsys, from, to); err != nil {
			return err
		}
	}
	if err := syncParent(fsys, to); err != nil {
		return err
	}
	return Delete(fsys, from)
}

// halfMoved checks that the existing to is the move half done: another
// name of from's file, or a copy of its bytes. Other bytes are refused, and
// so is from's very name (through a link, or as a case-blind file system
// spells it): removing from would remove the only name.
func halfMoved(fsys FS, from, to string) error {
	fi, err := fsys.Lstat(from)
	if err != nil {
		return &Error{Code: ReadFailed, Path: from, Err: err}
	}
	ti, err := fsys.Lstat(to)
	if err != nil {
		return &Error{Code: ReadFailed, Path: to, Err: err}
	}
	if os.SameFile(fi, ti) {
		if n, known := linkCount(ti); known && n < 2 || sameName(fsys, from, to) {
			return &Error{Code: RenameFailed, Path: to, Err: errors.New("the new name is the old one")}
		}
		return nil
	}
	same, err := SameBytes(fsys, from, to)
	if err != nil {
		return &Error{Code: ReadFailed, Path: to, Err: err}
	}
	if !same {
		return &Error{Code: RenameFailed, Path: to, Err: ErrExists}
	}
	return nil
}

// sameName reports whether a and b are one path once their directories'
// symbolic links are resolved (true when that cannot be told).
func sameName(fsys FS, a, b string) bool {
	da, err := fsys.EvalSymlinks(filepath.Dir(a))
	if err != nil {
		return true
	}
	db, err := fsys.EvalSymlinks(filepath.Dir(b))
	if err != nil {
		return true
	}
	return filepath.Join(da, filepath.Base(a)) == filepath.Join(db, filepath.Base(b))
}

// SameBytes reports whether the files a and b hold the same bytes.
func SameBytes(fsys FS, a, b string) (bool, error) {
	fa, err := fsys.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := fsys.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ra, rb := bufio.NewReaderSize(fa, 64<<10), bufio.NewReaderSize(fb, 64<<10)
	for {
		x, errA := ra.ReadByte()
		y, errB := rb.ReadByte()
		switch {
		case errA != nil || errB != nil:
			if !errors.Is(errA, io.EOF) {
				return false, errA
			}
			if !errors.Is(errB, io.EOF) {
				return false, errB
			}
			return true, nil
		case x != y:
			return false, nil
		}
	}
}

// MkdirAll makes directory dir and those of its parents that are
// missing, as os.MkdirAll does (perm less the umask), through fsys, and
// fsyncs the parent of each directory it makes, so that a file moved into
// a new directory does not vanish with it in a power loss. A directory
// already there (or a symbolic link to one) is left as it is.
func MkdirAll(fsys FS, dir string, perm fs.FileMode) error {
	err := mkdir(fsys, dir, perm)
	if errors.Is(err, fs.ErrNotExist) {
		if parent := filepath.Dir(dir); parent != dir {
			if err := MkdirAll(fsys, parent, perm); err != nil {
				return err
			}
			err = mkdir(fsys, dir, perm)
		}
	}
	if err != nil {
		return WithPath(typed(err, CreateFailed), dir)
	}
	return nil
}

// mkdir makes dir and fsyncs its parent; a directory already there is fine.
func mkdir(fsys FS, dir string, perm fs.FileMode) error {
	err := fsys.Mkdir(dir, perm)
	switch {
	case errors.Is(err, fs.ErrExist):
		if isDir(fsys, dir) {
			return nil
		}
		return &Error{Code: CreateFailed, Path: dir, Err: errors.New("not a directory")}
	case errors.Is(err, fs.ErrNotExist):
		return err // the parent is missing: MkdirAll makes it
	case err != nil:
		return &Error{Code: CreateFailed, Path: dir, Err: err}
	}
	return syncParent(fsys, dir)
}

// isDir reports whether name is a directory or a symbolic link to one.
func isDir(fsys FS, name string) bool {
	info, err := fsys.Lstat(name)
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		var target string
		if target, err = fsys.EvalSymlinks(name); err == nil {
			info, err = fsys.Lstat(target)
		}
	}
	return err == nil && info.IsDir()
}

// Delete removes the file at name and fsyncs its directory, so that the
// name does not come back after a power loss.
func Delete(fsys FS, name string) error {
	if err := fsys.Remove(name); err != nil {
		return &Error{Code: RenameFailed, Path: name, Err: err}
	}
	return syncParent(fsys, name)
}

// syncParent fsyncs the directory of name.
func syncParent(fsys FS, name string) error {
	if err := fsys.SyncDir(filepath.Dir(name)); err != nil {
		return &Error{Code: SyncFailed, Path: filepath.Dir(name), Err: err}
	}
	return nil
}
