// Package sessdir works on a sessions directory as a whole: it moves a
// project's sessions to the project's new path (Move) and prunes old ones
// (Prune). Both read only the headers of the sessions, hold a lock on the
// directory while they work, and change files through the safe rewrite
// protocol of internal/safefile, so that a run stopped half-way leaves
// every session whole and can be run again to finish.
package sessdir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// headerScanBytes is how far pi 1.6.0 reads for a session's header line
// (MAX_SESSION_HEADER_SCAN_BYTES): a file whose first line is longer is no
// session to pi's listing.
const headerScanBytes = 1 << 20

// A Session is one session file of the directory and what its header says.
type Session struct {
	Path   string // root joined with its name
	Header session.Header
	Info   fs.FileInfo // when the header was read
}

// A Refusal is an operation refused before it changed anything, or
// stopped where going on could lose data; Code is stable (docs/errors.md).
type Refusal struct {
	Code    string
	Message string
}

func (r *Refusal) Error() string { return r.Code + ": " + r.Message }

func refusef(code, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Message: fmt.Sprintf(format, args...)}
}

// The refusal codes.
const (
	NoSessions   = "no_sessions"        // move: no session's cwd is OLD or inside it
	TargetExists = "target_exists"      // move: a file of another content is where a session would go
	Changed      = "changed_during_run" // a session changed while the command worked (pi is writing it)
	Busy         = "busy"               // another move or prune holds the directory
	Collision    = "collision"          // move: two sessions would go to one name
)

// List reads the headers of the sessions under root, in pi's two layouts:
// root/*.jsonl (a sessionDir of pi's settings) and root/*/*.jsonl (pi's
// default, a directory per project). Symbolic links below root are not
// followed. A file whose first line is not a session header is left out,
// as pi's listing leaves it out. skipped, when not nil, is told of each
// file passed over (a link, a file that could not be read or is no
// session) and why.
func List(fsys safefile.FS, root string, skipped func(error)) ([]Session, error) {
	top, err := fsys.ReadDir(root)
	if err != nil {
		return nil, err
	}
	if skipped == nil {
		skipped = func(error) {}
	}
	var found []Session
	add := func(path string, d fs.DirEntry) {
		switch {
		case !strings.HasSuffix(path, ".jsonl"):
		case d.Type()&fs.ModeSymlink != 0:
			skipped(fmt.Errorf("%s: a symbolic link, not followed", path))
		case d.Type().IsRegular():
			if s, err := ReadSession(fsys, path); err != nil {
				skipped(err)
			} else {
				found = append(found, s)
			}
		}
	}
	for _, d := range top {
		name := filepath.Join(root, d.Name())
		switch {
		case d.Type().IsDir():
			sub, err := fsys.ReadDir(name)
			if err != nil {
				skipped(err)
				continue
			}
			for _, f := range sub {
				add(filepath.Join(name, f.Name()), f)
			}
		case d.Type()&fs.ModeSymlink != 0 && !strings.HasSuffix(name, ".jsonl"): // pi's listing follows a linked project directory
			skipped(fmt.Errorf("%s: a symbolic link, not followed", name))
		default:
			add(name, d)
		}
	}
	slices.SortFunc(found, func(a, b Session) int { return strings.Compare(a.Path, b.Path) })
	return found, nil
}

// ReadSession reads the header of the session file at path.
func ReadSession(fsys safefile.FS, path string) (Session, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return Session{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Session{}, err
	}
	line, _, err := firstLine(bufio.NewReader(f))
	if err != nil {
		return Session{}, fmt.Errorf("%s: %w", path, err)
	}
	var t session.Tape
	if _, ok := t.Line(line); !ok {
		return Session{}, fmt.Errorf("%s: line 1 is not a JSON object", path)
	}
	h := session.ReadHeader(&t)
	if h.Type != "session" {
		return Session{}, fmt.Errorf("%s: line 1 is not a session header", path)
	}
	h.Cwd, h.ParentSession, h.BranchedFrom = strings.Clone(h.Cwd), strings.Clone(h.ParentSession), strings.Clone(h.BranchedFrom)
	h.ID, h.Timestamp = strings.Clone(h.ID), strings.Clone(h.Timestamp)
	return Session{Path: path, Header: h, Info: info}, nil
}

// errLongHeader is a first line pi's listing does not read to its end.
var errLongHeader = errors.New("the header line is longer than pi reads (1 MiB)")

// firstLine reads the first line of r, without its terminator, which it
// returns apart ("\n", "\r\n" or "" at the end of the input).
func firstLine(r *bufio.Reader) (line []byte, end string, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > headerScanBytes {
			return nil, "", errLongHeader
		}
		switch {
		case err == nil:
			line = line[:len(line)-1]
			end = "\n"
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line, end = line[:n-1], "\r\n"
			}
			return line, end, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return line, "", nil
		default:
			return nil, "", err
		}
	}
}

// lockedList takes root's lock and lists its sessions (List); on success
// the caller releases the lock with unlock.
func lockedList(fsys safefile.FS, root string, skipped func(error)) (all []Session, unlock func(), err error) {
	if unlock, err = lock(fsys, root); err != nil {
		return nil, nil, err
	}
	if all, err = List(fsys, root, skipped); err != nil {
		unlock()
		return nil, nil, err
	}
	return all, unlock, nil
}

// lock takes the directory's lock (one move or prune at a time).
func lock(fsys safefile.FS, root string) (func(), error) {
	real, err := fsys.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	d, err := fsys.Open(real)
	if err != nil {
		return nil, err
	}
	if err := fsys.Lock(d); err != nil {
		d.Close()
		if errors.Is(err, safefile.ErrLocked) {
			return nil, refusef(Busy, "another pisess move or prune is working on %s: run again when it is done", root)
		}
		return nil, err
	}
	return func() { d.Close() }, nil
}

// unchanged reports whether the file at path is still what s read: the
// same file, size and modification time.
func unchanged(fsys safefile.FS, s Session) error {
	info, err := fsys.Lstat(s.Path)
	if err != nil {
		return err
	}
	if !os.SameFile(info, s.Info) || info.Size() != s.Info.Size() || !info.ModTime().Equal(s.Info.ModTime()) {
		return refusef(Changed, "%s changed while pisess worked (pi is writing it?): run again when pi is done with it", s.Path)
	}
	return nil
}
