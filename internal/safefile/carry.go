package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// settle is how long carryOver watches the old generation for appends under
// way at the rename (pi opens the file by name for each append).
const settle = 5 * time.Millisecond

// maxRounds bounds how long carryOver follows a growing old generation.
const maxRounds = 200

// carryOver watches the old generation, still open as f, after the rename:
// bytes appended to it after the re-check (pi, during the rename) are
// appended to the new file and fsynced until it stops growing. Any other
// change, or a failed carry, keeps its content in a rescue file (an error).
func (r *rewrite) carryOver(f File, out *Outcome) error {
	end := r.size
	for quiet, rounds := 0, 0; quiet < 2; rounds++ {
		if rounds == maxRounds {
			return r.rescue(f, out, errors.New("another program kept appending to the old generation after the rename"))
		}
		info, err := f.Stat()
		if err != nil {
			return r.rescue(f, out, fmt.Errorf("cannot stat the old generation after the rename: %w", err))
		}
		switch size := info.Size(); {
		case size == end:
			quiet++
			if quiet < 2 {
				time.Sleep(settle)
			}
			continue
		case size < end:
			return r.rescue(f, out, fmt.Errorf("another program rewrote the file during the rename (%d bytes, %d read)", size, r.size))
		}
		quiet = 0
		if end == r.size {
			if err := r.samePrefix(f); err != nil {
				return r.rescue(f, out, err)
			}
		}
		n, err := r.appendRange(f, end, info.Size())
		out.Carried += n
		end += n
		if err != nil {
			return r.rescue(f, out, fmt.Errorf("another program appended %d bytes during the rename; carrying them over failed: %w", info.Size()-r.size, err))
		}
	}
	return nil
}

// samePrefix checks that the old generation still begins with the bytes
// that were read: only then is its growth an append.
func (r *rewrite) samePrefix(f File) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	h := r.newHash()
	if _, err := io.CopyN(h, f, r.size); err != nil {
		return err
	}
	if !bytes.Equal(h.Sum(nil), r.sum) {
		return errors.New("another program rewrote the file during the rename")
	}
	return nil
}

// appendRange appends bytes [from, to) of f to the new file, which must
// still be the one this run installed, and fsyncs it.
func (r *rewrite) appendRange(f File, from, to int64) (int64, error) {
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return 0, err
	}
	nf, err := r.fsys.OpenAppend(r.path)
	if err != nil {
		return 0, err
	}
	defer nf.Close()
	if info, err := nf.Stat(); err != nil || !os.SameFile(info, r.tempID) {
		return 0, errors.Join(errors.New("the new file was replaced meanwhile"), err)
	}
	n, err := io.CopyN(nf, f, to-from)
	if err = syncClose(nf, err); err != nil {
		return 0, err // the bytes written are in the rescue file too
	}
	return n, nil
}

// rescue keeps the old generation as it is now in a session pi can open,
// `pisess-rescued-<12 hex>.jsonl` beside it, and returns the error naming it.
func (r *rewrite) rescue(f File, out *Outcome, why error) error {
	name, err := r.copyOut(f)
	if err != nil {
		where := "it could not be saved"
		if out.Backup != "" {
			where = "the backup " + out.Backup + " has it"
		}
		return &Error{Code: ChangedDuringRewrite, Err: fmt.Errorf("%w: the old generation as it is now: %s (%v)", why, where, err)}
	}
	out.Rescued = name
	return &Error{Code: ChangedDuringRewrite, Err: fmt.Errorf("%w: the file was replaced by the new generation; the old one as the other program left it is kept in %s: compare and merge by hand", why, name)}
}

// copyOut copies f whole to a new rescue file beside the session.
func (r *rewrite) copyOut(f File) (string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	dir := filepath.Dir(r.path)
	name, dst, err := createUnique(r.fsys, nil, dir, "pisess-rescued-", ".jsonl", r.info.Mode().Perm())
	if err != nil {
		return "", err
	}
	_, err = io.Copy(dst, f)
	if err = syncClose(dst, err); err == nil {
		err = r.fsys.SyncDir(dir)
	}
	return name, err
}
