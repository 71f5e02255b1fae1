package fix

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// ForkPlan is a new session built from one leaf's path.
type ForkPlan struct {
	SessionID string // the new session's id (a UUIDv7, as pi's)
	Name      string // <timestamp>_<id>.jsonl, pi's file name for it
	Leaf      string // the source leaf
	Entries   int    // entries written (labels included)

	s      *project.Session
	path   []*project.Entry
	labels []label // those of the kept targets
	kept   map[string]bool
	header []byte
	random io.Reader // the label entries' ids
}

// Fork plans the session pi 1.6.0's SessionManager.createBranchedSession
// writes for leaf (session-manager.js):
//
//   - the path from the root to leaf, each entry copied byte for byte
//     except parentId, which names the previous entry kept: label entries
//     are left out of the chain;
//   - a compaction's firstKeptEntryId that named a label left out names the
//     next entry kept instead;
//   - then, chained after the last entry, one label entry per labelled
//     entry of the path (pi's resolved labels, in the order pi's map keeps
//     them, with the timestamp of the label entry that set them);
//   - a header {type, version 3, id, timestamp, cwd (the source's, as
//     pi's SessionManager holds it: session.PiCwd), parentSession: the absolute
//     path of the source}.
//
// s is the source at version 3 (ForkFile migrates older files first).
// id and now are the new session's id and time; random draws the label
// entries' ids. The plan's write writes the session.
func Fork(s *project.Session, leaf *project.Entry, source, id string, now time.Time, random io.Reader) (*ForkPlan, error) {
	path, err := s.Path(leaf)
	if err != nil {
		return nil, cycleRefusal(err)
	}
	ts := isoTime(now)
	p := &ForkPlan{SessionID: id, Name: strings.NewReplacer(":", "-", ".", "-").Replace(ts) + "_" + id + ".jsonl", Leaf: leaf.ID(),
		s: s, path: path, kept: map[string]bool{}, random: random}
	var header session.ObjectWriter
	header.String("type", "session")
	header.Member("version", json.RawMessage("3"))
	header.String("id", id)
	header.String("timestamp", ts)
	if raw, ok := s.Header.Field("cwd"); ok {
		if raw[0] != '"' { // not a string: validate refuses it
			header.Member("cwd", raw)
		} else if cwd, err := session.PiCwd(s.Header.Cwd); err != nil {
			return nil, &safefile.Error{Code: safefile.Unsupported, Line: 1, Err: err}
		} else {
			header.String("cwd", cwd)
		}
	}
	header.String("parentSession", source)
	p.header = header.Bytes()
	for _, e := range path {
		if e.Type() != "label" {
			p.kept[e.ID()] = true
			p.Entries++
		}
	}
	if p.labels, err = resolvedLabels(s, p.kept); err != nil {
		return nil, err
	}
	p.Entries += len(p.labels)
	return p, nil
}

// write writes the new session to w, reading the path's entries back from
// the source one at a time. With whole set, an entry of the path not in it
// is written cut down to what the index keeps of it (stub): the dry
// run's stand-in. A failing w stops it.
func (p *ForkPlan) write(w io.Writer, whole map[*project.Entry]bool) error {
	bw := bufio.NewWriter(w)
	var werr error // bw's first error, which it keeps: nothing is written after it
	line := func(b []byte) {
		bw.Write(b)
		werr = bw.WriteByte('\n')
	}
	line(p.header)
	replacement := map[string]string{} // label id -> the next entry kept
	var pending []string
	parent := json.RawMessage("null")
	rd := p.s.Records()
	for _, e := range p.path {
		if werr != nil {
			return werr
		}
		if e.Type() == "label" {
			pending = append(pending, e.ID())
			continue
		}
		for _, l := range pending {
			replacement[l] = e.ID()
		}
		pending = pending[:0]
		if whole != nil && !whole[e] {
			line(stub(e, parent))
			parent = jsonString(e.ID())
			continue
		}
		r, err := rd.Read(e)
		if err != nil {
			return &safefile.Error{Code: safefile.ReadFailed, Err: err}
		}
		set := []member{{"parentId", parent}}
		if first, ok := r.Tape.Str(r.Member("firstKeptEntryId")); ok && e.Type() == "compaction" && first != e.ID() {
			if id, ok := replacement[first]; ok {
				set = append(set, member{"firstKeptEntryId", jsonString(id)})
			}
		}
		line(setMembers(&r.Tape, set...))
		parent = jsonString(e.ID())
	}
	for _, l := range p.labels {
		lid := newEntryID(p.kept, p.random)
		var w session.ObjectWriter
		w.String("type", "label")
		w.String("id", lid)
		w.Member("parentId", parent)
		w.Member("timestamp", l.timestamp) // left out when nil
		w.String("targetId", l.target)
		w.Member("label", l.label)
		line(w.Bytes())
		parent = jsonString(lid)
	}
	return bw.Flush()
}

// stub is an entry cut down to what the index keeps of it ("" is no id,
// no parent, no role to the index too), its parentId parent.
func stub(e *project.Entry, parent json.RawMessage) []byte {
	var w session.ObjectWriter
	w.String("type", e.Type())
	w.String("id", e.ID())
	w.Member("parentId", parent)
	if e.Type() == "message" {
		var m session.ObjectWriter
		m.String("role", e.Role())
		w.Member("message", m.Bytes())
	}
	return w.Bytes()
}

// label is one resolved label: its target, value and the timestamp of the
// label entry that set it.
type label struct {
	target    string
	label     json.RawMessage
	timestamp json.RawMessage
}

// resolvedLabels replays the label entries in file order as pi's
// _buildIndex does into a JavaScript Map: a truthy label sets it (a target
// already there keeps its place), anything else deletes it. It returns
// those of the kept targets.
func resolvedLabels(s *project.Session, kept map[string]bool) ([]label, error) {
	var order []string
	byTarget := map[string]label{}
	rd := s.Records()
	for _, e := range s.Entries {
		if e.Type() != "label" {
			continue
		}
		r, err := rd.Read(e)
		if err != nil {
			return nil, &safefile.Error{Code: safefile.ReadFailed, Err: err}
		}
		l := label{target: r.Str("targetId"), label: r.Raw("label"), timestamp: r.Raw("timestamp")}
		_, set := byTarget[l.target]
		if session.JSTruthy(l.label) {
			if !set {
				order = append(order, l.target)
			}
			byTarget[l.target] = l
		} else if set {
			delete(byTarget, l.target)
			order = slices.DeleteFunc(order, func(t string) bool { return t == l.target })
		}
	}
	var out []label
	for _, t := range order {
		if kept[t] {
			out = append(out, byTarget[t])
		}
	}
	return out, nil
}

// newEntryID draws a random 8-hex id not in taken, as pi's generateId, and
// adds it to taken.
func newEntryID(taken map[string]bool, random io.Reader) string {
	for {
		var b [4]byte
		readRandom(random, b[:])
		if id := hex.EncodeToString(b[:]); !taken[id] {
			taken[id] = true
			return id
		}
	}
}

// readRandom fills b from random, else from crypto/rand (whose Read never
// fails since Go 1.24).
func readRandom(random io.Reader, b []byte) {
	if random != nil {
		if _, err := io.ReadFull(random, b); err == nil {
			return
		}
	}
	_, _ = rand.Read(b)
}

// NewSessionID returns a UUIDv7 (RFC 9562) for now, as pi's createSessionId.
func NewSessionID(now time.Time, random io.Reader) string {
	var u [16]byte
	readRandom(random, u[:])
	// the 48-bit timestamp, before the two random bytes of u[6:8]
	binary.BigEndian.PutUint64(u[:8], uint64(now.UnixMilli())<<16|uint64(binary.BigEndian.Uint16(u[6:8])))
	u[6] = u[6]&0x0f | 0x70
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// ForkFile writes the path of a leaf of the file at source as a new
// session: created exclusively (never over an existing file), fsynced, its
// directory fsynced. The source is only read. The new session is checked
// before it is synced (a dry run writes it to a temporary file, removed).
func ForkFile(fsys safefile.FS, source string, opts Options) (r Report, err error) {
	r = Report{File: source, Action: "refused"}
	defer func() {
		var e *safefile.Error
		if errors.As(err, &e) {
			if e.Path == "" {
				e.Path = source
			}
			if e.Code == safefile.VerifyFailed {
				r = Report{File: source, Action: "refused"}
			}
		}
	}()
	abs, err := filepath.Abs(source)
	if err != nil {
		return r, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	f, perm, err := openRegular(fsys, source)
	if err != nil {
		return r, err
	}
	defer f.Close()
	in, name, done, err := atVersion3(f, source, opts.Validate.Limits, opts.Temps)
	if err != nil {
		return r, err
	}
	defer done()
	l, err := load(in, name, source, opts)
	if err != nil {
		return r, err
	}
	defer l.s.Close()
	plan, err := Fork(l.s, l.leaf, abs, NewSessionID(opts.Now, opts.Random), opts.Now, opts.Random)
	if err != nil {
		return r, err
	}
	r.Leaf, r.Session, r.Entries = plan.Leaf, plan.SessionID, plan.Entries
	r.Output = cmp.Or(opts.Output, filepath.Join(filepath.Dir(abs), plan.Name))
	write := func(w io.Writer, name string) error {
		if err := plan.write(w, nil); err != nil {
			return err
		}
		return checkFailed(sameContext(l, name, opts.Validate.Limits))
	}
	if opts.DryRun {
		err = dryRunCheck(plan, l, opts.Validate.Limits)
	} else {
		err = safefile.Create(fsys, r.Output, perm, opts.Temps, write)
	}
	if err != nil {
		return r, err
	}
	r.Action = action("fork", true, opts.DryRun)
	if opts.DryRun {
		if _, err := fsys.Lstat(r.Output); err == nil {
			return r, &safefile.Error{Code: safefile.CreateFailed, Path: r.Output, Err: safefile.ErrExists}
		}
	}
	return r, nil
}

// openRegular opens a regular file, through symbolic links (fork and
// slim --rewrite --output only read it), and returns its permission bits.
// Anything else is refused before it is opened: opening a FIFO would wait
// for a writer.
func openRegular(fsys safefile.FS, path string) (safefile.File, os.FileMode, error) {
	if target, err := fsys.EvalSymlinks(path); err == nil {
		path = target // fsys.Open does not follow a link
	}
	if info, err := fsys.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return nil, 0, &safefile.Error{Code: safefile.NotRegular, Err: fmt.Errorf("not a regular file (%s)", info.Mode().Type())}
	}
	f, err := fsys.Open(path)
	if err != nil {
		return nil, 0, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	info, err := f.Stat()
	switch {
	case err != nil:
		err = &safefile.Error{Code: safefile.ReadFailed, Err: err}
	case !info.Mode().IsRegular():
		err = &safefile.Error{Code: safefile.NotRegular, Err: fmt.Errorf("not a regular file (%s)", info.Mode().Type())}
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Mode().Perm(), nil
}

// atVersion3 returns the source of a fork as pi reads it, and its name: a
// version-1 or 2 file migrated into a temporary file of the system's (the
// index reads entries back from a file; done removes it; it is recorded in
// temps meanwhile), any other as it is (load reports what is wrong with
// it).
func atVersion3(f safefile.File, name string, limits session.Limits, temps *safefile.Temps) (io.ReadSeeker, string, func(), error) {
	v, err := migrate.PeekVersion(f, limits)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, "", nil, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	if err != nil || v >= project.CurrentVersion {
		return f, name, func() {}, nil
	}
	tmp, err := safefile.Scratch(temps, "pisess-fork-*.jsonl")
	if err != nil {
		return nil, "", nil, err
	}
	done := func() { tmp.Close() }
	if _, err = migrate.Migrate(f, tmp, limits); err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		done()
		return nil, "", nil, err
	}
	return tmp, tmp.Name(), done, nil
}

// sameContext checks that the context of the fork in the file at name
// equals the source's at the leaf.
func sameContext(l *loaded, name string, limits session.Limits) error {
	want, err := l.s.Context(l.leaf)
	if err != nil {
		return err
	}
	s, err := project.Open(name, limits)
	if err != nil {
		return err
	}
	defer s.Close()
	return sameMessages(want, s)
}

// sameMessages checks that the context of s at its last entry has the
// messages of want.
func sameMessages(want *project.Context, s *project.Session) error {
	got, err := s.Context(s.DefaultLeaf())
	if err != nil {
		return err
	}
	differs := len(got.Messages) != len(want.Messages)
	for i := 0; !differs && i < len(got.Messages); i++ {
		differs = !sameJSON(want.Messages[i], got.Messages[i])
	}
	if differs {
		return errors.New("the new session's context differs from the source's at the leaf")
	}
	return nil
}

// sameJSON compares two messages as their JSON encodings (compacted), one
// at a time: no copy of the whole context.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// dryRunCheck is the dry run's sameContext, with nothing written: it
// checks a stand-in of the new session in memory (the path's entries in
// the source's context whole, the others cut down to what the index keeps
// of them, then the labels: memory per context entry, as the source's
// context itself), read in the dialect the start of the whole file gives.
func dryRunCheck(plan *ForkPlan, l *loaded, limits session.Limits) error {
	want, err := l.s.Context(l.leaf)
	if err != nil {
		return checkFailed(err)
	}
	start := &prefixWriter{max: session.SniffBytes}
	if err := plan.write(start, nil); err != nil && err != errPrefixFull {
		return err
	}
	whole := make(map[*project.Entry]bool, len(want.Entries))
	for _, e := range want.Entries {
		whole[e] = true
	}
	pr, pw := io.Pipe() // the stand-in is held once, by Load
	written := make(chan error, 1)
	go func() {
		err := plan.write(pw, whole)
		pw.CloseWithError(err)
		written <- err
	}()
	s, err := project.Load(pr, limits)
	pr.CloseWithError(errPrefixFull) // stops the writer if Load stopped early
	if werr := <-written; werr != nil && werr != errPrefixFull {
		return werr // reading the source failed
	}
	if err == nil {
		s.Dialect = session.SniffDialect(start.b)
		err = sameMessages(want, s)
	}
	return checkFailed(err)
}

// prefixWriter keeps the first max bytes written to it, then fails.
type prefixWriter struct {
	b   []byte
	max int
}

var errPrefixFull = errors.New("enough")

func (w *prefixWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.max-len(w.b))
	w.b = append(w.b, p[:n]...)
	if n < len(p) {
		return n, errPrefixFull
	}
	return n, nil
}
