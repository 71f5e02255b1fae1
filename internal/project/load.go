package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// CurrentVersion is the session format version pi writes.
const CurrentVersion = 3

// Header is the session header (line 1).
type Header struct {
	Line      int    // physical line of the header (1 in a valid file)
	ID        string // session id
	Version   int    // as found in the file: 1 (absent), 2 or 3
	Timestamp string
	Cwd       string

	raw []byte // the header object
}

// Field returns the raw JSON value of a header member.
func (h *Header) Field(name string) ([]byte, bool) {
	t, ok := tapeOf(h.raw)
	if !ok {
		return nil, false
	}
	v := t.Raw(t.Get(0, name))
	return v, v != nil
}

// HeaderError says why a file cannot be read as a session at all. Code is
// the finding code validate uses for the same problem.
type HeaderError struct {
	Code finding.Code
	Line int
	Msg  string
}

func (e *HeaderError) Error() string { return e.Msg }

// ChangedError is returned when an entry read back from the file is no
// longer the object the index found there: the file changed while it was
// read.
type ChangedError struct {
	File string
	Line int
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s:%d: the file changed while it was read", e.File, e.Line)
}

// Session is a session file's index: its header and its entries in file
// order, each with where it lies in the file, its id, parent, type, role
// and time. Records are read back from the file when they are needed, so a
// Session costs memory per entry, not per byte.
type Session struct {
	Header  Header
	Entries []*Entry
	Skipped []int // physical lines that held no object (blank, torn or corrupt)
	// Dialect is pi's, or omp's for an oh-my-pi file (omp.go); TitleSlot
	// is omp's line 1, nil when the file has none.
	Dialect   session.Dialect
	TitleSlot []byte

	strs       strStore          // the entries' strings
	descs      descriptions      // what OpenDescribed's Describer made of them
	described  int               // entries the index holds a description of
	largest    int32             // the size of the largest entry, in bytes
	byID       *idTable          // id -> index of the last entry with that id (pi's byId), while the index is built
	lookup     sync.Once         // builds byID again for Lookup
	labels     map[string]string // resolved label per target id
	otherRoles map[int]string    // the roles of message entries that have no session.RoleCode
	otherTypes map[int]string    // the types of entries that have no session.TypeCode
	firstKept  map[int][]byte    // version 1: a compaction's firstKeptEntryId, as pi migrates it
	piRefusal  *HeaderError      // why pi 1.6.0 refuses the file (RefuseAsPi), nil when it opens it
	src        io.ReaderAt
	name       string
	closer     io.Closer
}

// Open indexes the session file at path in one streaming pass and keeps
// the file open to read records back; Close closes it.
func Open(path string, limits session.Limits) (*Session, error) {
	return OpenDescribed(path, limits, nil)
}

// A Describer makes the few bytes a view keeps of an entry (render's one
// description of it) from its record. OpenDescribed's index workers call
// it while they hold each record, so that a view need not read the record
// back (Session.Description). It appends the description to dst and
// returns it. It may be called on several goroutines at once; what it
// returns is copied, and the record is not its to keep.
type Describer func(r *Record, dst []byte) []byte

// OpenDescribed is Open with every entry of a version-3 file described on
// the index workers by describe (nil: none).
func OpenDescribed(path string, limits session.Limits, describe Describer) (*Session, error) {
	f, err := session.OpenFile(path)
	if err != nil {
		return nil, err
	}
	s, err := index(f, f, path, limits, describe, sizeOf(f))
	if err != nil {
		f.Close()
		return nil, err
	}
	s.closer = f
	if err := s.sniffDialect(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the file of a Session made by Open.
func (s *Session) Close() error {
	s.descs.close()
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

// LoadFile reads the session file at path into memory and indexes it.
func LoadFile(path string, limits session.Limits) (*Session, error) {
	f, err := session.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f, limits)
}

// Load reads a session into memory and indexes it. Errors are I/O errors
// (including session.ErrFileTooLarge) and *HeaderError.
func Load(r io.Reader, limits session.Limits) (*Session, error) {
	var data bytes.Buffer
	s, err := index(io.TeeReader(r, &data), nil, "", limits, nil, 0)
	if err != nil {
		return nil, err
	}
	s.src = bytes.NewReader(data.Bytes())
	return s, s.sniffDialect()
}

// index reads r once: every object is laid on a Tape (on several
// goroutines, a batch of lines at a time), the first must be the header,
// and each entry after it leaves its place and its few fields in the
// index. src is where records are read back from later.
func index(r io.Reader, src io.ReaderAt, name string, limits session.Limits, describe Describer, size int64) (*Session, error) {
	ix := &indexer{size: size, s: &Session{src: src, name: name, byID: newIDTable(), labels: map[string]string{}, otherTypes: map[int]string{}, otherRoles: map[int]string{}}}
	err := scan(r, limits, describe, ix.s.byID.seed, ix)
	ix.s.descs.finish()
	if err != nil {
		ix.s.descs.close()
		return nil, err
	}
	s, err := ix.finish()
	if err != nil {
		ix.s.descs.close()
	}
	return s, err
}

// indexer is the sequential part of the index pass: it takes the facts of
// each object in file order.
type indexer struct {
	s        *Session
	size     int64 // of the file, 0 when unknown: to guess how many entries it holds
	sawFirst bool
	// tooLong is the first line before any record that was longer than
	// --max-line-bytes (0: none): the header may be on it.
	tooLong int
	slab    []Entry
	// records maps a v1 record index (header = 0, every parsed object
	// counts) to its entry, -1 for session records; version 1 only.
	records []int
	ids     *session.IDs
	// The packed strings of the batch being settled (facts.packed), and
	// their block in the store once an entry has taken them (-1: none
	// has yet).
	packBuf   []byte
	packBlock int
	// Parents are resolved as entries come; an entry whose parent has not
	// come yet waits in unresolved, and a duplicate id (pi's byId keeps
	// the last) sends finish over every entry again.
	unresolved []int32
	dupIDs     bool
	warm       uint64 // what begin read, kept so that the reads stay
}

// begin takes the next batch's facts and packed strings. It reads the
// id table's slots their ids will go to, all at once, so that their cache
// misses overlap rather than come one entry after the other.
func (ix *indexer) begin(out []facts, pack []byte) {
	ix.packBuf, ix.packBlock = pack, -1
	t := ix.s.byID
	for i := range out {
		ix.warm += t.warm(out[i].idHash)
	}
}

// strings stores entry e's strings: for a version-3 file, in the batch's
// pack, which the store takes whole (in one copy) the first time.
func (ix *indexer) strings(f *facts, id, parentID string) strRef {
	v3 := ix.s.Header.Version == CurrentVersion
	desc := f.desc
	if !v3 && (f.typ == "compaction" || f.role == session.LegacyCustomRole) {
		desc = "" // migration changes what it shows: read back, migrated, when it is shown
	}
	if desc != "" {
		ix.s.described++
	}
	ix.s.descs.add(len(ix.s.Entries)-1, desc)
	if !v3 {
		return ix.s.strs.add(id, parentID, f.timestamp, len(desc))
	}
	if ix.packBlock < 0 {
		ix.packBlock = ix.s.strs.adopt(bytes.Clone(ix.packBuf))
	}
	return ref(ix.packBlock, f.packed)
}

// link puts entry e in the id table and resolves its parent if it has
// come (idHash and parentHash: the table's hashes of id and parentID).
func (ix *indexer) link(e *Entry, id, parentID string, idHash, parentHash uint64) {
	t := ix.s.byID
	if id != "" && t.putHashed(ix.s.Entries, e.Index, idHash) {
		ix.dupIDs = true
	}
	if parentID == "" {
		return
	}
	if prev := e.Index - 1; prev >= 0 && ix.s.Entries[prev].ID() == parentID { // most entries follow their parent
		e.parent = int32(prev)
	} else if p := t.getHashed(ix.s.Entries, parentID, parentHash); p >= 0 {
		e.parent = int32(p)
	} else {
		ix.unresolved = append(ix.unresolved, int32(e.Index))
	}
}

// settle takes the facts of the next object (or skipped line) in file
// order: the header, or one more entry.
func (ix *indexer) settle(f *facts) error {
	if f.skipped {
		ix.s.Skipped = append(ix.s.Skipped, f.line)
		if f.tooLong && !ix.sawFirst && ix.tooLong == 0 {
			ix.tooLong = f.line
		}
		if f.piTakes && !ix.sawFirst && ix.s.piRefusal == nil {
			ix.s.piRefusal = takenByPi(f.line, f.code)
		}
		return nil
	}
	if f.titleSlot {
		ix.s.Dialect, ix.s.TitleSlot = session.Omp, f.header
		return nil
	}
	if !ix.sawFirst {
		ix.sawFirst = true
		return ix.header(f)
	}
	v1 := ix.s.Header.Version == 1
	if v1 {
		ix.records = append(ix.records, -1)
	}
	if f.typ == "session" { // a misplaced header: pi filters it out of the entries
		return nil
	}
	e := ix.newEntry()
	*e = Entry{Index: len(ix.s.Entries), Line: f.line, Object: int32(f.object), offset: f.offset, size: f.size, parent: -1,
		s: ix.s, millis: f.millis, timeOK: f.timeOK, typ: f.typCode}
	if e.typ == 0 && f.typ != "" {
		ix.s.otherTypes[e.Index] = string([]byte(f.typ))
	}
	if e.Index == guessAfter {
		ix.reserve(f) // before e joins: its strings are not stored yet
	}
	ix.s.Entries = append(ix.s.Entries, e)
	ix.s.largest = max(ix.s.largest, e.size)
	id, parentID, idHash, parentHash := f.id, f.parentID, f.idHash, f.parentHash
	if v1 { // ids derived here, so not hashed on the workers
		ix.records[len(ix.records)-1] = e.Index
		id, parentID = ix.migrateV1(e, f)
		idHash, parentHash = ix.s.byID.hash(id), ix.s.byID.hash(parentID)
	}
	e.strs = ix.strings(f, id, parentID)
	if f.isoTime {
		e.elided |= isoTime
	}
	if f.parentBefore && ix.s.Header.Version == CurrentVersion { // the one pack that leaves it out
		e.elided |= parentBefore
	}
	ix.link(e, id, parentID, idHash, parentHash)
	if f.typ == "message" {
		ix.role(e, f.role, f.roleCode)
	}
	if f.typ == "label" && f.hasTarget {
		if f.label != "" {
			ix.s.labels[strings.Clone(f.target)] = strings.Clone(f.label)
		} else {
			delete(ix.s.labels, f.target)
		}
	}
	return nil
}

// guessAfter is how many entries the index reads before it guesses how
// many the file holds.
const (
	guessAfter = 1000
	maxGuess   = 1 << 20
)

// reserve makes room for the number of entries the file holds if the rest
// is like its first guessAfter entries (f is the next), up to
// maxGuess: a file whose first entries are small and the rest one huge
// line must not cost a huge table.
func (ix *indexer) reserve(f *facts) {
	if ix.size <= 0 || f.offset <= 0 {
		return
	}
	guess := int(min(float64(maxGuess), float64(len(ix.s.Entries))*float64(ix.size)/float64(f.offset)))
	ix.s.byID.reserve(guess)
	if guess > cap(ix.s.Entries) {
		ix.s.Entries = append(make([]*Entry, 0, guess+guess/8), ix.s.Entries...)
	}
}

// sizeOf is the size of the file f, 0 when unknown.
func sizeOf(f interface{ Stat() (os.FileInfo, error) }) int64 {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// role notes a message entry's role, whose code the worker found
// (hookMessage is custom before version 3, as pi migrates it).
func (ix *indexer) role(e *Entry, role string, code uint8) {
	if role == session.LegacyCustomRole && ix.s.Header.Version < 3 {
		role, code = "custom", session.RoleCode("custom")
	}
	if e.role = code; e.role == 0 && role != "" {
		ix.s.otherRoles[e.Index] = role
	}
}

func (ix *indexer) newEntry() *Entry {
	if len(ix.slab) == cap(ix.slab) {
		ix.slab = make([]Entry, 0, 1024)
	}
	ix.slab = ix.slab[:len(ix.slab)+1]
	return &ix.slab[len(ix.slab)-1]
}

// header takes the first record, which must be the session header.
func (ix *indexer) header(f *facts) error {
	if f.typ != "session" && ix.tooLong > 0 {
		return ix.tooLongError()
	}
	if f.typ != "session" {
		code, msg := finding.NotASession, "the first record is not a session header (not a pi session file)"
		switch {
		case f.hasKind:
			code, msg = finding.UnsupportedVersion, "the first record is not a version 1-3 session header (a newer pi format?)"
		case session.IsEntryType(f.typ):
			// A session that lost its header line, as validate reports it.
			code, msg = finding.MissingHeader, fmt.Sprintf("the first record is a %q entry, not a session header", f.typ)
		}
		return &HeaderError{Code: code, Line: f.line, Msg: msg}
	}
	t, _ := tapeOf(f.header)
	version, err := headerVersion(t)
	if err != nil {
		return &HeaderError{Code: finding.UnsupportedVersion, Line: f.line, Msg: err.Error()}
	}
	if ix.s.piRefusal == nil {
		ix.s.piRefusal = headerRefusal(f, t)
	}
	h := Header{Line: f.line, Version: version, raw: f.header}
	h.ID = string([]byte(t.StrOf(0, "id")))
	h.Timestamp = string([]byte(t.StrOf(0, "timestamp")))
	h.Cwd = string([]byte(t.StrOf(0, "cwd")))
	ix.s.Header = h
	if version == 1 {
		ix.records = []int{-1}
		ix.ids = session.NewIDs(h.ID)
	}
	return nil
}

// tooLongError reports a line longer than --max-line-bytes where the
// header should be, as validate reports it (line_too_long), rather than a
// file without a header.
func (ix *indexer) tooLongError() error {
	return &HeaderError{Code: finding.LineTooLong, Line: ix.tooLong,
		Msg: "the line is longer than --max-line-bytes: the session header cannot be read"}
}

// headerVersion reads the header's version (session.ReadHeader, the one
// reader): absent (or null) is 1.
func headerVersion(t *session.Tape) (int, error) {
	h := session.ReadHeader(t)
	if !h.VersionOK {
		return 0, fmt.Errorf("unsupported session version %s (pisess reads versions 1 to 3)", h.VersionText)
	}
	return h.Version, nil
}

// migrateV1 gives a version-1 entry a deterministic id, links it to the
// previous entry and turns a compaction's firstKeptEntryIndex into
// firstKeptEntryId, as pi's migrateV1ToV2 does. It returns the id and the
// parent id.
func (ix *indexer) migrateV1(e *Entry, f *facts) (id, parentID string) {
	id = ix.ids.For(e.Line)
	if e.Index > 0 {
		parentID = ix.s.Entries[e.Index-1].ID()
	}
	index := f.keptIndex
	if f.typ != "compaction" || !f.hasKeptIndex || index != float64(int(index)) {
		return id, parentID
	}
	// pi looks the index up while it is still assigning ids: an entry at or
	// before the compaction has one, a later entry does not yet.
	if i := int(index); i >= 0 && i < len(ix.records) && ix.records[i] >= 0 {
		if ix.s.firstKept == nil {
			ix.s.firstKept = map[int][]byte{}
		}
		kept := id // the compaction itself: its strings are not stored yet
		if k := ix.records[i]; k != e.Index {
			kept = ix.s.Entries[k].ID()
		}
		ix.s.firstKept[e.Index] = session.Quote(kept)
	}
	return id, parentID
}

// finish resolves the parents once every entry is known.
func (ix *indexer) finish() (*Session, error) {
	if !ix.sawFirst && ix.tooLong > 0 {
		return nil, ix.tooLongError()
	}
	if !ix.sawFirst {
		return nil, &HeaderError{Code: finding.MissingHeader, Line: 1, Msg: "the file holds no session header (empty, or no line is a JSON object)"}
	}
	s := ix.s
	resolve := func(e *Entry) {
		if p := s.byID.get(s.Entries, e.ParentID()); p >= 0 && e.ParentID() != "" {
			e.parent = int32(p)
		}
	}
	if ix.dupIDs {
		for _, e := range s.Entries {
			resolve(e)
		}
	} else {
		for _, i := range ix.unresolved {
			resolve(s.Entries[i])
		}
	}
	s.byID = nil // most views look no id up: Lookup builds the table again if one does
	return s, nil
}

// Largest returns the size of the session's largest entry in the file,
// in bytes.
func (s *Session) Largest() int { return int(s.largest) }

// Described reports whether the Describer of OpenDescribed described
// every entry, so that a view of the session reads no record back.
func (s *Session) Described() bool { return s.described == len(s.Entries) && s.descs.r != nil }

// Read reads entry e back from the file onto a new Record, migrated as pi
// migrates it in memory. To read many entries, a RecordReader is faster.
func (s *Session) Read(e *Entry) (*Record, error) {
	if e.size >= collectBefore {
		// An earlier read of a long record (slim reads one five times)
		// is garbage the pacer would let stand until the heap doubled:
		// collected now, its pages hold this one.
		runtime.GC()
	}
	raw := make([]byte, e.size, int(e.size)+migrateRoom)
	if n, err := s.src.ReadAt(raw, e.offset); n < len(raw) {
		if err == nil || errors.Is(err, io.EOF) {
			err = &ChangedError{File: s.name, Line: e.Line}
		}
		return nil, err
	}
	r := &Record{own: true}
	return r, s.fill(r, e, raw)
}

// fill lays the bytes of entry e on r's tape and migrates them.
func (s *Session) fill(r *Record, e *Entry, raw []byte) error {
	r.Entry = e
	if r.Tape.Build(raw) != nil {
		return &ChangedError{File: s.name, Line: e.Line}
	}
	if s.Header.Version < 3 {
		s.migrate(r)
	}
	return nil
}

// RecordReader reads records back from a session's file through a window
// of the file, so that reading entries in about file order costs one read
// per window rather than one per entry. The Record it returns (its tape,
// and the strings read from it) is valid until the next Read.
type RecordReader struct {
	s      *Session
	window []byte
	start  int64 // file offset of window[0]
	rec    Record
	desc   descCursor
}

// errShortRead: the file ends before an entry the index found in it.
var errShortRead = errors.New("the file is shorter than its index")

// readWindow is how much of the file a RecordReader reads at once.
const readWindow = 256 << 10

// Records returns a RecordReader of the session's file.
func (s *Session) Records() *RecordReader { return &RecordReader{s: s} }

// Read reads entry e (see RecordReader). A record longer than the window
// is read on its own (Session.Read), so the reader holds no window that
// large once it is done with it.
func (rd *RecordReader) Read(e *Entry) (*Record, error) {
	if int(e.size) > readWindow {
		return rd.s.Read(e)
	}
	raw, err := rd.bytes(e.offset, int(e.size))
	if errors.Is(err, errShortRead) {
		return nil, &ChangedError{File: rd.s.name, Line: e.Line}
	}
	if err != nil {
		return nil, err
	}
	return &rd.rec, rd.s.fill(&rd.rec, e, raw)
}

// bytes returns n bytes of the file at off, from the window when they are
// in it.
func (rd *RecordReader) bytes(off int64, n int) ([]byte, error) {
	if off >= rd.start && off+int64(n) <= rd.start+int64(len(rd.window)) {
		return rd.window[off-rd.start : off-rd.start+int64(n)], nil
	}
	size := max(n, readWindow)
	if cap(rd.window) < size {
		rd.window = make([]byte, size)
	}
	rd.window = rd.window[:size]
	got, err := rd.s.src.ReadAt(rd.window, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	rd.window, rd.start = rd.window[:got], off
	if got < n {
		return nil, errShortRead
	}
	return rd.window[:n], nil
}

// collectBefore is the size of a record before whose reading Session.Read
// runs the collector.
const collectBefore = 16 << 20

// migrateRoom is the room Session.Read leaves after a record for the
// members a migration appends to it (a version-1 entry's id and parentId).
const migrateRoom = 64

// migrate applies section 8 to a record of a version-1 or 2 file: the ids
// and parent links the index gave it, a compaction's firstKeptEntryId,
// role hookMessage renamed to custom (pi's migrateV2ToV3).
func (s *Session) migrate(r *Record) {
	e, t := r.Entry, &r.Tape
	var ed session.Editor
	ed.Reset(t)
	if s.Header.Version == 1 {
		parent := []byte("null")
		if e.ParentID() != "" {
			parent = session.Quote(e.ParentID())
		}
		ed.Set(0, "id", session.Quote(e.ID()))
		ed.Set(0, "parentId", parent)
		if e.Type() == "compaction" && t.Get(0, "firstKeptEntryIndex") >= 0 {
			ed.Delete(0, "firstKeptEntryIndex")
			if id, ok := s.firstKept[e.Index]; ok {
				ed.Set(0, "firstKeptEntryId", id)
			}
		}
	}
	msg := t.Get(0, "message")
	if e.Type() == "message" && t.Kind(msg) == session.KindObject && t.StrOf(msg, "role") == session.LegacyCustomRole {
		ed.Set(msg, "role", []byte(`"custom"`))
	}
	if !ed.Changed() {
		return
	}
	raw, ok := []byte(nil), false
	if r.own {
		raw, ok = ed.InPlace() // a long record is not copied
	}
	if !ok {
		raw, _ = ed.Bytes() // member edits of distinct objects, none replaced: no overlap
	}
	_ = t.Build(raw) // the edits keep the object valid
}
