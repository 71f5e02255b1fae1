package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleAge is how old a temp file must be before CleanTemps takes it for
// a killed run's leftover (besides being unlocked: a running rewrite
// holds a lock on its temp file from a moment after creating it).
const StaleAge = time.Minute

// IsTempName reports whether a file name is one the rewrite protocol
// gives its temp files: `.pisess-tmp-` and 12 lowercase hex digits, or the
// longer `.<name>.pisess-tmp-<12 hex>` of earlier versions.
func IsTempName(name string) bool {
	i := strings.LastIndex(name, TempPrefix[1:])
	if i < 1 || name[0] != '.' || name[i-1] != '.' {
		return false
	}
	hexDigits := name[i+len(TempPrefix)-1:]
	return len(hexDigits) == 12 && strings.Trim(hexDigits, "0123456789abcdef") == ""
}

// TempVerdict is what CleanTemps did with one temp file.
type TempVerdict struct {
	Path    string
	Removed bool
	Why     string // why it was kept, or the error removing it
}

// CleanTemps removes the stale temp files of the rewrite protocol in dir:
// only files with a temp file's name (IsTempName), regular (not a link),
// owned by this user, older than StaleAge, on which no running rewrite
// holds a lock. Each is removed while this process holds its lock. A temp
// file is never the only copy of anything: the original is replaced only
// by renaming it. A dry run removes nothing and reports Removed for what
// it would remove.
func CleanTemps(fsys FS, dir string, now time.Time, dryRun bool) ([]TempVerdict, error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, &Error{Code: ReadFailed, Path: dir, Err: err}
	}
	var verdicts []TempVerdict
	for _, e := range entries {
		if !IsTempName(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		v := TempVerdict{Path: path}
		v.Removed, v.Why = cleanTemp(fsys, path, now, dryRun)
		verdicts = append(verdicts, v)
	}
	return verdicts, nil
}

func cleanTemp(fsys FS, path string, now time.Time, dryRun bool) (bool, string) {
	info, err := fsys.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, "gone meanwhile"
	case err != nil:
		return false, err.Error()
	case !info.Mode().IsRegular():
		return false, fmt.Sprintf("not a regular file (%s)", info.Mode().Type())
	case !ownedByMe(info):
		return false, "owned by another user"
	case now.Sub(info.ModTime()) < StaleAge:
		return false, fmt.Sprintf("younger than %v: it may belong to a run in progress", StaleAge)
	}
	f, err := fsys.Open(path)
	if err != nil {
		return false, err.Error()
	}
	defer f.Close()
	if err := fsys.Lock(f); errors.Is(err, ErrLocked) {
		return false, "a running pisess holds it"
	}
	if cur, err := f.Stat(); err != nil || !os.SameFile(cur, info) {
		return false, "replaced meanwhile"
	}
	if dryRun {
		return true, ""
	}
	if err := fsys.Remove(path); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// createUnique creates dir/<prefix><12 hex><suffix> (createRecorded;
// another name on a clash).
func createUnique(fsys FS, temps *Temps, dir, prefix, suffix string, perm fs.FileMode) (string, File, error) {
	random := make([]byte, 6)
	for attempt := 1; ; attempt++ {
		_, _ = rand.Read(random) // crypto/rand.Read never fails (Go 1.24+)
		name := filepath.Join(dir, prefix+hex.EncodeToString(random)+suffix)
		f, err := createRecorded(fsys, temps, name, perm)
		if err == nil || !errors.Is(err, fs.ErrExist) || attempt == 8 {
			return name, f, err
		}
	}
}

// createRecorded creates name exclusively with perm and records it in
// temps; after RemoveAll the file is removed at once and refused.
func createRecorded(fsys FS, temps *Temps, name string, perm fs.FileMode) (File, error) {
	f, err := fsys.CreateExcl(name, perm)
	if err != nil {
		return nil, err
	}
	if err := temps.add(fsys, name); err != nil { // add removed it
		f.Close()
		return nil, err
	}
	return f, nil
}
