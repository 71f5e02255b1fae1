package sessdir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pisess/pisess/internal/session"

	"github.com/pisess/pisess/internal/safefile"
)

// MoveOptions say what to move where.
type MoveOptions struct {
	Root     string // the sessions directory
	From, To string // the project's old and new directory, as session.PiCwd resolves them
	DryRun   bool
	// BackupSuffix, when set, keeps each rewritten file's original as
	// <file><suffix> beside its new generation.
	BackupSuffix string
	Temps        *safefile.Temps
	// Skipped, when set, is told of each file of the directory left alone
	// though it may be a session: a symbolic link, a file that could not
	// be read, a header line that is not one.
	Skipped func(error)
}

// A Change is what Move did (or would do) to one file.
type Change struct {
	File         string `json:"file"`   // where the file was
	Action       string `json:"action"` // moved, would-move, updated, would-update
	To           string `json:"to"`     // where it is now (File when it stayed)
	CwdBefore    string `json:"cwdBefore"`
	CwdAfter     string `json:"cwdAfter"`
	ParentBefore string `json:"parentSessionBefore,omitempty"`
	ParentAfter  string `json:"parentSessionAfter,omitempty"`
	Backup       string `json:"backup,omitempty"`
}

// job is one file's part of a move.
type job struct {
	Session
	dest   string            // where it goes (Path when it stays)
	cwd    string            // the new cwd, "" when it keeps its own
	refs   map[string]string // header member -> the new path it names
	linked bool              // dest is already another name of this file (a run stopped after the link)
}

// Move moves every session whose cwd is opts.From or inside it to
// opts.To: the header's cwd rewritten, the file put into the directory pi
// computes for the new cwd (session.DirName) when it lies in one of the
// project directories under the root (a file directly in the root stays,
// as pi's sessionDir setting keeps them), and every session's
// parentSession (and branchedFrom) that names a moved file made to name
// it where it went. Each change is reported to report in the order made.
//
// Nothing is changed when a refusal is found first: no session to move,
// a target that holds other bytes, two sessions bound for one name, or a
// file changed since its header was read. A file that changes later
// stops the run there: what was done is whole, and running again
// finishes. The order makes that so: references are updated first (to
// names that appear next), then each file is linked under its new name,
// its old name removed, and its header rewritten (mtime kept).
func Move(fsys safefile.FS, opts MoveOptions, report func(Change)) error {
	all, unlock, err := lockedList(fsys, opts.Root, opts.Skipped)
	if err != nil {
		return err
	}
	defer unlock()
	jobs, err := planMove(fsys, opts, all)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if err := unchanged(fsys, j.Session); err != nil {
			return err
		}
	}
	for _, moves := range []bool{false, true} { // references first, then the moves
		for _, j := range jobs {
			if (j.cwd != "") != moves {
				continue
			}
			if err := moveOne(fsys, opts, j, report); err != nil {
				return err
			}
		}
	}
	return nil
}

// planMove decides every file's job, or refuses.
func planMove(fsys safefile.FS, opts MoveOptions, all []Session) ([]*job, error) {
	root := filepath.Clean(opts.Root)
	var jobs []*job
	byDest := map[string]*job{}
	for _, s := range all {
		rest, ok := within(resolved(s.Header.Cwd), opts.From)
		if !ok {
			continue
		}
		j := &job{Session: s, dest: s.Path, cwd: join(opts.To, rest)}
		if filepath.Dir(filepath.Dir(s.Path)) == root {
			j.dest = filepath.Join(root, session.DirName(j.cwd), filepath.Base(s.Path))
		}
		if other := byDest[j.dest]; other != nil {
			same, err := sameSession(fsys, other.Session, s)
			if err != nil {
				return nil, err
			}
			if !same {
				return nil, refusef(Collision, "%s and %s would both be %s", other.Path, s.Path, j.dest)
			}
			if other.Path == other.dest { // other is the new name: this one is the old
				*other = *j
			}
			other.linked = true
			continue
		}
		byDest[j.dest] = j
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return nil, refusef(NoSessions, "no session under %s has its cwd in %s", opts.Root, opts.From)
	}
	for _, j := range jobs {
		if err := checkTarget(fsys, j); err != nil {
			return nil, err
		}
	}
	return append(referrers(opts, all, jobs), jobs...), nil
}

// sameSession reports whether a and b, bound for one name, are one
// session: the same file or the same bytes (the job half done).
func sameSession(fsys safefile.FS, a, b Session) (bool, error) {
	if os.SameFile(a.Info, b.Info) {
		return true, nil
	}
	if a.Info.Size() != b.Info.Size() {
		return false, nil
	}
	return safefile.SameBytes(fsys, a.Path, b.Path)
}

// occupied reports whether to holds s already, the same file or bytes (the
// move half done); other bytes are refused (TargetExists, ending in fix).
func occupied(fsys safefile.FS, s Session, to, fix string) (bool, error) {
	info, err := fsys.Lstat(to)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case os.SameFile(info, s.Info):
		return true, nil
	}
	same, err := safefile.SameBytes(fsys, s.Path, to)
	if err == nil && !same {
		err = refusef(TargetExists, "%s would go to %s, which holds another file: %s", s.Path, to, fix)
	}
	return same, err
}

// checkTarget refuses a target name that holds other bytes (occupied).
func checkTarget(fsys safefile.FS, j *job) (err error) {
	if j.dest != j.Path && !j.linked {
		j.linked, err = occupied(fsys, j.Session, j.dest, "move it away first")
	}
	return err
}

// A rename is where a session file goes: its directory's old and new
// names, and the file when it is still under the old one.
type rename struct {
	oldDir, name, newDir string
	info                 fs.FileInfo // nil for a file a stopped run moved already
}

// referrers adds to the jobs the reference updates: a session whose
// parentSession or branchedFrom names a file that moves (or moved, in a
// run stopped half-way: the name is gone and the file is in the new
// project's directory) names it where it goes.
func referrers(opts MoveOptions, all []Session, jobs []*job) []*job {
	moving := map[string]*job{}
	bound := map[string]bool{} // the new names, which a stopped run may have made already
	var renames []rename
	for _, j := range jobs {
		moving[j.Path] = j
		if j.dest != j.Path {
			bound[j.dest] = true
			renames = append(renames, rename{filepath.Base(filepath.Dir(j.Path)), filepath.Base(j.Path), filepath.Base(filepath.Dir(j.dest)), j.Info})
		}
	}
	renames = append(renames, settled(opts, all)...)
	var out []*job
	for _, s := range all {
		if bound[s.Path] { // another name of a moving file, or a copy of it: its job writes it
			continue
		}
		refs := map[string]string{}
		for key, ref := range map[string]string{"parentSession": s.Header.ParentSession, "branchedFrom": s.Header.BranchedFrom} {
			if to := newName(ref, renames); to != "" {
				refs[key] = to
			}
		}
		if len(refs) == 0 {
			continue
		}
		if j := moving[s.Path]; j != nil {
			j.refs = refs
			continue
		}
		out = append(out, &job{Session: s, dest: s.Path, refs: refs})
	}
	return out
}

// settled are the renames an earlier run of the same move finished:
// files already in the directory pi computes for their cwd after the move
// (their header rewritten or not), which came from the one of the cwd
// before it.
func settled(opts MoveOptions, all []Session) []rename {
	root := filepath.Clean(opts.Root)
	var out []rename
	for _, s := range all {
		cwd := resolved(s.Header.Cwd)
		rest, ok := within(cwd, opts.To)
		if old, isOld := within(cwd, opts.From); isOld {
			rest, ok = old, true
		}
		dir := filepath.Dir(s.Path)
		newDir, oldDir := session.DirName(join(opts.To, rest)), session.DirName(join(opts.From, rest))
		if !ok || filepath.Dir(dir) != root || filepath.Base(dir) != newDir || newDir == oldDir {
			continue
		}
		out = append(out, rename{oldDir, filepath.Base(s.Path), newDir, nil})
	}
	return out
}

// newName is the name a reference to a moving file must take ("" when ref
// names none): the file's new directory put in place of its old one, so a
// reference written through a link to the sessions directory stays so.
func newName(ref string, renames []rename) string {
	if ref == "" {
		return ""
	}
	info, err := os.Stat(ref)
	for _, r := range renames {
		if r.info != nil && err == nil && os.SameFile(info, r.info) ||
			r.info == nil && errors.Is(err, fs.ErrNotExist) && filepath.Base(ref) == r.name && filepath.Base(filepath.Dir(ref)) == r.oldDir {
			return filepath.Join(filepath.Dir(filepath.Dir(ref)), r.newDir, r.name)
		}
	}
	return ""
}

// join is dir followed by rest ("" or "/…"), as the move makes a cwd.
func join(dir, rest string) string {
	if dir == "/" && rest != "" {
		return rest
	}
	return dir + rest
}

// moveOne does one job and reports it.
func moveOne(fsys safefile.FS, opts MoveOptions, j *job, report func(Change)) error {
	c := Change{File: j.Path, To: j.dest, CwdBefore: j.Header.Cwd, CwdAfter: j.Header.Cwd,
		ParentBefore: j.Header.ParentSession, ParentAfter: j.refs["parentSession"]}
	if c.ParentAfter == "" {
		c.ParentBefore = ""
	}
	c.Action = "updated"
	if j.cwd != "" {
		c.Action, c.CwdAfter = "moved", j.cwd
	}
	if opts.DryRun {
		c.Action = "would-" + strings.TrimSuffix(c.Action, "d")
		report(c)
		return nil
	}
	if err := unchanged(fsys, j.Session); err != nil {
		return err
	}
	if j.dest != j.Path {
		if err := relink(fsys, j); err != nil {
			return err
		}
	}
	out, err := safefile.Rewrite(fsys, j.dest, safefile.RewriteOptions{BackupSuffix: opts.BackupSuffix, Temps: opts.Temps,
		Verify: verifyHeader(j)}, editHeader(j))
	if err != nil {
		return err
	}
	c.Backup = out.Backup
	report(c)
	return nil
}

// relink moves the file to its new name (safefile.Move: never absent,
// never in two places with two contents).
func relink(fsys safefile.FS, j *job) error {
	if err := safefile.MkdirAll(fsys, filepath.Dir(j.dest), 0o777); err != nil { // pi's mkdirSync: 0777 less the umask
		return err
	}
	return safefile.Move(fsys, j.Path, j.dest)
}

// editHeader rewrites the header's cwd and references, every other byte kept.
func editHeader(j *job) safefile.Generator {
	return func(in io.ReadSeeker, out io.Writer) error {
		br := bufio.NewReaderSize(in, 64<<10)
		line, end, err := firstLine(br)
		if err != nil {
			return err
		}
		var t session.Tape
		if _, ok := t.Line(line); !ok {
			return fmt.Errorf("line 1 is no longer a JSON object")
		}
		var e session.Editor
		e.Reset(&t)
		if j.cwd != "" {
			e.Set(0, "cwd", session.Quote(j.cwd))
		}
		for key, to := range j.refs {
			e.Set(0, key, session.Quote(to))
		}
		if _, err := e.WriteTo(out); err != nil {
			return err
		}
		if _, err := io.WriteString(out, end); err != nil {
			return err
		}
		_, err = io.Copy(out, br)
		return err
	}
}

// verifyHeader checks the new generation's header says what the job wrote.
func verifyHeader(j *job) safefile.VerifyFunc {
	return func(name string, r io.Reader) error {
		line, _, err := firstLine(bufio.NewReader(r))
		if err != nil {
			return err
		}
		var t session.Tape
		if _, ok := t.Line(line); !ok {
			return fmt.Errorf("%s: the new header is not a JSON object", name)
		}
		h := session.ReadHeader(&t)
		if j.cwd != "" && h.Cwd != j.cwd {
			return fmt.Errorf("%s: the new header's cwd is %q, not %q", name, h.Cwd, j.cwd)
		}
		if to, ok := j.refs["parentSession"]; ok && h.ParentSession != to {
			return fmt.Errorf("%s: the new header's parentSession is %q, not %q", name, h.ParentSession, to)
		}
		return nil
	}
}

// resolved is a header's cwd as pi reads it ("" when it is none pi can).
func resolved(cwd string) string {
	if cwd == "" {
		return ""
	}
	abs, _ := session.PiCwd(cwd) // "" with an error
	return abs
}

// within reports whether path is dir or inside it, and what follows dir
// (from its separator on: '/', or the system's).
func within(path, dir string) (rest string, ok bool) {
	switch {
	case path == "":
		return "", false
	case path == dir:
		return "", true
	case dir == "/":
		return path, true
	case len(path) > len(dir) && strings.HasPrefix(path, dir) && (path[len(dir)] == '/' || path[len(dir)] == filepath.Separator):
		return path[len(dir):], true
	}
	return "", false
}
