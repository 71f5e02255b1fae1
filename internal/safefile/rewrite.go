package safefile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Generator writes the new generation of a file to out, reading the
// current one from in. It may read in more than once (seek back to 0).
type Generator func(in io.ReadSeeker, out io.Writer) error

// VerifyFunc checks a new generation before it replaces the original: it
// must re-parse and validate. name is the original's path (for messages); r
// reads the new bytes (from the fsynced temp file, or from a dry run's
// spool). A non-nil error refuses the rewrite (verify_failed).
type VerifyFunc func(name string, r io.Reader) error

// RewriteOptions configure one Rewrite.
type RewriteOptions struct {
	// BackupSuffix, when set, keeps the original as <file><suffix> (a hard
	// link, else a copy). An existing file of that name is reused only if
	// it is byte-identical to the original, never overwritten.
	BackupSuffix string
	// DryRun writes nothing beside the file: the new generation is
	// produced in a spool (memory, past 4 MiB an unlinked temporary file of
	// the system's) and verified.
	DryRun bool
	// Diff (with DryRun) fills Outcome.Diff with a unified diff.
	Diff bool
	// FollowSymlinks rewrites the file a symbolic link points to (temp
	// file and backup beside the target) instead of refusing.
	FollowSymlinks bool
	// Verify checks the new generation; nil skips the check.
	Verify VerifyFunc
	// LockWait is how long to wait for another process's lock on the file
	// (another pisess run rewriting it) before refusing; 0 means
	// DefaultLockWait.
	LockWait time.Duration
	// Temps, when set, records the temp file while it exists, and a
	// backup copy until it is complete, so that a signal handler can
	// remove them (Temps.RemoveOnSignal).
	Temps *Temps
}

// DefaultLockWait is how long a rewrite waits for another one on the same
// file to finish.
const DefaultLockWait = 30 * time.Second

// Outcome is what a Rewrite or an Append did.
type Outcome struct {
	Path         string // the file rewritten (the target, when a symlink was followed)
	Changed      bool   // the new generation differs from the original (Rewrite)
	Written      bool   // the new generation replaced the original (Append: the lines are in it, fsynced)
	Size         int64  // Append: the original's size: its bytes stay a prefix of the file
	Appended     []byte // Append: the bytes appended (a dry run: that would be)
	Backup       string // the backup beside the file ("" = none)
	BackupReused bool   // the backup was left by an earlier run and is identical
	Diff         string // dry run with Diff: unified diff of the change
	ReadOnly     bool   // the original had no write permission (it is replaced anyway, as the directory allows)
	// Carried is how many bytes another program (pi) appended to the old
	// generation between the last check and the rename; they were
	// appended to the new file.
	Carried int64
	// Rescued names a file holding the old generation as another program
	// left it, when it changed in a way that could not be carried over
	// (the error says so).
	Rescued string
}

// Rewrite replaces the file at path with the generation that generate
// writes, following the safe rewrite protocol (session-format.md section 9,
// docs/migration.md):
//
//  1. open the original (refusing a symlink unless FollowSymlinks, and
//     anything but a regular file) and take an exclusive advisory lock
//     (flock) on it, so two pisess runs on one file take turns; remember
//     its identity, size and mtime and hash every byte generate reads;
//  2. write the new generation to `.pisess-tmp-<12 hex>` (short, whatever
//     the file's name) created exclusively in the same directory with the
//     original's permission bits (never wider) and locked while the run
//     lasts; copy the extended attributes, fsync and close it; if it
//     equals the original, remove it and stop (Changed false);
//  3. give it the original's mode, owner, access and modification times,
//     then verify it (re-read from disk);
//  4. make the backup, if asked: hard link, else copy + fsync (with the
//     original's times); an existing backup is reused only when
//     byte-identical to the original;
//  5. re-check that the original did not change since it was read (same
//     file, size, mtime and content hash);
//  6. rename the temp file over the original and fsync the directory;
//  7. look at the old generation, still open: bytes another program (pi)
//     appended to it after the re-check are appended to the new file and
//     fsynced; anything else it did is kept in a rescue file (an error).
//
// On any failure before the rename, the temp file is removed, and so is a
// backup this run created, unless the original was replaced meanwhile (the
// backup may then be the only copy of the old generation, or another run
// may have reported it as its own): the original is untouched, so running
// again just works. Errors are *Error.
func Rewrite(fsys FS, path string, opts RewriteOptions, generate Generator) (Outcome, error) {
	r := &rewrite{fsys: fsys, opts: opts}
	out, err := r.run(path, generate)
	return out, r.finish(path, err)
}

// finish cleans up after a failed run and names the file in its error.
func (r *rewrite) finish(path string, err error) error {
	if err == nil {
		return nil
	}
	return WithPath(r.cleanup(err), cmp.Or(r.path, path))
}

// rewrite is the state of one Rewrite: what it read and what it created.
type rewrite struct {
	fsys   FS
	opts   RewriteOptions
	path   string       // the file being rewritten
	info   fs.FileInfo  // the original, as opened
	seed   maphash.Seed // of every hash this run compares (newHash)
	sum    []byte       // hash of the original as read
	size   int64        // bytes of the original as read
	last   byte         // the original's last byte as read (0: empty)
	temp   string       // temp file created by this run and not yet renamed
	tempID fs.FileInfo  // the temp file, as created
	backup string       // backup created by this run (removed on failure)
	bakID  fs.FileInfo  // the backup, as created
	held   File         // a second descriptor of the temp file, holding its lock
	waited bool         // the run waited for another's lock
}

func (r *rewrite) run(path string, generate Generator) (Outcome, error) {
	f, err := r.open(path)
	if err != nil {
		return Outcome{}, err
	}
	defer f.Close()
	defer func() {
		if r.held != nil { // the temp file's lock (the original's goes with f)
			r.held.Close()
		}
	}()
	if r.opts.DryRun {
		return r.dryRun(f, generate)
	}
	changed, err := r.writeTemp(f, generate)
	if err != nil || !changed {
		return Outcome{Path: r.path}, err
	}
	out := Outcome{Path: r.path, Changed: true, ReadOnly: r.info.Mode().Perm()&0o222 == 0}
	if err := r.verifyTemp(); err != nil {
		return out, err
	}
	if out.Backup, out.BackupReused, err = r.makeBackup(); err != nil {
		return out, err
	}
	if err := r.recheck(); err != nil {
		return out, err
	}
	if err := r.fsys.Rename(r.temp, r.path); err != nil {
		return out, &Error{Code: RenameFailed, Err: err}
	}
	r.opts.Temps.done(r.temp)
	r.temp, r.backup, out.Written = "", "", true // both now belong to the user
	if err := r.fsys.SyncDir(filepath.Dir(r.path)); err != nil {
		return out, &Error{Code: SyncFailed, Err: fmt.Errorf("the file was replaced, but the directory could not be synced: %w", err)}
	}
	err = r.carryOver(f, &out)
	return out, err
}

// open resolves, opens, locks (not in a dry run) and identifies the
// original. The caller closes it.
func (r *rewrite) open(path string) (File, error) {
	var err error
	if r.path, err = Resolve(r.fsys, path, r.opts.FollowSymlinks); err != nil {
		return nil, err
	}
	f, err := r.fsys.Open(r.path)
	if err != nil {
		return nil, &Error{Code: ReadFailed, Err: err}
	}
	if !r.opts.DryRun {
		err = r.lock(f)
	}
	if err == nil {
		err = r.identify(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ErrReplacedWhileWaiting is wrapped by the error of a run that waited
// for another's lock and found the file replaced (most likely by the run
// it waited for): starting again sees the new file.
var ErrReplacedWhileWaiting = errors.New("another process replaced the file while this run waited for its lock")

// lock takes the exclusive advisory lock on the opened original, waiting
// up to LockWait for another holder (another pisess run) to finish.
func (r *rewrite) lock(f File) error {
	wait := cmp.Or(r.opts.LockWait, DefaultLockWait)
	deadline := time.Now().Add(wait)
	for pause := time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		if err := r.fsys.Lock(f); !errors.Is(err, ErrLocked) {
			return nil // locked, or no flock on this file system: the checks below still hold
		}
		if time.Now().After(deadline) {
			return &Error{Code: ChangedDuringRewrite, Err: fmt.Errorf("another process has held a lock on the file for %v (another pisess run?): left untouched; run again later", wait)}
		}
		r.waited = true
		time.Sleep(pause)
	}
}

// Resolve applies the symlink policy of Rewrite and Append and returns
// the file they would rewrite (with an error, the file it names if known).
func Resolve(fsys FS, path string, follow bool) (string, error) {
	info, err := fsys.Lstat(path)
	if err != nil {
		return "", &Error{Code: ReadFailed, Err: err}
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		if !follow {
			return path, &Error{Code: Symlink, Err: errors.New("is a symbolic link: not rewritten (rewrite its target; migrate and repair take --follow-symlinks)")}
		}
		if path, err = fsys.EvalSymlinks(path); err != nil {
			return "", &Error{Code: ReadFailed, Err: err}
		}
		if info, err = fsys.Lstat(path); err != nil {
			return path, &Error{Code: ReadFailed, Err: err}
		}
	}
	if !info.Mode().IsRegular() {
		return path, &Error{Code: NotRegular, Err: fmt.Errorf("not a regular file (%s)", info.Mode().Type())}
	}
	return path, nil
}

// identify records the opened original's identity: the file Resolve saw.
func (r *rewrite) identify(f File) error {
	info, err := f.Stat()
	if err != nil {
		return &Error{Code: ReadFailed, Err: err}
	}
	named, err := r.fsys.Lstat(r.path)
	if err != nil || !os.SameFile(info, named) {
		if r.waited {
			return &Error{Code: ChangedDuringRewrite, Err: ErrReplacedWhileWaiting}
		}
		return &Error{Code: ChangedDuringRewrite, Err: errors.New("the file was replaced while it was being opened")}
	}
	r.info = info
	return nil
}

// dryRun reports what a real run would do, writing nothing beside the file.
func (r *rewrite) dryRun(f File, generate Generator) (Outcome, error) {
	var sp Spool
	defer sp.Close()
	changed, err := r.produce(f, &sp, WriteFailed, generate)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Path: r.path, Changed: changed}
	if !changed {
		return out, nil
	}
	generated, err := sp.Reader()
	if err != nil {
		return out, &Error{Code: ReadFailed, Err: err}
	}
	if err := r.verify(generated); err != nil {
		return out, err
	}
	if err := r.backupWouldWork(); err != nil {
		return out, err
	}
	if r.opts.Diff {
		generated, err := sp.Bytes()
		if err != nil {
			return out, &Error{Code: ReadFailed, Err: err}
		}
		old, err := r.readAll(f)
		if err != nil {
			return out, err
		}
		out.Diff = Diff(r.path, old, generated)
	}
	return out, nil
}

// readAll reads the whole original again, checking it is what was read.
func (r *rewrite) readAll(f File) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, &Error{Code: ReadFailed, Err: err}
	}
	old, err := io.ReadAll(f)
	if err != nil {
		return nil, &Error{Code: ReadFailed, Err: err}
	}
	h := r.newHash()
	h.Write(old)
	if !bytes.Equal(h.Sum(nil), r.sum) {
		return nil, &Error{Code: ChangedDuringRewrite, Err: errors.New("the file changed while it was being read")}
	}
	return old, nil
}

// produce runs the generator on a snapshot of f writing to w, telling read,
// write and generator failures (code, unless an *Error) apart, completes
// the snapshot and reports whether the new generation differs.
func (r *rewrite) produce(f File, w io.Writer, code Code, generate Generator) (bool, error) {
	snap, tw := &snapshot{f: f, h: r.newHash()}, &trackingWriter{w: w, h: r.newHash()}
	err := generate(snap, tw)
	switch {
	case err == nil:
		err = r.finishRead(snap)
	case snap.err != nil:
		err = &Error{Code: ReadFailed, Err: snap.err}
	case tw.err != nil:
		err = &Error{Code: WriteFailed, Err: tw.err}
	default:
		err = typed(err, code)
	}
	return err == nil && (tw.n != r.size || !bytes.Equal(tw.h.Sum(nil), r.sum)), err
}

// finishRead reads and hashes what the generator or planner left unread,
// completing the snapshot, and records the original as read.
func (r *rewrite) finishRead(snap *snapshot) error {
	_, err := snap.Seek(snap.hashed, io.SeekStart)
	if err == nil {
		_, err = io.Copy(io.Discard, snap)
	}
	if err == nil {
		err = snap.err
	}
	if err != nil {
		return &Error{Code: ReadFailed, Err: err}
	}
	r.sum, r.size, r.last = snap.h.Sum(nil), snap.hashed, snap.last
	return nil
}

// writeTemp writes the new generation to a fresh temp file, seals and
// adopts it, and reports whether it differs from the original (when it
// does not, the temp file is already gone).
func (r *rewrite) writeTemp(orig File, generate Generator) (bool, error) {
	tf, err := r.createTemp()
	if err != nil {
		return false, err
	}
	changed, err := r.produce(orig, tf, WriteFailed, generate)
	if changed {
		err = r.seal(orig, tf, "the new file", "")
	}
	if cerr := tf.Close(); cerr != nil && err == nil {
		err = &Error{Code: WriteFailed, Err: cerr}
	}
	if err != nil {
		return false, err
	}
	if !changed {
		if err := r.fsys.Remove(r.temp); err != nil {
			return false, &Error{Code: WriteFailed, Err: fmt.Errorf("cannot remove the temp file %s: %w", r.temp, err)}
		}
		r.opts.Temps.done(r.temp)
		r.temp = ""
		return false, nil
	}
	return true, r.adopt(r.temp, "the new file", "")
}

// seal gives dst, the new file or the backup (what), the extended
// attributes of src, the original, and fsyncs it. Its errors name errPath.
func (r *rewrite) seal(src, dst File, what, errPath string) error {
	if err := r.fsys.CopyXattrs(src, dst); err != nil {
		return &Error{Code: ChmodFailed, Path: errPath, Err: fmt.Errorf("cannot give %s the original's extended attributes: %w", what, err)}
	}
	if err := dst.Sync(); err != nil {
		return &Error{Code: SyncFailed, Path: errPath, Err: err}
	}
	return nil
}

// adopt gives name, the new file or the backup (what), the original's
// mode, owner, access and modification times. Its errors name errPath,
// except the times': they name name. Times matter: pi resumes the session
// with the newest mtime (--continue), so a rewrite must not make a file
// look recently used.
func (r *rewrite) adopt(name, what, errPath string) error {
	if err := r.fsys.Chmod(name, r.info.Mode().Perm()); err != nil {
		return &Error{Code: ChmodFailed, Path: errPath, Err: err}
	}
	if err := r.fsys.Chown(name, r.info); err != nil {
		return &Error{Code: ChmodFailed, Path: errPath, Err: fmt.Errorf("cannot give %s the original's owner: %w", what, err)}
	}
	if err := r.fsys.Chtimes(name, atimeOf(r.info), r.info.ModTime()); err != nil {
		return &Error{Code: ChmodFailed, Path: name, Err: fmt.Errorf("cannot give the original's modification time: %w", err)}
	}
	return nil
}

// TempPrefix starts the name of every temp file of the rewrite protocol:
// `.pisess-tmp-` and 12 random hex digits, short enough beside any file
// name the directory can hold.
const TempPrefix = ".pisess-tmp-"

// createTemp creates the new generation's temp file, this run's.
func (r *rewrite) createTemp() (File, error) {
	name, f, held, err := r.newTemp()
	if err != nil {
		return nil, &Error{Code: CreateFailed, Err: err}
	}
	r.temp, r.held = name, held
	if r.tempID, err = f.Stat(); err != nil {
		f.Close()
		return nil, &Error{Code: CreateFailed, Err: err}
	}
	return f, nil
}

// newTemp creates `.pisess-tmp-<12 hex>` beside the original with its
// permission bits (createUnique), locked through a second descriptor (held,
// nil where locking failed) so `repair --clean-temps` leaves it alone.
func (r *rewrite) newTemp() (name string, f, held File, err error) {
	name, f, err = createUnique(r.fsys, r.opts.Temps, filepath.Dir(r.path), TempPrefix, "", r.info.Mode().Perm())
	if err != nil {
		return "", nil, nil, err
	}
	if lf, err := r.fsys.Open(name); err == nil {
		if r.fsys.Lock(lf) == nil {
			held = lf
		} else {
			lf.Close()
		}
	}
	return name, f, held, nil
}

// verifyTemp verifies the new generation as it is on disk.
func (r *rewrite) verifyTemp() error {
	if r.opts.Verify == nil {
		return nil
	}
	f, err := r.fsys.Open(r.temp)
	if err != nil {
		return &Error{Code: ReadFailed, Err: err}
	}
	defer f.Close()
	return r.verify(f)
}

func (r *rewrite) verify(rd io.Reader) error {
	if r.opts.Verify == nil {
		return nil
	}
	if err := r.opts.Verify(r.path, rd); err != nil {
		return &Error{Code: VerifyFailed, Err: err}
	}
	return nil
}

// makeBackup keeps the original as <file><suffix>.
func (r *rewrite) makeBackup() (path string, reused bool, err error) {
	if r.opts.BackupSuffix == "" {
		return "", false, nil
	}
	path = r.path + r.opts.BackupSuffix
	lerr := r.fsys.Link(r.path, path)
	switch {
	case lerr == nil:
		return path, false, r.ownBackup(path)
	case errors.Is(lerr, fs.ErrExist):
		return path, true, r.reuseBackup(path)
	case errors.Is(lerr, fs.ErrNotExist):
		return "", false, &Error{Code: ChangedDuringRewrite, Err: errors.New("the file was removed while it was being rewritten")}
	}
	reused, err = r.copyBackup(path)
	var e *Error
	if errors.As(err, &e) && e.Code == BackupFailed {
		e.Err = errors.Join(fmt.Errorf("hard link: %w", lerr), e.Err)
	}
	return path, reused, err
}

// backupWouldWork tells a dry run whether the backup would be refused.
func (r *rewrite) backupWouldWork() error {
	if r.opts.BackupSuffix == "" {
		return nil
	}
	path := r.path + r.opts.BackupSuffix
	if _, err := r.fsys.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return r.reuseBackup(path)
}

// reuseBackup accepts an existing backup only when it is a regular file
// byte-identical to the original as read (a killed earlier run's).
func (r *rewrite) reuseBackup(path string) error {
	refuse := func(why string) error {
		return &Error{Code: BackupExists, Path: path, Err: fmt.Errorf("a different file is in the way of the backup (%s): move it away and run again", why)}
	}
	info, err := r.fsys.Lstat(path)
	if err != nil {
		return &Error{Code: BackupFailed, Path: path, Err: err}
	}
	if !info.Mode().IsRegular() {
		return refuse("not a regular file")
	}
	if info.Size() != r.size {
		return refuse("different size")
	}
	sum, err := r.hashFile(path)
	if err != nil {
		return &Error{Code: BackupFailed, Path: path, Err: err}
	}
	if !bytes.Equal(sum, r.sum) {
		return refuse("different content")
	}
	return nil
}

// copyBackup makes the backup as a copy when a hard link is impossible:
// into a temp file (checked against the hash of what was read, sealed and
// adopted), and only the complete copy takes the backup's name, so a run
// killed while copying leaves a temp file (`repair --clean-temps`), never
// a partial backup in the way of the next run.
func (r *rewrite) copyBackup(path string) (reused bool, err error) {
	if _, err := r.fsys.Lstat(path); err == nil {
		return true, r.reuseBackup(path)
	}
	name, bf, held, err := r.newTemp()
	if err != nil {
		return false, &Error{Code: BackupFailed, Path: path, Err: err}
	}
	defer func() {
		if held != nil {
			held.Close()
		}
		if name != "" { // not placed: the temp goes
			r.fsys.Remove(name)
		}
		r.opts.Temps.done(name)
	}()
	err = r.copyOriginal(bf, path)
	info, serr := bf.Stat()
	if cerr := bf.Close(); err == nil && (serr != nil || cerr != nil) {
		err = &Error{Code: BackupFailed, Path: path, Err: errors.Join(serr, cerr)}
	}
	if err == nil {
		err = r.adopt(name, "the backup", path)
	}
	if err != nil {
		return false, err
	}
	reused, err = r.placeBackup(name, path, info)
	if err == nil && !reused {
		name = "" // it is the backup now
	}
	return reused, err
}

// placeBackup gives the complete copy at temp the backup's name, never
// over a file already there: a hard link where the file system has them,
// else a rename once the name is found free (the session's lock keeps
// other pisess runs out of the window between the two).
func (r *rewrite) placeBackup(temp, path string, copied fs.FileInfo) (reused bool, err error) {
	lerr := r.fsys.Link(temp, path)
	if errors.Is(lerr, fs.ErrExist) {
		return true, r.reuseBackup(path)
	}
	if lerr != nil {
		if _, err := r.fsys.Lstat(path); err == nil {
			return true, r.reuseBackup(path)
		}
		if err := r.fsys.Rename(temp, path); err != nil {
			return false, &Error{Code: BackupFailed, Path: path, Err: err}
		}
	}
	r.backup, r.bakID = path, copied
	if lerr == nil {
		r.fsys.Remove(temp) // the backup's second name
	}
	return false, nil
}

// ownBackup records the hard link this run made: the original as opened.
func (r *rewrite) ownBackup(path string) error {
	info, err := r.fsys.Lstat(path)
	if err != nil {
		return &Error{Code: BackupFailed, Path: path, Err: err}
	}
	r.backup, r.bakID = path, info
	if !os.SameFile(info, r.info) {
		return &Error{Code: ChangedDuringRewrite, Err: errors.New("the file was replaced while its backup was being made")}
	}
	return nil
}

// copyOriginal copies the original to bf, the backup at path, checking
// the copy against the hash of what was read, and seals it.
func (r *rewrite) copyOriginal(bf File, path string) error {
	src, err := r.fsys.Open(r.path)
	if err != nil {
		return &Error{Code: ReadFailed, Err: err}
	}
	defer src.Close()
	h := r.newHash()
	tw := &trackingWriter{w: io.MultiWriter(bf, h)}
	if _, err := io.Copy(tw, src); err != nil {
		if tw.err != nil {
			return &Error{Code: BackupFailed, Path: path, Err: err}
		}
		return &Error{Code: ReadFailed, Err: err}
	}
	if !bytes.Equal(h.Sum(nil), r.sum) {
		return &Error{Code: ChangedDuringRewrite, Err: errors.New("the file changed while its backup was being copied")}
	}
	return r.seal(src, bf, "the backup", path)
}

// recheck refuses when the original is no longer the file, size, mtime
// and bytes that were read (pi may have appended to it meanwhile).
func (r *rewrite) recheck() error {
	changed := func(why string) error {
		return &Error{Code: ChangedDuringRewrite, Err: fmt.Errorf("the file changed while it was being rewritten (%s): left untouched; run again when the session is idle", why)}
	}
	cur, err := r.fsys.Lstat(r.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return changed("it was removed")
	case err != nil:
		return &Error{Code: ReadFailed, Err: err}
	case !os.SameFile(cur, r.info):
		return changed("it was replaced by another file")
	case cur.Size() != r.size || cur.Size() != r.info.Size():
		return changed(fmt.Sprintf("size %d, was %d", cur.Size(), r.size))
	case !cur.ModTime().Equal(r.info.ModTime()):
		return changed("modification time")
	}
	sum, err := r.hashFile(r.path)
	if err != nil {
		return &Error{Code: ReadFailed, Err: err}
	}
	if !bytes.Equal(sum, r.sum) {
		return changed("content")
	}
	return nil
}

// hashFile returns the hash of a file (newHash).
func (r *rewrite) hashFile(path string) ([]byte, error) {
	f, err := r.fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := r.newHash()
	_, err = io.Copy(h, f)
	return h.Sum(nil), err
}

// cleanup removes what this run created and still owns, adding failures to err.
func (r *rewrite) cleanup(err error) error {
	var problems []error
	if r.temp != "" {
		if rerr := r.fsys.Remove(r.temp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			problems = append(problems, fmt.Errorf("cleanup: cannot remove the temp file: %w", rerr))
		}
		r.opts.Temps.done(r.temp)
		r.temp = ""
	}
	if r.backup != "" {
		r.opts.Temps.done(r.backup)
		if keep := r.keepBackup(); keep != "" {
			problems = append(problems, fmt.Errorf("kept the backup %s: %s", r.backup, keep))
		} else if rerr := r.fsys.Remove(r.backup); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			problems = append(problems, fmt.Errorf("cleanup: cannot remove the new backup: %w", rerr))
		}
		r.backup = ""
	}
	if len(problems) == 0 {
		return err
	}
	var e *Error
	if errors.As(err, &e) {
		e.Err = errors.Join(append([]error{e.Err}, problems...)...)
		return err
	}
	return errors.Join(append([]error{err}, problems...)...)
}

// keepBackup says why this run's backup must stay ("" when it may go): it
// is another file now, or the original left its name, so it may be the
// only copy of the old generation, one another run reported as its own.
func (r *rewrite) keepBackup() string {
	cur, err := r.fsys.Lstat(r.backup)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil || !os.SameFile(cur, r.bakID):
		return "it is not the file this run made any more"
	}
	orig, err := r.fsys.Lstat(r.path)
	if err != nil || !os.SameFile(orig, r.info) {
		return "the original was replaced or removed meanwhile, so it may be the only copy of the old generation"
	}
	return ""
}

// snapshot reads the original for the generator, hashing each byte the
// first time it is read in order: what the new generation was made from.
type snapshot struct {
	f           File
	pos, hashed int64
	last        byte // the last byte hashed
	h           hash.Hash
	err         error // first read or seek error
}

func (s *snapshot) Read(p []byte) (int, error) {
	n, err := s.f.Read(p)
	if n > 0 {
		end := s.pos + int64(n)
		if s.pos <= s.hashed && end > s.hashed {
			s.h.Write(p[s.hashed-s.pos : n])
			s.hashed, s.last = end, p[n-1]
		}
		s.pos = end
	}
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// ReadAt reads the original where the generator's reader looks ahead to
// measure a long line (session.Source); the bytes it uses are still those
// Read hashes. It fails when the file cannot be read at an offset.
func (s *snapshot) ReadAt(p []byte, off int64) (int, error) {
	at, ok := s.f.(io.ReaderAt)
	if !ok {
		return 0, errors.ErrUnsupported
	}
	return at.ReadAt(p, off)
}

// Stat describes the original (session.SourceOf takes a regular file only).
func (s *snapshot) Stat() (fs.FileInfo, error) { return s.f.Stat() }

func (s *snapshot) Seek(offset int64, whence int) (int64, error) {
	pos, err := s.f.Seek(offset, whence)
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return pos, err
	}
	s.pos = pos
	return pos, nil
}

// newHash returns the hash by which the protocol tells whether the
// original changed: maphash (64 bits) with this run's random seed, never
// shown or kept, so no one can aim a change at it (one unnoticed is a
// 2^-64 accident, beside the checks of identity, size and mtime). It
// hashes at several GB/s where sha256 manages about 1.5, half of slim
// --rewrite --backup's CPU time on a 1 GiB session (docs/performance.md,
// "The rewrite protocol on a huge file").
func (r *rewrite) newHash() hash.Hash {
	if r.seed == (maphash.Seed{}) {
		r.seed = maphash.MakeSeed()
	}
	h := new(maphash.Hash)
	h.SetSeed(r.seed)
	return h
}

// trackingWriter counts (and, with h, hashes) the bytes written and keeps
// the first write error, to tell it from a read error.
type trackingWriter struct {
	w   io.Writer
	h   hash.Hash // nil: not hashed
	n   int64
	err error
}

func (t *trackingWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if t.h != nil {
		t.h.Write(p[:n])
	}
	t.n += int64(n)
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}
