package validate

import (
	"sync"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/parse"
)

// Batching: entries are copied into a batch's arena and inspected a batch
// at a time, so the per-entry work (decoding, schemas) runs on several
// goroutines while the reader goes on.
const (
	batchBytes   = 256 << 10
	batchRecords = 256
)

// inspected is one entry after the checks that need only the entry itself.
type inspected struct {
	entry    entry
	fields   map[string]any
	findings []finding.Finding
	linkable bool // the entry goes on to the linkage checks
}

// batch is a run of consecutive entries and, once done, their results.
type batch struct {
	arena   []byte
	spans   []span
	results []inspected
	done    chan struct{}
}

type span struct {
	line       int
	start, end int
}

// inspector inspects entries in file order on Workers goroutines and hands
// each result to settle in file order.
type inspector struct {
	opts    Options
	version int
	settle  func(*inspected)
	cur     *batch
	queue   []*batch // submitted, not yet settled, in file order
	free    []*batch
	work    chan *batch
	wg      sync.WaitGroup
}

func newInspector(opts Options, version int, settle func(*inspected)) *inspector {
	in := &inspector{opts: opts, version: version, settle: settle}
	if opts.Workers > 1 {
		in.work = make(chan *batch, opts.Workers)
		for w := 0; w < opts.Workers; w++ {
			in.wg.Add(1)
			go in.worker()
		}
	}
	in.cur = in.newBatch()
	return in
}

func (in *inspector) newBatch() *batch {
	if n := len(in.free); n > 0 {
		b := in.free[n-1]
		in.free = in.free[:n-1]
		b.arena, b.spans, b.results = b.arena[:0], b.spans[:0], b.results[:0]
		b.done = make(chan struct{})
		return b
	}
	return &batch{arena: make([]byte, 0, batchBytes), done: make(chan struct{})}
}

func (in *inspector) worker() {
	defer in.wg.Done()
	for b := range in.work {
		in.inspectBatch(b)
		close(b.done)
	}
}

// submit queues one entry; raw is copied.
func (in *inspector) submit(line int, raw []byte) {
	b := in.cur
	start := len(b.arena)
	b.arena = append(b.arena, raw...)
	b.spans = append(b.spans, span{line: line, start: start, end: len(b.arena)})
	if len(b.arena) >= batchBytes || len(b.spans) >= batchRecords {
		in.flush()
	}
}

// flush sends the current batch off and settles what is ready.
func (in *inspector) flush() {
	b := in.cur
	if len(b.spans) == 0 {
		return
	}
	in.cur = in.newBatch()
	if in.work == nil {
		in.inspectBatch(b)
		in.settleBatch(b)
		return
	}
	in.queue = append(in.queue, b)
	in.work <- b
	for len(in.queue) > 0 {
		head := in.queue[0]
		if len(in.queue) <= 2*in.opts.Workers {
			select {
			case <-head.done:
			default:
				return
			}
		} else {
			<-head.done
		}
		in.queue = in.queue[1:]
		in.settleBatch(head)
	}
}

// close inspects and settles everything still pending.
func (in *inspector) close() {
	in.flush()
	if in.work == nil {
		return
	}
	close(in.work)
	for _, b := range in.queue {
		<-b.done
		in.settleBatch(b)
	}
	in.queue = nil
	in.wg.Wait()
}

func (in *inspector) settleBatch(b *batch) {
	for i := range b.results {
		in.settle(&b.results[i])
	}
	for i := range b.results {
		b.results[i] = inspected{} // drop references to the arena
	}
	in.free = append(in.free, b)
}

// inspectBatch runs the per-entry checks of every entry of b.
func (in *inspector) inspectBatch(b *batch) {
	alias := in.opts.Observer == nil // the arena outlives the results
	for _, sp := range b.spans {
		b.results = append(b.results, in.inspect(sp.line, b.arena[sp.start:sp.end], alias))
	}
}

// inspect decodes one entry and runs the checks that need only the entry:
// its type, its JSON Schema.
func (in *inspector) inspect(line int, raw []byte, alias bool) inspected {
	fields, err := parse.Decode(raw, alias)
	if f, bad := decodeFinding(line, err); bad {
		return inspected{findings: []finding.Finding{f}}
	}
	typ, _ := str(fields, "type")
	id, hasID := str(fields, "id")
	if typ == "session" {
		return inspected{findings: []finding.Finding{finding.Errorf(finding.MisplacedHeader, line, "a session header after the first record").WithEntry(id)}}
	}
	r := inspected{fields: fields, linkable: true}
	switch {
	case !IsEntryType(typ):
		// Still a tree node (pi indexes every entry): later entries may name it.
		r.findings = []finding.Finding{finding.Errorf(finding.UnknownEntryType, line, "unknown entry type %q", fields["type"]).WithEntry(id).WithPointer("/type")}
	case in.opts.Schemas != nil:
		r.findings = in.opts.Schemas.Check(in.version, line, fields)
	}
	linear := in.version == 1
	r.entry = entry{line: line, id: id, hasID: hasID && !linear, typ: typ, fields: fields, linear: linear}
	if pid, ok := str(fields, "parentId"); ok && !linear {
		r.entry.parentID = &pid
	}
	return r
}
