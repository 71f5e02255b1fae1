package safefile

import (
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// faultFS is the real file system with a failure injectable at every
// operation Rewrite performs. fail is asked before each operation (op is
// the method name, or "write"/"sync"/"close"/"read" on an open file) and
// its error, if any, is returned instead of doing it.
type faultFS struct {
	FS
	mu    sync.Mutex
	fail  func(op, name string) error
	limit int64 // >0: files created with CreateExcl accept this many bytes, then ENOSPC
	ops   []string
	perms map[string]fs.FileMode // perm asked for each created file
	// A backup made as a copy is written to a temp file and then takes the
	// backup's name: its operations are asked and recorded under the
	// backup's name, so a hook can fail "the backup" whichever name it has.
	linkFailed string            // the backup whose hard link just failed
	alias      map[string]string // temp file → the backup it will be
}

func newFaultFS(fail func(op, name string) error) *faultFS {
	return &faultFS{FS: OS(), fail: fail, perms: map[string]fs.FileMode{}, alias: map[string]string{}}
}

func (f *faultFS) check(op, name string) error {
	f.mu.Lock()
	if b, ok := f.alias[name]; ok {
		name = b
	}
	f.ops = append(f.ops, op+" "+name)
	f.mu.Unlock()
	if f.fail == nil {
		return nil
	}
	return f.fail(op, name)
}

func (f *faultFS) Open(name string) (File, error) {
	if err := f.check("Open", name); err != nil {
		return nil, err
	}
	file, err := f.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f, name: name}, nil
}

func (f *faultFS) CreateExcl(name string, perm fs.FileMode) (File, error) {
	f.mu.Lock()
	f.perms[name] = perm
	if f.linkFailed != "" && IsTempName(filepath.Base(name)) {
		f.alias[name], f.linkFailed = f.linkFailed, ""
	}
	f.mu.Unlock()
	if err := f.check("CreateExcl", name); err != nil {
		return nil, err
	}
	file, err := f.FS.CreateExcl(name, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f, name: name, limit: f.limit}, nil
}

func (f *faultFS) Lstat(name string) (fs.FileInfo, error) {
	if err := f.check("Lstat", name); err != nil {
		return nil, err
	}
	return f.FS.Lstat(name)
}

func (f *faultFS) Link(oldname, newname string) error {
	err := f.check("Link", newname)
	if err == nil {
		err = f.FS.Link(oldname, newname)
	}
	if _, copied := f.alias[oldname]; err != nil && isBackup(newname) && !copied {
		f.mu.Lock()
		f.linkFailed = newname
		f.mu.Unlock()
	}
	return err
}

func (f *faultFS) Rename(oldname, newname string) error {
	if err := f.check("Rename", newname); err != nil {
		return err
	}
	return f.FS.Rename(oldname, newname)
}

func (f *faultFS) Remove(name string) error {
	if err := f.check("Remove", name); err != nil {
		return err
	}
	return f.FS.Remove(name)
}

func (f *faultFS) Chmod(name string, mode fs.FileMode) error {
	if err := f.check("Chmod", name); err != nil {
		return err
	}
	return f.FS.Chmod(name, mode)
}

func (f *faultFS) Chown(name string, like fs.FileInfo) error {
	if err := f.check("Chown", name); err != nil {
		return err
	}
	return f.FS.Chown(name, like)
}

func (f *faultFS) SyncDir(dir string) error {
	if err := f.check("SyncDir", dir); err != nil {
		return err
	}
	return f.FS.SyncDir(dir)
}

func (f *faultFS) Lock(file File) error {
	if err := f.check("Lock", nameOf(file)); err != nil {
		return err
	}
	return f.FS.Lock(file)
}

func (f *faultFS) Chtimes(name string, atime, mtime time.Time) error {
	if err := f.check("Chtimes", name); err != nil {
		return err
	}
	return f.FS.Chtimes(name, atime, mtime)
}

func (f *faultFS) CopyXattrs(src, dst File) error {
	if err := f.check("CopyXattrs", nameOf(dst)); err != nil {
		return err
	}
	return f.FS.CopyXattrs(src, dst)
}

func (f *faultFS) OpenAppend(name string) (File, error) {
	if err := f.check("OpenAppend", name); err != nil {
		return nil, err
	}
	file, err := f.FS.OpenAppend(name)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f, name: name, limit: f.limit}, nil
}

func (f *faultFS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.check("Mkdir", name); err != nil {
		return err
	}
	return f.FS.Mkdir(name, perm)
}

func nameOf(file File) string {
	if ff, ok := file.(*faultFile); ok {
		return ff.name
	}
	return ""
}

// faultFile injects failures into an open file.
type faultFile struct {
	File
	fs      *faultFS
	name    string
	limit   int64
	written int64
}

// Fd gives the real descriptor (for flock and extended attributes).
func (f *faultFile) Fd() uintptr { return f.File.(interface{ Fd() uintptr }).Fd() }

// Chmod changes the mode through the descriptor.
func (f *faultFile) Chmod(mode fs.FileMode) error {
	return f.File.(interface{ Chmod(fs.FileMode) error }).Chmod(mode)
}

func (f *faultFile) Read(p []byte) (int, error) {
	if err := f.fs.check("read", f.name); err != nil {
		return 0, err
	}
	return f.File.Read(p)
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.fs.check("write", f.name); err != nil {
		return 0, err
	}
	if f.limit > 0 && f.written+int64(len(p)) > f.limit {
		n, _ := f.File.Write(p[:f.limit-f.written])
		f.written += int64(n)
		return n, syscall.ENOSPC
	}
	n, err := f.File.Write(p)
	f.written += int64(n)
	return n, err
}

func (f *faultFile) Sync() error {
	if err := f.fs.check("sync", f.name); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *faultFile) Close() error {
	err := f.File.Close()
	if ferr := f.fs.check("close", f.name); ferr != nil {
		return ferr
	}
	return err
}

// isTemp reports whether name is a rewrite temp file.
func isTemp(name string) bool { return strings.Contains(name, ".pisess-tmp-") }

// isBackup reports whether name is a backup file.
func isBackup(name string) bool { return strings.HasSuffix(name, ".bak") }
