package migrate

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
}

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

func (osFS) Open(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (osFS) CreateExcl(name string, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|oNoFollow, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (osFS) Lstat(name string) (fs.FileInfo, error)    { return os.Lstat(name) }
func (osFS) EvalSymlinks(name string) (string, error)  { return filepath.EvalSymlinks(name) }
func (osFS) Link(oldname, newname string) error        { return os.Link(oldname, newname) }
func (osFS) Rename(oldname, newname string) error      { return os.Rename(oldname, newname) }
func (osFS) Remove(name string) error                  { return os.Remove(name) }
func (osFS) Chmod(name string, mode fs.FileMode) error { return os.Chmod(name, mode) }
func (osFS) Chown(name string, like fs.FileInfo) error { return chownLike(name, like) }
func (osFS) SyncDir(dir string) error                  { return syncDir(dir) }
