package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// FS is the file-system seam of the rewrite protocol: everything Rewrite
// does to the disk goes through it, so tests can inject a failure at every
// step. OS() is the real one.
type FS interface {
	// Open opens name read-only. When the final path element is a symbolic
	// link it fails (O_NOFOLLOW where the platform has it).
	Open(name string) (File, error)
	// CreateExcl creates name for reading and writing; it fails if name
	// exists (O_CREATE|O_EXCL).
	CreateExcl(name string, perm fs.FileMode) (File, error)
	Lstat(name string) (fs.FileInfo, error)
	EvalSymlinks(name string) (string, error)
	Link(oldname, newname string) error
	Rename(oldname, newname string) error
	Remove(name string) error
	Chmod(name string, mode fs.FileMode) error
	// Chown gives name the owner of like (best effort is not allowed: an
	// error is returned when the owner cannot be set).
	Chown(name string, like fs.FileInfo) error
	// SyncDir makes the entries of directory dir durable (fsync).
	SyncDir(dir string) error
	// Lock takes an exclusive advisory lock (flock on Unix, LockFileEx on
	// Windows) on the open file f without waiting: ErrLocked when another
	// open file holds one. Closing f releases it.
	Lock(f File) error
	// Chtimes sets the access and modification times of name.
	Chtimes(name string, atime, mtime time.Time) error
	// CopyXattrs copies the extended attributes of src to dst, those the
	// platform and file system allow (a file system without them, or a
	// namespace only root may write, is skipped, not an error).
	CopyXattrs(src, dst File) error
	// OpenAppend opens an existing file for appending (O_APPEND), never
	// through a symbolic link.
	OpenAppend(name string) (File, error)
	// ReadDir lists a directory.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Mkdir makes directory name with perm (less the umask).
	Mkdir(name string, perm fs.FileMode) error
}

// ErrLocked is Lock's answer when another open file holds the lock.
var ErrLocked = errors.New("locked by another process")

// File is an open file of an FS.
type File interface {
	io.Reader
	io.Writer
	io.Seeker
	io.Closer
	Sync() error
	Stat() (fs.FileInfo, error)
}

// OS returns the operating system's file system.
func OS() FS { return osFS{} }

type osFS struct{}

func (osFS) Open(name string) (File, error) { return openFile(name, os.O_RDONLY, 0) }

func (osFS) CreateExcl(name string, perm fs.FileMode) (File, error) {
	return openFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}

func (osFS) OpenAppend(name string) (File, error) {
	return openFile(name, os.O_WRONLY|os.O_APPEND, 0)
}

func (osFS) Lstat(name string) (fs.FileInfo, error)            { return os.Lstat(name) }
func (osFS) EvalSymlinks(name string) (string, error)          { return filepath.EvalSymlinks(name) }
func (osFS) Link(oldname, newname string) error                { return os.Link(oldname, newname) }
func (osFS) Rename(oldname, newname string) error              { return rename(oldname, newname) }
func (osFS) Remove(name string) error                          { return os.Remove(name) }
func (osFS) Chmod(name string, mode fs.FileMode) error         { return os.Chmod(name, mode) }
func (osFS) Chown(name string, like fs.FileInfo) error         { return chownLike(name, like) }
func (osFS) SyncDir(dir string) error                          { return syncDir(dir) }
func (osFS) Lock(f File) error                                 { return lockFile(f) }
func (osFS) CopyXattrs(src, dst File) error                    { return copyXattrs(src, dst) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error)        { return os.ReadDir(name) }
func (osFS) Mkdir(name string, perm fs.FileMode) error         { return os.Mkdir(name, perm) }
func (osFS) Chtimes(name string, atime, mtime time.Time) error { return os.Chtimes(name, atime, mtime) }

// fder is an open file of the operating system.
type fder interface{ Fd() uintptr }

// syncClose fsyncs f unless err is already set, closes it and returns the
// first error.
func syncClose(f File, err error) error {
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
