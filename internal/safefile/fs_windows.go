//go:build windows

package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// openFile opens name as os.OpenFile does for the flags Rewrite uses
// (read-only; read-write, created exclusively; append) with two
// differences. Other processes may delete and rename the file while it is
// open (FILE_SHARE_DELETE, which os.OpenFile leaves out): Rewrite keeps
// the original and its temp file open while it renames one over the
// other, which Windows otherwise refuses. And it never opens through a
// symbolic link or junction: the link itself is opened and refused.
func openFile(name string, flag int, perm fs.FileMode) (File, error) {
	path, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	case os.O_RDWR:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		// Every write lands at the end, as with O_APPEND.
		access = windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES | windows.SYNCHRONIZE | windows.READ_CONTROL
	}
	create := uint32(windows.OPEN_EXISTING)
	if flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL {
		create = windows.CREATE_NEW
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if perm&0o200 == 0 && create == windows.CREATE_NEW {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	share := uint32(windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE)
	h, err := windows.CreateFile(path, access, share, nil, create, attrs|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("a symbolic link or junction, not followed")}
	}
	return os.NewFile(uintptr(h), name), nil
}

// rename replaces newname by oldname. Through os.Root, Go renames with
// POSIX semantics where NTFS has them (Windows 10 1809 and later):
// newname is replaced even while a process holds it open, if it opened it
// sharing deletion, as pi (Node.js) and pisess itself do. A file some
// other program holds open without FILE_SHARE_DELETE, or a read-only one,
// cannot be replaced on Windows: the rename fails, Rewrite reports the I/O
// error and the original stays as it was.
func rename(oldname, newname string) error {
	dir := filepath.Dir(newname)
	if filepath.Dir(oldname) != dir {
		return os.Rename(oldname, newname)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	err = root.Rename(filepath.Base(oldname), filepath.Base(newname))
	if errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return fmt.Errorf("%w (Windows cannot replace a file that another program holds open, or that is read-only: close it, or clear its read-only attribute, and run again)", err)
	}
	return err
}

// lockOffset is where the lock byte lies: far past the end of any session
// file. Windows locks are mandatory for the bytes they cover, so locking
// the data would make pi's own appends fail; a byte no one reads or
// writes is a lock only other pisess runs see, as flock is on Unix.
const lockOffset = 1 << 62

// lockFile locks the byte at lockOffset of f (LockFileEx, exclusive,
// failing at once when another handle holds it).
func lockFile(f File) error {
	fd, ok := f.(fder)
	if !ok {
		return nil
	}
	ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	err := windows.LockFileEx(windows.Handle(fd.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrLocked
	}
	return err
}

// ownedByMe: Windows files have no Unix owner; every stale temp file in a
// directory the user can write is theirs to clean.
func ownedByMe(fs.FileInfo) bool { return true }

// linkCount: a FileInfo of Lstat does not say on Windows; Move tells the
// names apart by their paths alone.
func linkCount(fs.FileInfo) (uint64, bool) { return 0, false }

// chownLike: a new file gets the directory's inherited ACL on Windows;
// there is no owner and group to copy.
func chownLike(string, fs.FileInfo) error { return nil }

// syncDir: Windows cannot open a directory for fsync; NTFS journals the
// rename itself.
func syncDir(string) error { return nil }
