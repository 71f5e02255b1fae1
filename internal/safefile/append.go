package safefile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Planner reads the original file and returns the complete lines to
// append to it (each ending in "\n"); none means there is nothing to do.
type Planner func(in io.Reader) ([]byte, error)

// truncater is a File that can be cut back (an *os.File).
type truncater interface{ Truncate(size int64) error }

// Append adds complete lines at the end of the file at path, keeping every
// byte of it as a prefix (docs/migration.md, "Append-only repairs"):
//
//  1. open and lock the original as Rewrite does;
//  2. let plan read it (every byte read is hashed) and say what to append;
//     nothing: stop (Written false, the file untouched);
//  3. verify the original followed by the new lines, if Verify is set;
//  4. make the backup, if asked, as Rewrite does when it cannot hard-link
//     (a checked copy; an identical leftover is reused): a hard link would
//     grow with the original;
//  5. re-check the original as Rewrite does and open it O_WRONLY|O_APPEND,
//     checking it is still that file at that size;
//  6. write the lines and fsync. When the original does not end in "\n"
//     (a missing final newline), a "\n" goes first.
//
// A failed write or fsync cuts the file back to its original size and
// fsyncs that, so the file is the original, or the original followed by
// complete lines. On any failure a backup this run created is removed,
// unless the file could not be cut back (then it is kept, and the error
// says so). Errors are *Error. BackupSuffix, DryRun, FollowSymlinks,
// Verify and LockWait of opts apply; Diff does not.
func Append(fsys FS, path string, opts RewriteOptions, plan Planner) (Outcome, error) {
	r := &rewrite{fsys: fsys, opts: opts}
	out, err := r.appendRun(path, plan)
	return out, r.finish(path, err)
}

func (r *rewrite) appendRun(path string, plan Planner) (Outcome, error) {
	f, err := r.open(path)
	if err != nil {
		return Outcome{}, err
	}
	defer f.Close()
	lines, err := r.plan(f, plan)
	out := Outcome{Path: r.path, Size: r.size, Appended: lines}
	if err != nil || len(lines) == 0 {
		return out, err
	}
	if err := r.verifyAppended(f, lines); err != nil {
		return out, err
	}
	if r.opts.DryRun {
		return out, r.backupWouldWork()
	}
	if r.opts.BackupSuffix != "" {
		out.Backup = r.path + r.opts.BackupSuffix
		if out.BackupReused, err = r.copyBackup(out.Backup); err != nil {
			return out, err
		}
	}
	if err := r.recheck(); err != nil {
		return out, err
	}
	out.Written, err = r.appendLines(lines)
	if out.Written {
		r.backup = "" // the backup now belongs to the user
	}
	return out, err
}

// plan runs the planner on a snapshot of the original and returns its
// lines, after a "\n" when the original does not end in one.
func (r *rewrite) plan(f File, plan Planner) ([]byte, error) {
	var lines []byte
	_, err := r.produce(f, io.Discard, RefusedInvalid, func(in io.ReadSeeker, _ io.Writer) (err error) {
		lines, err = plan(in)
		return err
	})
	if err != nil || len(lines) == 0 {
		return nil, err
	}
	if lines[len(lines)-1] != '\n' {
		return nil, &Error{Code: WriteFailed, Err: errors.New("internal error: the lines to append do not end in a newline")}
	}
	if r.size > 0 && r.last != '\n' {
		lines = append([]byte{'\n'}, lines...)
	}
	return lines, nil
}

// verifyAppended verifies the original as read followed by lines.
func (r *rewrite) verifyAppended(f File, lines []byte) error {
	if r.opts.Verify == nil {
		return nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return &Error{Code: ReadFailed, Err: err}
	}
	h := r.newHash()
	orig := io.TeeReader(io.LimitReader(f, r.size), h)
	in := &appendedInput{Reader: io.MultiReader(orig, bytes.NewReader(lines)), f: f, size: r.size, lines: lines}
	if err := r.verify(in); err != nil {
		return err
	}
	if _, err := io.Copy(h, io.LimitReader(f, r.size)); err != nil { // what verify left unread
		return &Error{Code: ReadFailed, Err: err}
	}
	if !bytes.Equal(h.Sum(nil), r.sum) {
		return &Error{Code: ChangedDuringRewrite, Err: errors.New("the file changed while it was being read")}
	}
	return nil
}

// appendedInput is the original as read followed by the lines, for the
// verifier: a session.Source (ReadAt, Stat, Seek), so a long line is held
// once, not twice in pieces; the bytes looked at are still those Read hashes.
type appendedInput struct {
	io.Reader
	f     File
	size  int64
	lines []byte
	read  int64
}

func (a *appendedInput) Read(p []byte) (int, error) {
	n, err := a.Reader.Read(p)
	a.read += int64(n)
	return n, err
}

// ReadAt reads the original below its size and the lines after it; it
// fails when the file cannot be read at an offset.
func (a *appendedInput) ReadAt(p []byte, off int64) (int, error) {
	at, ok := a.f.(io.ReaderAt)
	if !ok {
		return 0, errors.ErrUnsupported
	}
	n := 0
	if off < a.size {
		q := p[:min(int64(len(p)), a.size-off)]
		k, err := at.ReadAt(q, off)
		switch {
		case k < len(q): // an error, or the file shrank
			return k, cmp.Or(err, io.ErrUnexpectedEOF)
		case k == len(p):
			return k, nil
		}
		n = k
	}
	if from := off + int64(n) - a.size; from < int64(len(a.lines)) {
		n += copy(p[n:], a.lines[from:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Stat describes the original (session.SourceOf takes a regular file only).
func (a *appendedInput) Stat() (fs.FileInfo, error) { return a.f.Stat() }

// Seek only tells the offset read to (what session.SourceOf asks).
func (a *appendedInput) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekCurrent {
		return 0, errors.ErrUnsupported
	}
	return a.read, nil
}

// appendLines appends lines to the original, still the file and size read,
// and fsyncs; on failure it cuts the file back. written: the lines are in
// the file, synced (an error may still follow: closing failed).
func (r *rewrite) appendLines(lines []byte) (written bool, err error) {
	af, err := r.fsys.OpenAppend(r.path)
	if err != nil {
		return false, &Error{Code: WriteFailed, Err: err}
	}
	info, err := af.Stat()
	switch {
	case err != nil:
		af.Close()
		return false, &Error{Code: ReadFailed, Err: err}
	case !os.SameFile(info, r.info) || info.Size() != r.size:
		af.Close()
		return false, &Error{Code: ChangedDuringRewrite, Err: errors.New("the file changed while it was being appended to: left untouched; run again when the session is idle")}
	}
	_, werr := af.Write(lines) // a short write is an error (io.Writer)
	code := WriteFailed
	if werr == nil {
		code, werr = SyncFailed, af.Sync()
	}
	if werr != nil {
		if cerr := r.cutBack(af); cerr != nil {
			werr = errors.Join(werr, cerr)
		}
		af.Close()
		return false, &Error{Code: code, Err: werr}
	}
	if err := af.Close(); err != nil {
		return true, &Error{Code: WriteFailed, Err: fmt.Errorf("the lines were written and synced, but closing the file failed: %w", err)}
	}
	return true, nil
}

// cutBack truncates the file to its original size and fsyncs it; when
// that fails, this run's backup is kept (the file may end in a partial line).
func (r *rewrite) cutBack(af File) error {
	t, ok := af.(truncater)
	err := errors.New("the file cannot be truncated")
	if ok {
		if err = t.Truncate(r.size); err == nil {
			err = af.Sync()
		}
	}
	if err == nil {
		return nil
	}
	keep := ""
	if r.backup != "" {
		keep = fmt.Sprintf(" (the backup %s is kept)", r.backup)
		r.backup = ""
	}
	return fmt.Errorf("could not cut the file back to its original %d bytes: it may end in a partial line; `pisess repair` drops it%s: %w", r.size, keep, err)
}
