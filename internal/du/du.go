// Package du has one job: say where the bytes of a session file are. One
// streaming pass lays each line on a session.Tape once and charges its bytes
// to what it holds: its entry type, its message role, its customType, the
// tool whose result it is, and, inside it, the arguments of its tool calls
// and the base64 data of its images. A line that holds no entry (blank,
// torn, corrupt, too long) is counted as what it is, so the rows of the
// line kinds add up to the file's size.
//
// Counting does not depend on order, so each worker keeps its own tally
// and the tallies are added up at the end. A regular file is cut into
// ranges of whole lines, each read by a worker (ranges.go); a stream is
// read on one goroutine and counted by the workers in batches. Memory is
// a read buffer and a few MiB per worker plus the longest line, held
// once.
package du

import (
	"cmp"
	"io"
	"slices"
	"strings"

	"github.com/pisess/pisess/internal/pipeline"
	"github.com/pisess/pisess/internal/session"
)

// Kind is what a row counts.
type Kind string

// The kinds of row, in the order they are listed. The rows of the line
// kinds (KindType, KindBlank, KindTorn, KindInvalid) charge whole lines,
// terminator included, and add up to the KindFile row; the others look
// into those lines and overlap them.
const (
	KindFile       Kind = "file"       // the whole file: entries are its lines
	KindType       Kind = "type"       // lines holding one entry, by its "type" (the header is "session")
	KindRole       Kind = "role"       // message entries, by message.role
	KindCustomType Kind = "customType" // custom and custom_message entries, by customType
	KindTool       Kind = "tool"       // tool results, by toolName: the bytes of their content and details
	KindToolCall   Kind = "toolCall"   // tool calls of assistant messages, by name: the bytes of their arguments
	KindImage      Kind = "image"      // image blocks anywhere in an entry, by mimeType: the bytes of their base64 data
	KindBlank      Kind = "blank"      // blank lines
	KindTorn       Kind = "torn"       // torn lines, by code: torn_line, partial_tail
	KindInvalid    Kind = "invalid"    // lines that hold no one entry, by code: invalid_json, concatenated_objects, line_too_long…
)

// kinds is the listing order.
var kinds = []Kind{KindFile, KindType, KindRole, KindCustomType, KindTool, KindToolCall, KindImage, KindBlank, KindTorn, KindInvalid}

// NoName names a row whose entries lack the string that names it (an
// entry without a string "type", an image without a mimeType).
const NoName = "(none)"

// Row is one line of the report: entries of one kind and name and the
// bytes they take.
type Row struct {
	Kind    Kind
	Name    string
	Entries int64
	Bytes   int64
	// Shrink is what slim --rewrite --max-bytes would take off these
	// bytes (Options.MaxBytes; 0 without it): the blocks it would replace,
	// less their placeholders.
	Shrink int64
}

// Usage is where one file's bytes are (or, from Sum, many files').
type Usage struct {
	File  string
	Bytes int64 // the size of the file: the File row's bytes
	Files int   // the files summed (1 for one file)
	Rows  []Row // File first, then by kind, largest first within a kind
}

// Options configure a count.
type Options struct {
	Limits  session.Limits
	Workers int // goroutines counting the lines of one file (0 or 1: inline)
	// MaxBytes > 0 also counts what `slim --rewrite --max-bytes MaxBytes`
	// would remove (Row.Shrink).
	MaxBytes int64
}

// File counts the file at path.
func File(path string, opts Options) (*Usage, error) {
	f, info, err := session.OpenSession(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := info.Size()
	if opts.Workers <= 1 || size < 4*batchBytes || !info.Mode().IsRegular() {
		opts.Workers = 1 // not worth the goroutines
		return Stream(path, f, opts)
	}
	if max := opts.Limits.MaxFileBytes; max > 0 && size > max {
		return nil, &session.IOError{Path: path, Err: session.ErrFileTooLarge}
	}
	r, err := countRanges(f, size, opts)
	if err != nil {
		return nil, &session.IOError{Path: path, Err: err}
	}
	r.tally.add(KindFile, "", r.bytes, r.lines)
	return &Usage{File: path, Bytes: r.bytes, Files: 1, Rows: r.tally.rows()}, nil
}

// Stream counts a session read from r; name is used in the report.
func Stream(name string, r io.Reader, opts Options) (*Usage, error) {
	rd := session.NewReader(r, opts.Limits)
	rd.DeferClassify()
	p := newBatches(max(opts.Workers, 1), opts.MaxBytes)
	for rd.Next() {
		p.submit(rd)
	}
	t := p.close()
	if err := rd.Err(); err != nil {
		return nil, &session.IOError{Path: name, Err: err}
	}
	t.add(KindFile, "", rd.BytesRead(), p.lines)
	u := &Usage{File: name, Bytes: rd.BytesRead(), Files: 1}
	u.Rows = t.rows()
	return u, nil
}

// Sum adds up the usages of many files under one name.
func Sum(name string, us []*Usage) *Usage {
	t := tally{}
	s := &Usage{File: name}
	for _, u := range us {
		s.Bytes += u.Bytes
		s.Files += u.Files
		for _, r := range u.Rows {
			t.add(r.Kind, r.Name, r.Bytes, r.Entries)
			t.shrink(r.Kind, r.Name, r.Shrink)
		}
	}
	s.Rows = t.rows()
	return s
}

// ---- the tally ----

type key struct {
	kind Kind
	name string
}

type count struct{ entries, bytes, shrink int64 }

// tally is the rows of one worker, or of a file.
type tally map[key]*count

// add charges bytes and n entries to the row (kind, name); name may share
// a line's memory: it is copied when the row is new.
func (t tally) add(kind Kind, name string, bytes, n int64) {
	k := key{kind, name}
	c := t[k]
	if c == nil {
		k.name = strings.Clone(name)
		c = &count{}
		t[k] = c
	}
	c.entries += n
	c.bytes += bytes
}

// shrink charges what slim --rewrite would remove to the row (kind,
// name), which the line's counting made already.
func (t tally) shrink(kind Kind, name string, bytes int64) {
	if bytes == 0 {
		return
	}
	t.add(kind, name, 0, 0)
	t[key{kind, name}].shrink += bytes
}

func (t tally) merge(o tally) {
	for k, c := range o {
		t.add(k.kind, k.name, c.bytes, c.entries)
		t.shrink(k.kind, k.name, c.shrink)
	}
}

// rows lists the tally: by kind in listing order, largest first within a
// kind, then by name.
func (t tally) rows() []Row {
	rank := make(map[Kind]int, len(kinds))
	for i, k := range kinds {
		rank[k] = i
	}
	rows := make([]Row, 0, len(t))
	for k, c := range t {
		rows = append(rows, Row{Kind: k.kind, Name: k.name, Entries: c.entries, Bytes: c.bytes, Shrink: c.shrink})
	}
	slices.SortFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(rank[a.Kind], rank[b.Kind]), cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Name, b.Name))
	})
	return rows
}

// ---- the batches ----

// Batching, as validate batches: lines are copied into a batch's arena
// and a batch at a time is counted on a worker while the reader goes on;
// a line longer than a batch is a batch of its own, its bytes taken from
// the reader without a copy.
const (
	batchBytes = 256 << 10
	batchLines = 256
)

// item is one physical line of a batch: its bytes are arena[start:end].
type item struct {
	start, end int
	size       int64 // bytes in the file, terminator included
	atEOF      bool  // the last line, without a newline
	tooLong    bool  // over --max-line-bytes: not kept (verdict is the reader's)
	verdict    session.Verdict
}

type batch struct {
	arena []byte
	own   bool // arena is a long line's own bytes
	items []item
}

// batches counts batches on its workers (internal/pipeline), each into
// a counter of its own; with one worker, on the reader's goroutine.
type batches struct {
	p        *pipeline.Pipeline[*batch]
	counters []*counter // a worker's own
	cur      *batch
	free     []*batch // batches counted, to reuse
	lines    int64
}

func newBatches(workers int, maxBytes int64) *batches {
	p := &batches{cur: &batch{arena: make([]byte, 0, batchBytes)}, counters: make([]*counter, workers)}
	for w := range p.counters {
		p.counters[w] = newCounter(maxBytes)
	}
	p.p = pipeline.New(pipeline.Config[*batch]{
		Workers:  workers,
		InFlight: 3 * workers,
		Work:     func(w int, b *batch) error { p.counters[w].count(b); return nil },
		Settle:   func(b *batch) error { p.recycle(b); return nil },
	})
	return p
}

// submit queues the reader's current line.
func (p *batches) submit(rd *session.Reader) {
	l := rd.Line()
	p.lines++
	it := item{size: l.Size, atEOF: !l.Newline}
	if l.Class != session.Unclassified { // too long: not kept
		it.tooLong, it.verdict = true, l.Verdict
		p.cur.items = append(p.cur.items, it)
		p.full()
		return
	}
	if len(l.Raw) > batchBytes {
		p.flush()
		it.end = len(l.Raw)
		p.cur.arena, p.cur.own = rd.Detach(), true
		p.cur.items = append(p.cur.items, it)
		p.flush()
		return
	}
	b := p.cur
	it.start = len(b.arena)
	b.arena = append(b.arena, l.Raw...)
	it.end = len(b.arena)
	b.items = append(b.items, it)
	p.full()
}

func (p *batches) full() {
	if len(p.cur.arena) >= batchBytes || len(p.cur.items) >= batchLines {
		p.flush()
	}
}

// flush sends the current batch to be counted.
func (p *batches) flush() {
	b := p.cur
	if len(b.items) == 0 {
		return
	}
	p.p.Submit(b) // counting never fails
	if k := len(p.free); k > 0 {
		p.cur, p.free = p.free[k-1], p.free[:k-1]
	} else {
		p.cur = &batch{arena: make([]byte, 0, batchBytes)}
	}
}

// recycle empties a counted batch for reuse; a long line's bytes go.
func (p *batches) recycle(b *batch) {
	if b.own {
		b.arena, b.own = make([]byte, 0, batchBytes), false
	}
	b.arena, b.items = b.arena[:0], b.items[:0]
	p.free = append(p.free, b)
}

// close counts what is left and returns the file's tally.
func (p *batches) close() tally {
	p.flush()
	p.p.Wait()
	t := tally{}
	for _, c := range p.counters {
		t.merge(c.tally)
	}
	return t
}
