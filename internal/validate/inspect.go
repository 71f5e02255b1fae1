package validate

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/pipeline"
	"github.com/pisess/pisess/internal/session"
)

// Batching: once the header is read, lines are copied into a batch's arena
// and a batch at a time is classified, decoded and checked against the
// schemas on Workers goroutines while the reader goes on. Only reading and
// the checks that need the entries before (linkage) stay on the reader's
// goroutine.
const (
	batchBytes   = 256 << 10
	batchRecords = 256
)

// inspected is one entry after the checks that need only the entry itself.
type inspected struct {
	entry    entry // read with session.Figures when there is an Observer
	findings []finding.Finding
	linkable bool // the entry goes on to the linkage checks
	fatal    bool // the object could not be read (too_deep): nothing after it is checked
}

// item is one unit of a batch: a physical line, classified by the worker,
// or (object set) one more object of the header's line, which the reader
// has classified already.
type item struct {
	line       session.Line // the bytes are arena[start:end]; the worker sets Raw
	start, end int
	object     bool
}

// lineResult is what the worker found out about one item.
type lineResult struct {
	num        int
	class      session.Class
	finding    finding.Finding // the line's parse-level finding, if hasFinding
	hasFinding bool
	objects    int    // the complete objects on the line
	inspected  bool   // results holds one inspected per object
	tornID     string // a torn line's id, when the cut left it whole
	hasTornID  bool
}

// batch is a run of consecutive items and, once done, their results.
type batch struct {
	arena   []byte
	spare   []byte // the batch's own arena while arena is a long line's bytes
	items   []item
	lines   []lineResult // one per item
	results []inspected  // per object, in order, for the lines inspected
	tape    session.Tape
	cls     session.Classifier
}

// inspector inspects items in file order on Workers goroutines and hands
// each result to the pass in file order (internal/pipeline).
type inspector struct {
	opts      Options
	version   int
	to        *pass
	cur       *batch
	pipe      *pipeline.Pipeline[*batch]
	free      []*batch
	untrusted atomic.Int64 // line of the first fatal corruption (0: none): later entries are not checked
	closed    bool
	dialect   session.Dialect
}

// newInspector starts the inspector of the entries after p's header.
func newInspector(p *pass) *inspector {
	in := &inspector{opts: p.opts, version: p.rep.Version, to: p, dialect: p.rep.Dialect}
	in.pipe = pipeline.New(pipeline.Config[*batch]{
		Workers:  in.opts.Workers,
		InFlight: 2 * in.opts.Workers,
		Work:     func(_ int, b *batch) error { in.inspectBatch(b); return nil },
		Settle:   func(b *batch) error { in.settleBatch(b); return nil },
	})
	in.cur = in.newBatch()
	return in
}

// batches keeps batches, with their arenas and tapes, for the next file.
var batches = sync.Pool{New: func() any { return &batch{arena: make([]byte, 0, batchBytes)} }}

// keepBatchBytes bounds the arena of a batch kept for the next file.
const keepBatchBytes = 4 * batchBytes

func (in *inspector) newBatch() *batch {
	var b *batch
	if n := len(in.free); n > 0 {
		b = in.free[n-1]
		in.free = in.free[:n-1]
	} else {
		b = batches.Get().(*batch)
	}
	b.arena, b.items, b.lines, b.results = b.arena[:0], b.items[:0], b.lines[:0], b.results[:0]
	return b
}

// release gives the batches back for the next file; one that grew for a
// long line is left to the garbage collector.
func (in *inspector) release() {
	for _, b := range append(in.free, in.cur) {
		if cap(b.arena) <= keepBatchBytes {
			batches.Put(b)
		}
	}
	in.free, in.cur = nil, nil
}

// submitLine queues one physical line; its bytes are copied, except a
// line longer than a batch keeps, which is taken from rd, the reader it
// is the current line of (see submitOwnLine).
func (in *inspector) submitLine(l *session.Line, rd *session.Reader) {
	if len(l.Raw) > keepBatchBytes {
		in.submitOwnLine(l, rd.Detach())
		return
	}
	in.submit(item{line: *l}, l.Raw)
}

// submitOwnLine queues a long line, whose bytes raw the inspector owns,
// as a batch of its own whose arena they are: a long line is held once,
// and let go once it is settled.
func (in *inspector) submitOwnLine(l *session.Line, raw []byte) {
	in.flush()
	b := in.cur
	b.spare, b.arena = b.arena, raw
	it := item{line: *l, start: 0, end: len(raw)}
	it.line.Raw = nil
	b.items = append(b.items, it)
	in.flush()
}

// submitObject queues one object of the header's line; raw is copied.
func (in *inspector) submitObject(line int, raw []byte) {
	in.submit(item{line: session.Line{Num: line}, object: true}, raw)
}

// submit queues item it with a copy of raw, its bytes, and sends the batch
// off when it is full.
func (in *inspector) submit(it item, raw []byte) {
	b := in.cur
	it.start = len(b.arena)
	b.arena = append(b.arena, raw...)
	it.end = len(b.arena)
	it.line.Raw = nil
	b.items = append(b.items, it)
	if len(b.arena) >= batchBytes || len(b.items) >= batchRecords {
		in.flush()
	}
}

// flush sends the current batch off and settles what is ready.
func (in *inspector) flush() {
	b := in.cur
	if len(b.items) == 0 {
		return
	}
	in.cur = in.newBatch()
	in.pipe.Submit(b) // neither inspecting nor settling fails
}

// close inspects and settles everything still pending; it may be called
// more than once.
func (in *inspector) close() {
	if in.closed {
		return
	}
	in.closed = true
	in.flush()
	in.pipe.Wait()
	in.release()
}

func (in *inspector) settleBatch(b *batch) {
	next := 0
	for i := range b.items {
		r := &b.lines[i]
		var objs []inspected
		if r.inspected {
			objs = b.results[next : next+r.objects]
			next += r.objects
		}
		if b.items[i].object {
			if in.to.trusted {
				in.to.settle(&objs[0], r.num)
			}
			continue
		}
		in.to.settleLine(r, objs)
	}
	clear(b.results) // drop references to the arena
	b.results = b.results[:0]
	if b.spare != nil { // the arena was a long line's own bytes: let them go
		b.arena, b.spare = b.spare, nil
		b.tape = session.Tape{}
		clear(b.items) // their Raw
	}
	in.free = append(in.free, b)
}

// inspectBatch classifies and inspects every item of b.
func (in *inspector) inspectBatch(b *batch) {
	for i := range b.items {
		b.lines = append(b.lines, in.inspectItem(b, &b.items[i]))
	}
}

// inspectItem classifies one line, or takes the object it holds, and
// inspects the entries on it. Lines after a fatal corruption are only
// classified: their entries are not checked.
func (in *inspector) inspectItem(b *batch, it *item) lineResult {
	raw := b.arena[it.start:it.end]
	b.tape.SetKeys(in.keys())
	if it.object {
		in.buildAndInspect(b, it.line.Num, raw)
		return lineResult{num: it.line.Num, class: session.Object, objects: 1, inspected: true}
	}
	l := &it.line
	if l.Class == session.Unclassified {
		l.Raw = raw
	}
	n := in.untrusted.Load()
	check := n == 0 || int64(l.Num) <= n
	if check && l.Class == session.Unclassified {
		if _, ok := b.tape.Line(raw); ok {
			l.Verdict = session.Verdict{Class: session.Object}
			r := lineResult{num: l.Num, class: session.Object, objects: 1, inspected: true}
			r.finding, r.hasFinding = l.Finding()
			in.inspect(b.newResult(), &b.tape, l.Num)
			return r
		}
	}
	l.Classify(&b.cls)
	r := lineResult{num: l.Num, class: l.Class, objects: len(l.Objects)}
	r.finding, r.hasFinding = l.Finding()
	if check && l.Class == session.TornLine {
		r.tornID, r.hasTornID = session.PrefixString(l.Raw, "id") // a copy
	}
	if check && (l.Class == session.Object || l.Class == session.Concatenated) {
		r.inspected = true
		for k := range l.Objects {
			in.buildAndInspect(b, l.Num, l.Object(k))
		}
	}
	return r
}

// newResult appends an inspected to b's results and returns it, for the
// checks to fill in place (an entry is several hundred bytes).
func (b *batch) newResult() *inspected {
	b.results = append(b.results, inspected{})
	return &b.results[len(b.results)-1]
}

// keys are the keys the tapes of entries are built with: the schemas'
// (which extend session.EntryKeys), so that each member's key is matched
// once, where the tape is built.
func (in *inspector) keys() *session.Keys {
	if in.opts.Schemas != nil {
		return in.opts.Schemas.keys
	}
	return session.EntryKeys()
}

// buildAndInspect builds the tape of one entry and inspects it into a new
// result of b.
func (in *inspector) buildAndInspect(b *batch, line int, raw []byte) {
	r := b.newResult()
	if f, bad := decodeFinding(line, b.tape.Build(raw)); bad {
		*r = inspected{findings: []finding.Finding{f}, fatal: true}
		return
	}
	in.inspect(r, &b.tape, line)
}

// inspect runs the checks that need only the entry on tape t: its type,
// its JSON Schema; and reads what the linkage checks need, into r (zero).
func (in *inspector) inspect(r *inspected, t *session.Tape, line int) {
	detail := session.Links
	if in.opts.Observer != nil {
		detail = session.Figures
	}
	r.entry.read(t, line, in.version == 1, detail)
	e := &r.entry
	if e.Type == "session" {
		*r = inspected{findings: []finding.Finding{finding.Errorf(finding.MisplacedHeader, line, "a session header after the first record").WithEntry(e.ID)}}
		return
	}
	r.linkable = true
	switch {
	case !isEntryTypeOf(in.dialect, e.Type):
		// Still a tree node (pi indexes every entry): later entries may name it.
		r.findings = []finding.Finding{finding.Errorf(finding.UnknownEntryType, line, "unknown entry type %s", session.Clip(fmt.Sprintf("%q", t.Value(t.Get(0, "type"))))).WithEntry(e.ID).WithPointer("/type")}
	case in.opts.Schemas != nil:
		r.findings = in.opts.Schemas.checkEntry(in.dialect, in.version, line, t, &e.Entry)
	}
}
