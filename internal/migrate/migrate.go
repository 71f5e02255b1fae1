package migrate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"

	"github.com/pisess/pisess/internal/safefile"
)

// CurrentVersion is the session format version Migrate produces.
const CurrentVersion = session.CurrentVersion

// Result describes one migration.
type Result struct {
	From, To int  // header version before and after
	Changed  bool // the output differs from the input
	Lines    int  // physical lines read
	Entries  int  // records after the header
	// Notes are decisions a reader should know about, as warnings (for
	// example a v1 firstKeptEntryIndex that named no entry).
	Notes []finding.Finding
}

// Migrate copies the session read from in to out, migrated to version 3
// (session-format.md section 8) by editing raw line bytes: keys are added at
// the end of their object, a changed value is replaced where it stands, and
// every other byte (key order, number formatting, escapes, whitespace, line
// terminators, blank lines, a torn last line, a torn line mid-file) is
// copied unchanged. Ids for version-1 entries come from session.NewIDs, so
// the same input gives the same output. A version-3 file is copied byte for
// byte with Changed false.
//
// Migrate reads in twice: a first pass checks the file and maps record
// indexes to lines (a v1 firstKeptEntryIndex may name a later record), the
// second writes. Memory grows with the number of records, not their size.
// A file with a corrupt line (parse level, including concatenated objects)
// is refused with a *safefile.Error carrying the finding; nothing useful
// is written to out then.
func Migrate(in io.ReadSeeker, out io.Writer, limits session.Limits) (Result, error) {
	s, err := scanSession(in, limits, false)
	if err != nil {
		return Result{}, err
	}
	res := Result{From: s.version, To: CurrentVersion, Changed: s.version < CurrentVersion,
		Lines: s.lines, Entries: len(s.recLine) - 1}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return Result{}, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	if !res.Changed {
		tw := &trackingWriter{w: out}
		if _, err := io.Copy(tw, in); err != nil {
			if tw.failed {
				return Result{}, &safefile.Error{Code: safefile.WriteFailed, Err: err}
			}
			return Result{}, &safefile.Error{Code: safefile.ReadFailed, Err: err}
		}
		return res, nil
	}
	w := &rewriter{scanned: s, ids: s.assignIDs(), limits: limits}
	if err := w.run(in, out); err != nil {
		return Result{}, err
	}
	res.Notes = w.notes
	return res, nil
}

// trackingWriter remembers whether a write failed (io.Copy's error is either).
type trackingWriter struct {
	w      io.Writer
	failed bool
}

func (t *trackingWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.failed = t.failed || err != nil
	return n, err
}

// PeekVersion reads the header of the session in r and returns its version
// (1, 2 or 3). It refuses what Migrate would refuse about the header.
func PeekVersion(r io.Reader, limits session.Limits) (int, error) {
	s, err := scanSession(r, limits, true)
	if err != nil {
		return 0, err
	}
	return s.version, nil
}

// scanned is what the first pass learns about a file.
type scanned struct {
	version   int
	sessionID string
	recLine   []int // record index → physical line (index 0 is the header)
	lines     int
}

// scanSession is the first pass: it refuses corruption and anything that is
// not a migratable session, and records where each record is. With
// headerOnly it stops after the header.
func scanSession(in io.Reader, limits session.Limits, headerOnly bool) (*scanned, error) {
	s := &scanned{}
	rd := session.NewReader(in, limits)
	var t session.Tape
	for rd.Next() {
		l := rd.Line()
		s.lines = l.Num
		if f, ok := l.BOMFinding(); ok {
			return nil, refuse(safefile.RefusedCorrupt, f)
		}
		switch l.Class {
		case session.Blank, session.PartialTail:
			continue // not records: pi's loader skips them
		case session.TornLine:
			if len(s.recLine) == 0 {
				return nil, refuse(safefile.RefusedCorrupt, tornHeader(l))
			}
			continue // not a record: pi's loader skips it
		case session.Object:
		default:
			return nil, lostByPi(l)
		}
		if len(s.recLine) == 0 && isTitleSlot(l) {
			continue // omp's title slot: no record, copied as it is
		}
		if len(s.recLine) == 0 {
			h, err := readHeader(&t, l)
			if err != nil {
				return nil, err
			}
			s.version, s.sessionID = h.Version, strings.Clone(h.ID)
			if headerOnly {
				return s, nil
			}
		} else if err := readEntry(&t, l); err != nil {
			return nil, err
		}
		s.recLine = append(s.recLine, l.Num)
	}
	if err := readError(rd.Err(), s.lines+1); err != nil {
		return nil, err
	}
	if len(s.recLine) == 0 {
		return nil, refuse(safefile.RefusedCorrupt, finding.Errorf(finding.MissingHeader, 1, "the file holds no session header"))
	}
	return s, nil
}

// readEntry checks one entry record in the first pass.
func readEntry(t *session.Tape, l *session.Line) error {
	if err := t.Build(l.Object(0)); err != nil {
		return unreadable(l.Num, err)
	}
	typ, err := stringMember(t, l, "type")
	if typ == "session" {
		return refuse(safefile.RefusedCorrupt, finding.Errorf(finding.MisplacedHeader, l.Num, "a session header after line 1"))
	}
	return err
}

// readHeader reads the header line on tape t as session.ReadHeader does
// (absent or null version is 1; the id shares the line). A duplicated
// type, version or id is refused: an edit could not be made safely.
func readHeader(t *session.Tape, l *session.Line) (session.Header, error) {
	if err := t.Build(l.Object(0)); err != nil {
		return session.Header{}, unreadable(l.Num, err)
	}
	for _, key := range []string{"type", "version", "id"} {
		if _, err := unique(t, 0, key); err != nil {
			return session.Header{}, malformed(l.Num, "/"+key, err)
		}
	}
	h := session.ReadHeader(t)
	if h.Type != "session" {
		if h.HasKind {
			return session.Header{}, refuse(safefile.Unsupported, finding.Errorf(finding.UnsupportedVersion, l.Num,
				"the first record is not a version 1-3 session header (a newer pi format?): pisess does not migrate it"))
		}
		return session.Header{}, refuse(safefile.Unsupported, finding.Errorf(finding.NotASession, l.Num,
			"the first record is not a session header (type %q): not a pi session", h.Type))
	}
	if !h.VersionOK {
		return session.Header{}, refuse(safefile.Unsupported, finding.Errorf(finding.UnsupportedVersion, l.Num,
			"header version %s is not 1, 2 or 3", h.VersionText).WithPointer("/version"))
	}
	if h.ID == "" {
		return session.Header{}, refuse(safefile.RefusedCorrupt, finding.Errorf(finding.Schema, l.Num,
			"the session header has no id").WithPointer("/id"))
	}
	return h, nil
}

// stringMember returns the string value of key name ("" when absent or not
// a string), refusing a duplicated key.
func stringMember(t *session.Tape, l *session.Line, name string) (string, error) {
	v, err := unique(t, 0, name)
	if err != nil {
		return "", malformed(l.Num, "/"+name, err)
	}
	s, _ := t.Str(v)
	return s, nil
}

// assignIDs gives every record of a version-1 file its id, in file order:
// ids[i] is the id of record i (ids[0], the header, stays empty). Like pi,
// migration overwrites any id a v1 entry already has, so no existing id
// survives to collide with; session.NewIDs keeps the new ones unique, and
// the project package derives the same ids for v1 files it reads.
func (s *scanned) assignIDs() []string {
	if s.version > 1 {
		return nil
	}
	gen := session.NewIDs(s.sessionID)
	ids := make([]string, len(s.recLine))
	for i := 1; i < len(ids); i++ {
		ids[i] = gen.For(s.recLine[i])
	}
	return ids
}

// rewriter is the second pass: it copies every line, editing records.
type rewriter struct {
	*scanned
	ids    []string
	limits session.Limits
	ed     session.Editor
	tape   session.Tape
	notes  []finding.Finding
}

func (w *rewriter) run(in io.Reader, out io.Writer) error {
	bw := bufio.NewWriterSize(out, 64<<10)
	rd := session.NewReader(in, w.limits)
	rec := 0
	for rd.Next() {
		l := rd.Line()
		w.ed.Reset(&w.tape)
		if l.BOM {
			return changedBetweenPasses(l.Num) // the first pass refused a BOM
		}
		switch l.Class {
		case session.Blank, session.PartialTail, session.TornLine:
		case session.Object:
			if rec == 0 && isTitleSlot(l) {
				break // omp's title slot: written back byte for byte
			}
			if rec >= len(w.recLine) || w.recLine[rec] != l.Num {
				return changedBetweenPasses(l.Num)
			}
			if err := w.edit(l, rec); err != nil {
				return err
			}
			rec++
		default:
			return changedBetweenPasses(l.Num)
		}
		if err := w.writeLine(bw, l); err != nil {
			return err
		}
	}
	if err := readError(rd.Err(), w.lines+1); err != nil {
		return err
	}
	if rec != len(w.recLine) {
		return changedBetweenPasses(w.lines)
	}
	if err := bw.Flush(); err != nil {
		return &safefile.Error{Code: safefile.WriteFailed, Err: err}
	}
	return nil
}

// edit queues the migration edits of record rec on line l.
func (w *rewriter) edit(l *session.Line, rec int) error {
	if err := w.tape.Build(l.Object(0)); err != nil {
		return unreadable(l.Num, err)
	}
	if rec == 0 {
		w.ed.Set(0, "version", []byte("3")) // readHeader refused a duplicated version
		return nil
	}
	return w.editEntry(l, rec)
}

// writeLine writes line l, its object edited, with its own terminator.
func (w *rewriter) writeLine(bw *bufio.Writer, l *session.Line) error {
	if !w.ed.Changed() {
		return writeRaw(bw, l.Raw, ownTerminator(l))
	}
	span := l.Objects[0]
	if _, err := bw.Write(l.Raw[:span[0]]); err != nil {
		return &safefile.Error{Code: safefile.WriteFailed, Err: err}
	}
	if _, err := w.ed.WriteTo(bw); err != nil {
		if errors.Is(err, session.ErrOverlap) || errors.Is(err, session.ErrNotObject) {
			return malformed(l.Num, "", err)
		}
		return &safefile.Error{Code: safefile.WriteFailed, Err: err}
	}
	return writeRaw(bw, l.Raw[span[1]:], ownTerminator(l))
}

// editEntry applies v1→v2 (ids, parentId, firstKeptEntryId) and v2→v3
// (hookMessage → custom) to one entry.
func (w *rewriter) editEntry(l *session.Line, rec int) error {
	typ, err := stringMember(&w.tape, l, "type")
	if err != nil {
		return err
	}
	if w.version == 1 {
		if err := w.addLinks(l, rec, typ); err != nil {
			return err
		}
	}
	if typ == "message" {
		return w.renameHookMessage(l)
	}
	return nil
}

// addLinks gives a version-1 entry its id and parentId and turns a
// compaction's firstKeptEntryIndex into firstKeptEntryId. Like pi, it
// assigns existing keys in place and appends new ones in the order id,
// parentId, firstKeptEntryId.
func (w *rewriter) addLinks(l *session.Line, rec int, typ string) error {
	id := w.ids[rec]
	parent := []byte("null")
	if rec > 1 {
		parent = session.Quote(w.ids[rec-1])
	}
	if err := w.set(l, "id", session.Quote(id)); err != nil {
		return err
	}
	if err := w.set(l, "parentId", parent); err != nil {
		return err
	}
	if typ != "compaction" {
		return nil
	}
	v, err := unique(&w.tape, 0, "firstKeptEntryIndex")
	if err != nil {
		return malformed(l.Num, "/firstKeptEntryIndex", err)
	}
	if v < 0 {
		return nil
	}
	target, err := w.firstKept(l, v, rec)
	if err != nil {
		return err
	}
	w.ed.Delete(0, "firstKeptEntryIndex")
	return w.set(l, "firstKeptEntryId", session.Quote(target))
}

// set sets member name of the record, refusing a duplicated key.
func (w *rewriter) set(l *session.Line, name string, value []byte) error {
	if _, err := unique(&w.tape, 0, name); err != nil {
		return malformed(l.Num, "/"+name, err)
	}
	w.ed.Set(0, name, value)
	return nil
}

// firstKept returns the id for a v1 firstKeptEntryIndex: the id given to
// the record at that index (header = 0; it may be the compaction itself or
// a later record). An index that names no entry becomes the compaction's
// own id, which keeps nothing before the compaction, as pi's projection
// does for an id it cannot find; a note says so.
func (w *rewriter) firstKept(l *session.Line, v, rec int) (string, error) {
	if w.tape.Kind(v) != session.KindNumber {
		return "", refuse(safefile.RefusedCorrupt, finding.Errorf(finding.Schema, l.Num,
			"firstKeptEntryIndex is not a number").WithPointer("/firstKeptEntryIndex"))
	}
	// A number too large for a double (JSON.parse: ±Infinity) names no entry.
	if n, ok := numberValue(&w.tape, v); ok && n == math.Trunc(n) && n >= 1 && n < float64(len(w.recLine)) {
		return w.ids[int(n)], nil
	}
	self := w.ids[rec]
	w.notes = append(w.notes, finding.Warnf(finding.DanglingFirstKept, l.Num,
		"firstKeptEntryIndex %s names no entry (the header is 0, the last record %d); firstKeptEntryId is set to the compaction's own id, which keeps nothing before it",
		w.tape.Raw(v), len(w.recLine)-1).WithEntry(self).WithPointer("/firstKeptEntryIndex"))
	return self, nil
}

// renameHookMessage turns message.role "hookMessage" into "custom".
func (w *rewriter) renameHookMessage(l *session.Line) error {
	msg, err := unique(&w.tape, 0, "message")
	if err != nil {
		return malformed(l.Num, "/message", err)
	}
	if w.tape.Kind(msg) != session.KindObject {
		return nil
	}
	role, err := unique(&w.tape, msg, "role")
	if err != nil {
		return malformed(l.Num, "/message/role", err)
	}
	if s, _ := w.tape.Str(role); s == session.LegacyCustomRole {
		w.ed.Replace(role, []byte(`"custom"`))
	}
	return nil
}

// ownTerminator is the terminator line l had in the input ("" for none).
func ownTerminator(l *session.Line) string {
	switch {
	case !l.Newline:
		return ""
	case l.CRLF:
		return "\r\n"
	}
	return "\n"
}

// writeRaw writes b and then the terminator term. A bufio.Writer's error
// sticks: when writing b fails, writing term returns that error.
func writeRaw(w *bufio.Writer, b []byte, term string) error {
	w.Write(b)
	if _, err := w.WriteString(term); err != nil {
		return &safefile.Error{Code: safefile.WriteFailed, Err: err}
	}
	return nil
}

// tornHeader is the finding for a torn line before any record: the header
// is lost, and no session is left to migrate or repair.
func tornHeader(l *session.Line) finding.Finding {
	return finding.Errorf(finding.InvalidJSON, l.Num,
		"a torn line (%d bytes) before any session header, with more lines after it: the header is lost", len(l.Raw))
}

// lineRefusal refuses a line that is not one complete object.
func lineRefusal(l *session.Line) *safefile.Error {
	f, _ := l.Finding()
	return refuse(safefile.RefusedCorrupt, f)
}

// lostByPi refuses to migrate a line that is not one complete object:
// pi 1.6.0 would lose it, as its own migration, on open, rewrites the
// file from the records JSON.parse made of the lines. A line over a
// limit of pisess (too long, too deep) is one pi reads: only refused.
func lostByPi(l *session.Line) error {
	e := lineRefusal(l)
	if c := e.Finding.Code; c != finding.LineTooLong && c != finding.TooDeep {
		e.Err = errLostByPi
	}
	return e
}

// errLostByPi says why a migration stops at a corrupt line.
var errLostByPi = errors.New("pi 1.6.0's own migration would drop or change this line (it rewrites the file from what JSON.parse reads); `pisess repair` mends what it can, `pisess validate` explains the rest")

// readError maps the error that ended a session.Reader.
func readError(err error, line int) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, session.ErrFileTooLarge):
		return refuse(safefile.RefusedCorrupt, finding.Errorf(finding.FileTooLarge, line, "the file exceeds the size limit"))
	}
	return &safefile.Error{Code: safefile.ReadFailed, Err: err}
}

// malformed refuses a record the locator could not take apart (a
// duplicated key, or bytes the classifier should have rejected).
func malformed(line int, pointer string, err error) error {
	return refuse(safefile.RefusedCorrupt, finding.Errorf(finding.Schema, line, "cannot migrate this record: %v", err).WithPointer(pointer))
}

// changedBetweenPasses reports that the second pass saw other lines.
func changedBetweenPasses(line int) error {
	return &safefile.Error{Code: safefile.ChangedDuringRewrite, Line: line,
		Err: fmt.Errorf("the file changed while it was being migrated")}
}
