package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists is why Create refuses a path that exists: pisess never
// overwrites a file it did not make.
var ErrExists = errors.New("already exists: pisess never overwrites a file")

// Producer writes the contents of a new file to w. name is the file being
// written (a temp file beside the target, or the target itself), which it
// may read back to check what it wrote; an error it returns (an *Error
// keeps its own code) fails the creation. Create may call it twice (again
// under the target's own name where the file system has no hard links),
// so it must write the same bytes each time.
type Producer func(w io.Writer, name string) error

// Create makes the file at path, which must not exist, with what produce
// writes, so that it appears whole (the third mode of the protocol, beside
// Rewrite and Append):
//
//  1. refuse a path that exists (ErrExists), whatever it is;
//  2. write to `.pisess-tmp-<12 hex>` created exclusively in path's
//     directory with perm (locked while it is written, so `repair
//     --clean-temps` leaves it alone), fsync and close it;
//  3. hard-link it under path, which fails if path appeared meanwhile
//     (never over another file), remove the temp name and fsync the
//     directory. Where the file system has no hard links the file is
//     written under path directly (O_EXCL) instead: it is then visible
//     while it is written.
//
// What it creates is recorded in temps until it is removed or complete, so
// that a signal's handler removes it (Temps.RemoveOnSignal). On any
// failure what it created is removed, the file at path too when the
// directory could not be synced; a file it did not make is never touched.
// Every step goes through fsys. Errors are *Error naming path.
func Create(fsys FS, path string, perm fs.FileMode, temps *Temps, produce Producer) error {
	if _, err := fsys.Lstat(path); err == nil {
		return &Error{Code: CreateFailed, Path: path, Err: ErrExists}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return &Error{Code: CreateFailed, Path: path, Err: err}
	}
	c := &creation{fsys: fsys, path: path, perm: perm, temps: temps, produce: produce}
	tmp, err := c.writeTemp()
	if err != nil {
		return err
	}
	err = fsys.Link(tmp, path)
	c.remove(tmp)
	switch {
	case errors.Is(err, fs.ErrExist):
		return &Error{Code: CreateFailed, Path: path, Err: ErrExists}
	case err != nil: // no hard links here
		return c.writeInPlace()
	}
	return c.syncDir()
}

// creation is the state of one Create.
type creation struct {
	fsys    FS
	path    string
	perm    fs.FileMode
	temps   *Temps
	produce Producer
	made    fs.FileInfo // the file written, as created
}

// writeTemp writes the new file under a fresh temp name beside path
// (nothing of it is left on failure).
func (c *creation) writeTemp() (string, error) {
	name, f, err := createUnique(c.fsys, c.temps, filepath.Dir(c.path), TempPrefix, "", c.perm)
	if err != nil {
		return "", &Error{Code: CreateFailed, Path: c.path, Err: err}
	}
	_ = c.fsys.Lock(f) // best effort: --clean-temps also waits StaleAge
	return name, c.fill(f, name)
}

// writeInPlace writes the new file under path itself (O_EXCL), for a file
// system without hard links, and fsyncs the directory.
func (c *creation) writeInPlace() error {
	f, err := createRecorded(c.fsys, c.temps, c.path, c.perm)
	if errors.Is(err, fs.ErrExist) {
		err = ErrExists
	}
	if err != nil {
		return &Error{Code: CreateFailed, Path: c.path, Err: err}
	}
	if err := c.fill(f, c.path); err != nil {
		return err
	}
	c.temps.done(c.path) // complete, and the directory sync removes it on failure
	return c.syncDir()
}

// fill writes the file just created (and recorded) as f under name,
// fsyncs and closes it; on failure it removes the file.
func (c *creation) fill(f File, name string) error {
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return c.fail(name, &Error{Code: CreateFailed, Path: c.path, Err: err})
	}
	c.made = info
	code, err := WriteFailed, c.produce(f, name)
	if err == nil {
		code, err = SyncFailed, f.Sync()
	}
	if cerr := f.Close(); cerr != nil && err == nil {
		code, err = WriteFailed, cerr
	}
	if err == nil {
		return nil
	}
	e, ok := err.(*Error) // the producer's own: its check or its read failed
	if !ok {
		e = &Error{Code: code, Path: c.path, Err: err}
	}
	return c.fail(name, e)
}

// syncDir makes the new name durable; when it cannot, the new file (still
// the one this run made) goes too: a failure leaves nothing behind.
func (c *creation) syncDir() error {
	err := c.fsys.SyncDir(filepath.Dir(c.path))
	if err == nil {
		return nil
	}
	e := &Error{Code: SyncFailed, Path: c.path, Err: err}
	if cur, lerr := c.fsys.Lstat(c.path); lerr == nil && os.SameFile(cur, c.made) {
		return c.fail(c.path, e)
	}
	return e
}

// fail removes name, created by this run, adding any failure to e.
func (c *creation) fail(name string, e *Error) error {
	if rerr := c.remove(name); rerr != nil {
		e.Err = errors.Join(e.Err, fmt.Errorf("cannot remove the partial file %s: %w", name, rerr))
	}
	return e
}

// remove removes name and forgets it (a name already gone is no failure).
func (c *creation) remove(name string) error {
	err := c.fsys.Remove(name)
	c.temps.done(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
