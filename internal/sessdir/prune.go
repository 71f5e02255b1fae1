package sessdir

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// RecentlyModified is how recently a file must not have been modified for
// prune to take it: pi may be writing it.
const RecentlyModified = 10 * time.Minute

// PruneOptions say which sessions to prune and how.
type PruneOptions struct {
	Root       string
	OlderThan  time.Duration // the last entry is older than this
	LargerThan int64         // and the file is larger than this many bytes (0: any size)
	Project    string        // only sessions whose cwd is this directory or inside it ("" for all)
	// WithForks prunes the forks of a pruned session with it (whatever
	// their age), instead of keeping a session that a kept one forks from.
	WithForks bool
	Delete    bool // delete instead of moving to Trash
	DryRun    bool
	Now       time.Time
	// Skipped, when set, is told of each file of the directory left alone
	// though it may be a session, as MoveOptions.Skipped.
	Skipped func(error)
}

// A Pruned is one session prune took (or would take).
type Pruned struct {
	File      string `json:"file"`
	Action    string `json:"action"`       // trashed, deleted, would-trash, would-delete
	To        string `json:"to,omitempty"` // where it went in the trash
	Bytes     int64  `json:"bytes"`
	LastEntry string `json:"lastEntry"` // the last entry's timestamp ("" when none could be read: the header's is used)
	Fork      bool   `json:"fork,omitempty"`
}

// Trash is the directory prune moves sessions to: beside the sessions
// directory, its name with "-trash" ("~/.pi/agent/sessions-trash"); beside
// the directory a link names, on its file system.
func Trash(root string) string {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	root = filepath.Clean(root)
	if base := filepath.Base(root); base == "." || base == ".." { // "." names no directory to put beside
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
	}
	return filepath.Join(filepath.Dir(root), filepath.Base(root)+"-trash")
}

// candidate is a session and what prune knows of it.
type candidate struct {
	Session
	last   time.Time
	lastAt string
	prune  bool
	fork   bool // pruned as a fork of a pruned session
}

// Prune moves to Trash(opts.Root) (or deletes) every session whose last
// entry is older than opts.OlderThan, and the other conditions, except a
// file modified in the last RecentlyModified and, unless opts.WithForks, a
// session a kept session forks from. Each session is reported as it is
// taken. A trash name that holds other bytes refuses the run before
// anything changed; a session that changes after it was read stops it.
func Prune(fsys safefile.FS, opts PruneOptions, report func(Pruned)) error {
	all, unlock, err := lockedList(fsys, opts.Root, opts.Skipped)
	if err != nil {
		return err
	}
	defer unlock()
	cands := make([]*candidate, 0, len(all))
	for _, s := range all {
		c := &candidate{Session: s}
		c.last, c.lastAt = lastEntry(fsys, s)
		c.prune = selected(c, opts)
		cands = append(cands, c)
	}
	settleForks(cands, opts)
	trash := Trash(opts.Root)
	for _, c := range cands {
		if c.prune && !opts.Delete {
			if _, err := occupied(fsys, c.Session, trashName(opts.Root, trash, c.Path), "empty the trash first"); err != nil {
				return err
			}
		}
	}
	for _, c := range cands {
		if !c.prune {
			continue
		}
		if err := pruneOne(fsys, opts, trash, c, report); err != nil {
			return err
		}
	}
	return nil
}

// selected reports whether c meets the conditions by itself.
func selected(c *candidate, opts PruneOptions) bool {
	if opts.Now.Sub(c.Info.ModTime()) < RecentlyModified || c.last.IsZero() || opts.Now.Sub(c.last) <= opts.OlderThan {
		return false
	}
	if opts.LargerThan > 0 && c.Info.Size() <= opts.LargerThan {
		return false
	}
	if opts.Project != "" {
		if _, ok := within(resolved(c.Header.Cwd), opts.Project); !ok {
			return false
		}
	}
	return true
}

// settleForks keeps every session a kept session forks from (and so on
// up), or with WithForks prunes the forks of pruned sessions (and so on
// down); a fork modified recently is kept either way, and so its parents.
func settleForks(cands []*candidate, opts PruneOptions) {
	parent := make([]int, len(cands)) // index of the session each forks from, -1 for none
	for i, c := range cands {
		parent[i] = -1
		info, err := os.Stat(c.Header.ParentSession)
		if c.Header.ParentSession == "" || err != nil {
			continue
		}
		for j, p := range cands {
			if os.SameFile(info, p.Info) {
				parent[i] = j
				break
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for i, c := range cands {
			p := parent[i]
			if p < 0 {
				continue
			}
			recent := opts.Now.Sub(c.Info.ModTime()) < RecentlyModified
			switch {
			case opts.WithForks && cands[p].prune && !c.prune && !recent:
				c.prune, c.fork, changed = true, true, true
			case (!opts.WithForks || recent) && !c.prune && cands[p].prune:
				cands[p].prune, changed = false, true
			}
		}
	}
}

// trashName is where path goes: its path relative to root, in trash.
func trashName(root, trash, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = filepath.Base(path)
	}
	return filepath.Join(trash, rel)
}

// pruneOne takes one session away and reports it.
func pruneOne(fsys safefile.FS, opts PruneOptions, trash string, c *candidate, report func(Pruned)) error {
	p := Pruned{File: c.Path, Action: "trashed", Bytes: c.Info.Size(), LastEntry: c.lastAt, Fork: c.fork}
	if opts.Delete {
		p.Action = "deleted"
	} else {
		p.To = trashName(opts.Root, trash, c.Path)
	}
	if opts.DryRun {
		p.Action = map[string]string{"trashed": "would-trash", "deleted": "would-delete"}[p.Action]
		report(p)
		return nil
	}
	if err := unchanged(fsys, c.Session); err != nil {
		return err
	}
	var err error
	if opts.Delete {
		err = safefile.Delete(fsys, c.Path)
	} else if err = safefile.MkdirAll(fsys, filepath.Dir(p.To), 0o777); err == nil {
		err = safefile.Move(fsys, c.Path, p.To) // a trash name that exists holds the same file or bytes (occupied)
	}
	if err != nil {
		return err
	}
	report(p)
	return nil
}

// tailWindow is how much of a file's end lastEntry reads for its last
// line; a longer last line is found by reading the whole file.
const tailWindow = 256 << 10

// lastEntry is the timestamp of the file's last entry that has one (the
// header's when none has), read from the end of the file.
func lastEntry(fsys safefile.FS, s Session) (time.Time, string) {
	f, err := fsys.Open(s.Path)
	if err != nil {
		return time.Time{}, ""
	}
	defer f.Close()
	size := s.Info.Size()
	start := max(size-tailWindow, 0)
	buf := make([]byte, size-start)
	if _, err := f.Seek(start, io.SeekStart); err == nil {
		if _, err := io.ReadFull(f, buf); err == nil {
			if at, text, ok := lastTimestamp(buf, start == 0); ok {
				return at, text
			}
		}
	}
	if start > 0 { // the last lines are longer than the window: read it all
		if _, err := f.Seek(0, io.SeekStart); err == nil {
			if at, text, ok := scanTimestamps(f); ok {
				return at, text
			}
		}
	}
	return headerTime(s)
}

// lastTimestamp finds the last complete line of buf with a timestamp;
// whole says buf starts at the file's start (its first line is complete).
func lastTimestamp(buf []byte, whole bool) (time.Time, string, bool) {
	var t session.Tape
	for end := len(buf); end > 0; {
		startAt := bytes.LastIndexByte(buf[:end], '\n') + 1
		if startAt == 0 && !whole {
			return time.Time{}, "", false
		}
		if at, text, ok := timestampOf(&t, bytes.TrimSuffix(buf[startAt:end], []byte("\r"))); ok {
			return at, text, true
		}
		end = startAt - 1
	}
	return time.Time{}, "", false
}

// scanTimestamps reads every line for the last timestamp.
func scanTimestamps(r io.Reader) (at time.Time, text string, found bool) {
	rd := session.NewReader(r, session.DefaultLimits())
	var t session.Tape
	for rd.Next() {
		if a, s, ok := timestampOf(&t, rd.Line().Raw); ok {
			at, text, found = a, s, true
		}
	}
	return at, text, found
}

// timestampOf is the timestamp of the entry (not the header) on line.
func timestampOf(t *session.Tape, line []byte) (time.Time, string, bool) {
	if _, ok := t.Line(line); !ok || t.StrOf(0, "type") == "session" {
		return time.Time{}, "", false
	}
	s := t.StrOf(0, "timestamp")
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, "", false
	}
	return at, string([]byte(s)), true
}

func headerTime(s Session) (time.Time, string) {
	at, err := time.Parse(time.RFC3339Nano, s.Header.Timestamp)
	if err != nil {
		return time.Time{}, ""
	}
	return at, s.Header.Timestamp
}
