package project

import (
	"encoding/binary"
	"hash/maphash"
	"runtime"
	"unsafe"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/pipeline"
	"github.com/pisess/pisess/internal/session"
)

// The index pass reads lines on one goroutine and hands them, a batch at a
// time, to workers that lay each object on a Tape and pull out its facts;
// the facts come back to the caller in file order. This is how validate
// spreads its pass over the cores, without the checks.

// facts are what the index keeps of one object, or a line without one.
type facts struct {
	line, object                       int
	skipped                            bool // the line holds no object (blank, torn or corrupt)
	tooLong                            bool // skipped: longer than --max-line-bytes
	piTakes                            bool // skipped, but pi 1.6.0 keeps the line as a record (piTakes); code says why
	code                               finding.Code
	bom, concatenated                  bool // the object follows a byte order mark, shares its line with others
	titleSlot                          bool // line 1 is omp's title slot (omp.go), not a record
	offset                             int64
	size                               int32
	typ, id, parentID, timestamp, role string
	typCode, roleCode                  uint8  // session.TypeCode(typ), session.RoleCode(role)
	target, label                      string // a label entry's targetId (hasTarget) and label
	hasTarget                          bool
	millis                             float64
	timeOK                             bool
	keptIndex                          float64 // a compaction's firstKeptEntryIndex (version 1)
	hasKeptIndex                       bool
	header                             []byte // the first object of a batch, copied when it is a session header: it may be the file's
	hasKind                            bool   // the first object of a batch has a "kind" member (a newer pi's header)
	desc                               string // what the Describer made of the record ("" when none)
	// packed is where id, parentID, timestamp and the length of desc lie
	// in the batch's pack, laid out as strStore.add lays them out (-1:
	// they do not).
	packed             int32
	idHash, parentHash uint64 // of id and parentID, with the idTable's seed
	// The pack leaves out timestamp when it is millis's ISO form (isoTime:
	// timestamp is then ""), and parentID when it is the id of the entry
	// before in the batch (parentBefore: parentID is that id).
	isoTime, parentBefore bool
}

// Batches are cut at this many bytes or lines.
const (
	scanBatchBytes = 256 << 10
	scanBatchLines = 512
)

// scanLine is a line waiting in a batch: its bytes are arena[start:end].
type scanLine struct {
	num        int
	offset     int64 // file offset of the line's first byte after a byte order mark
	atEOF      bool  // the last line, without a newline
	tooLong    bool  // longer than --max-line-bytes: not kept, so empty here
	bom        bool  // line 1 began with a byte order mark
	start, end int
}

type scanBatch struct {
	arena []byte
	lines []scanLine
	out   []facts
	strs  scratch // the other strings of out, until they are settled
	pack  []byte  // the packed strings of out (facts.packed)
}

// scratch holds strings for a while: they share it, so it must not be
// reset while any is in use (a batch's, until the batch is settled).
type scratch struct{ buf []byte }

// str returns a copy of s in the scratch.
func (sc *scratch) str(s string) string {
	start := len(sc.buf)
	sc.buf = append(sc.buf, s...)
	return unsafeString(sc.buf[start:])
}

// scanWorker is the state one goroutine reuses from batch to batch. The
// record it lays each object on is handed to the Describer, with an entry
// that holds just the type and role the index found.
type scanWorker struct {
	rec      Record
	entry    Entry
	cls      session.Classifier
	describe Describer
	seed     maphash.Seed
	desc     []byte // the Describer's buffer
	b        *scanBatch
	lastID   string // the id of the batch's last entry so far ("": none)
}

// A settler takes the facts of every object, and of every line without
// one, in file order: a batch at a time, each batch first whole (its facts
// and its packed strings), then each of its facts.
type settler interface {
	begin(out []facts, pack []byte)
	settle(f *facts) error
}

// scan reads r and hands the facts of every object, and of every line
// without one, to s in file order. describe, when not nil, is called on
// the workers for every record; ids are hashed there with seed.
func scan(r interface{ Read([]byte) (int, error) }, limits session.Limits, describe Describer, seed maphash.Seed, s settler) error {
	rd := session.NewReader(r, limits)
	rd.DeferClassify()
	workers := min(runtime.GOMAXPROCS(0), 4)
	ws := make([]scanWorker, workers) // a worker's own
	for w := range ws {
		ws[w] = scanWorker{describe: describe, seed: seed}
	}
	p := &batches{settler: s, keep: 2 * workers}
	p.p = pipeline.New(pipeline.Config[*scanBatch]{
		Workers:  workers,
		InFlight: 2 * workers,
		Work:     func(w int, b *scanBatch) error { ws[w].batch(b); return nil },
		Settle:   p.settleBatch,
	})
	defer p.p.Close()
	b := p.batch()
	for rd.Next() {
		l := rd.Line()
		if len(l.Raw) > scanBatchBytes { // a batch of its own, whose arena the line's bytes are: held once, not copied
			if len(b.lines) > 0 {
				if err := p.p.Submit(b); err != nil {
					return err
				}
				b = p.batch()
			}
			own := &scanBatch{lines: []scanLine{lineOf(l, 0, len(l.Raw))}, arena: rd.Detach()}
			if err := p.p.Submit(own); err != nil {
				return err
			}
			continue
		}
		start := len(b.arena)
		b.arena = append(b.arena, l.Raw...)
		b.lines = append(b.lines, lineOf(l, start, len(b.arena)))
		if len(b.arena) >= scanBatchBytes || len(b.lines) >= scanBatchLines {
			if err := p.p.Submit(b); err != nil {
				return err
			}
			b = p.batch()
		}
	}
	if err := p.p.Submit(b); err != nil {
		return err
	}
	if err := p.p.Wait(); err != nil {
		return err
	}
	return rd.Err()
}

// lineOf is line l waiting in a batch at arena[start:end].
func lineOf(l *session.Line, start, end int) scanLine {
	off := l.Offset
	if l.BOM {
		off += 3
	}
	return scanLine{num: l.Num, offset: off, atEOF: !l.Newline, tooLong: l.Code == finding.LineTooLong, bom: l.BOM, start: start, end: end}
}

// batches are the scan's batches on their way through the workers
// (internal/pipeline) to the settler, in file order.
type batches struct {
	settler
	p    *pipeline.Pipeline[*scanBatch]
	free []*scanBatch // settled batches, to reuse
	keep int          // the most kept in free: as many as are ever in flight
}

// batch returns an empty batch, reusing a settled one when there is one.
func (p *batches) batch() *scanBatch {
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		b.arena, b.lines, b.out, b.strs.buf, b.pack = b.arena[:0], b.lines[:0], b.out[:0], b.strs.buf[:0], b.pack[:0]
		return b
	}
	return &scanBatch{arena: make([]byte, 0, 2*scanBatchBytes)}
}

// settleBatch hands the facts of b to the settler, in order, and keeps
// b for reuse.
func (p *batches) settleBatch(b *scanBatch) error {
	p.begin(b.out, b.pack)
	for i := range b.out {
		if err := p.settle(&b.out[i]); err != nil {
			return err
		}
	}
	clear(b.out) // headers may go
	// Not one that grew for a long line, and no more than are ever in
	// flight: a long line's batch of its own is settled here too but
	// never taken again, so a file of lines of 256 KiB to 1 MiB grew
	// the list to most of the file (690 MB for a 1 GiB session).
	if cap(b.arena) <= 4*scanBatchBytes && len(p.free) <= p.keep {
		p.free = append(p.free, b)
	}
	return nil
}

// batch pulls the facts out of every line of b.
func (w *scanWorker) batch(b *scanBatch) {
	w.b, w.lastID = b, ""
	first := true
	for _, l := range b.lines {
		raw := b.arena[l.start:l.end]
		if l.num == 1 && session.IsTitleSlot(raw) {
			b.out = append(b.out, titleSlotFacts(l, raw))
			continue // the header is the next object: still the batch's first
		}
		if span, ok := w.rec.Tape.Line(raw); ok {
			b.out = append(b.out, w.facts(l, 0, span, first))
			first = false
			continue
		}
		v := w.cls.Classify(raw, l.atEOF)
		if v.Class != session.Object && v.Class != session.Concatenated {
			// Only a line before every object of its batch can come before the header.
			b.out = append(b.out, facts{line: l.num, skipped: true, tooLong: l.tooLong, code: v.Code, piTakes: first && piTakes(raw, v.Code)})
			continue
		}
		for k, span := range v.Objects {
			if w.rec.Tape.Build(raw[span[0]:span[1]]) != nil {
				b.out = append(b.out, facts{line: l.num, skipped: true})
				break
			}
			f := w.facts(l, k, span, first)
			f.concatenated = v.Class == session.Concatenated
			b.out = append(b.out, f)
			first = false
		}
	}
}

// facts reads the object on w's tape, the k-th of line l at span.
func (w *scanWorker) facts(l scanLine, k int, span [2]int, first bool) facts {
	t := &w.rec.Tape
	f := facts{line: l.num, object: k, offset: l.offset + int64(span[0]), size: int32(span[1] - span[0]), bom: l.bom}
	m := topMembersOf(t)
	typ := str(t, m.typ)
	f.typCode = session.TypeCode(typ)
	f.typ = kept(session.TypeName(f.typCode), typ)
	if first && f.typ == "session" {
		f.header = append([]byte(nil), t.Input()...)
	}
	f.hasKind = first && m.kind >= 0
	f.id, f.parentID, f.timestamp = str(t, m.id), str(t, m.parentID), str(t, m.timestamp)
	f.millis, f.timeOK = millisOf(t, m.timestamp)
	switch f.typ {
	case "message":
		role := t.StrOf(m.message, "role")
		f.roleCode = session.RoleCode(role)
		f.role = kept(session.RoleName(f.roleCode), role)
	case "label":
		var target string
		target, f.hasTarget = t.Str(m.targetID)
		f.target, f.label = w.b.strs.str(target), w.b.strs.str(str(t, m.label))
	case "compaction":
		f.keptIndex, f.hasKeptIndex = t.Float(m.keptIndex)
	}
	if w.describe != nil && f.typ != "session" {
		f.desc = w.description(&f)
	}
	w.pack(&f)
	if f.typ != "session" { // an entry (a misplaced header is none)
		w.lastID = f.id
	}
	return f
}

// topMembers are the value nodes of the members of an entry's object
// that the index reads, -1 for one it lacks.
type topMembers struct {
	typ, kind, id, parentID, timestamp, message, targetID, label, keptIndex int
}

// topMembersOf finds them in one walk over the members of the object at
// the root of t (a lookup each walked them all again each), the last of
// a duplicate key counting, as in JSON.parse and Tape.Get.
func topMembersOf(t *session.Tape) topMembers {
	m := topMembers{-1, -1, -1, -1, -1, -1, -1, -1, -1}
	for k, v := range t.Members(0) {
		key, _ := t.Str(k)
		switch key {
		case "type":
			m.typ = v
		case "kind":
			m.kind = v
		case "id":
			m.id = v
		case "parentId":
			m.parentID = v
		case "timestamp":
			m.timestamp = v
		case "message":
			m.message = v
		case "targetId":
			m.targetID = v
		case "label":
			m.label = v
		case "firstKeptEntryIndex":
			m.keptIndex = v
		}
	}
	return m
}

// str is the string at node n, "" when n is no string (or -1).
func str(t *session.Tape, n int) string {
	s, _ := t.Str(n)
	return s
}

// pack lays f's id, parentID and timestamp (but those it need not keep:
// facts.isoTime, facts.parentBefore) and the length of desc in the
// batch's pack as strStore.add lays them in a block, copies desc to the
// batch's scratch, points f's strings at them there,
// and hashes the ids: the index takes the pack as a block of its store
// in one copy, and finds parents without hashing on its one goroutine.
func (w *scanWorker) pack(f *facts) {
	b := &w.b.pack
	f.packed = int32(len(*b))
	f.parentBefore = f.typ != "session" && f.parentID != "" && f.parentID == w.lastID
	f.isoTime = f.timeOK && isISOOf(f.timestamp, f.millis)
	if f.parentBefore {
		f.parentID = w.lastID // in the pack already
	}
	if f.isoTime {
		f.timestamp = ""
	}
	for _, s := range [...]*string{&f.id, &f.parentID, &f.timestamp} {
		if s == &f.parentID && f.parentBefore {
			*b = append(*b, 0)
			continue
		}
		*b = binary.AppendUvarint(*b, uint64(len(*s)))
		*b = append(*b, *s...)
		*s = unsafeString((*b)[len(*b)-len(*s):])
	}
	*b = binary.AppendUvarint(*b, uint64(len(f.desc)))
	f.desc = w.b.strs.str(f.desc) // for the index's descriptions
	f.idHash, f.parentHash = maphash.String(w.seed, f.id), maphash.String(w.seed, f.parentID)
}

// description runs the Describer on the record on w's tape, as a record
// read back from a version-3 file would be described (settle keeps it only
// for one). An entry of a type or a message of a role the index does not
// keep as a constant is left to be read back.
func (w *scanWorker) description(f *facts) string {
	rc := f.roleCode
	if (f.typCode == 0 && f.typ != "") || (rc == 0 && f.role != "") {
		return ""
	}
	w.entry = Entry{typ: f.typCode, role: rc}
	w.rec.Entry = &w.entry
	w.desc = w.describe(&w.rec, w.desc[:0])
	return unsafeString(w.desc) // pack copies it to the batch's scratch
}

// kept returns name, the constant a code names, or when there is none (the
// code is 0) a copy of s, which may share a line buffer.
func kept(name, s string) string {
	if name != "" {
		return name
	}
	return string([]byte(s))
}

// unsafeString is a string that shares b, which must never change.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
