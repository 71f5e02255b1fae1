package fix

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"runtime"

	"github.com/pisess/pisess/internal/session"

	"github.com/pisess/pisess/internal/pipeline"
)

// slim --rewrite slims the lines of a file on the cores: the reader copies
// lines into batches, a batch at a time is slimmed on a worker (each line
// laid on a tape, its blocks selected and the removed ones hashed) while
// the reader goes on, and the batches' new bytes are written in file order
// on the reader's goroutine (internal/pipeline). The lines are independent
// but for the record number a dropped entry is planned by, which the
// reader counts (startsObject).
const (
	slimBatchBytes = 256 << 10 // lines are copied into a batch until it holds this many bytes
	slimBatchLines = 256       // or lines
	slimAloneLine  = 4 << 20   // a longer line is slimmed on the reader's goroutine, with no other in memory
)

// slimItem is one physical line of a batch and, once slimmed, what to
// write for it.
type slimItem struct {
	line       session.Line // its bytes are arena[start:end]; the worker sets Raw
	start, end int
	object     bool // the line starts an object (startsObject)
	entry      int  // then the record it holds: -1 the header
	verbatim   bool // the line is written as it is
	out        [2]int
}

// slimBatch is a run of consecutive lines, their new bytes (out: the
// lines not written verbatim, each item's span of it; a dropped entry's
// is empty) and the slimmer that made them.
type slimBatch struct {
	arena []byte
	items []slimItem
	out   bytes.Buffer
	ls    lineSlimmer
}

// lineSlimmer slims one line at a time, with a tape, classifier and editor
// of its own, and counts what it removed.
type lineSlimmer struct {
	maxBytes int64
	drop     *dropPlan
	t        session.Tape
	cls      session.Classifier
	ed       session.Editor
	stats    RewriteStats
}

// slim writes the new bytes of line l to w, object and entry as the reader
// counted them: a dropped entry's none; verbatim is a line to be written
// as it is instead (the header, a blank line, an entry without an edit).
// Any other line that holds no object is refused (refuseNonObject).
func (s *lineSlimmer) slim(w io.Writer, l *session.Line, object bool, entry int) (verbatim bool, err error) {
	span, ok := objectLine(&s.t, &s.cls, l)
	switch {
	case !ok:
		return true, refuseNonObject(l)
	case !object:
		return false, fmt.Errorf("line %d holds an object that startsObject did not count: the record numbers are off", l.Num)
	case entry < 0:
		return true, nil
	case s.drop.drops(entry):
		s.stats.CustomDropped++
		s.stats.CustomBytes += l.Size
		return false, nil
	}
	s.ed.Reset(&s.t)
	if parent, ok := s.drop.newParent(entry); ok {
		s.ed.Set(0, "parentId", parent)
		s.stats.Reparented++
	}
	id := ""
	for b := range session.Blocks(&s.t) {
		if b.Placeholder {
			s.stats.Placeholders++
			continue
		}
		if b.Bytes <= s.maxBytes {
			continue
		}
		if id == "" {
			id = s.t.StrOf(0, "id")
		}
		value := session.PlaceholderValue(b, session.PlaceholderText(b, session.DigestOf(&s.t, b), id))
		s.ed.Replace(b.Node, value)
		s.stats.count(b, int64(len(value)))
	}
	if !s.ed.Changed() {
		return true, nil
	}
	w.Write(l.Raw[:span[0]])
	if _, err := s.ed.WriteTo(w); err != nil {
		return false, err
	}
	w.Write(l.Raw[span[1]:])
	_, err = w.Write(terminator(l))
	return false, err
}

// startsObject reports whether raw starts, after white space, an object:
// the lines the records are counted by. Any other line is blank or
// refused, so the count is the objects' wherever it matters.
func startsObject(raw []byte) bool {
	rest := bytes.TrimLeft(raw, " \t\r\n")
	return len(rest) > 0 && rest[0] == '{'
}

// slimLines is one slim --rewrite's lines on their way through the
// workers to w.
type slimLines struct {
	p     *pipeline.Pipeline[*slimBatch]
	w     *bufio.Writer
	stats *RewriteStats // the figures of the lines settled
	proto lineSlimmer   // what each batch's slimmer starts as
	alone lineSlimmer   // the slimmer of the lines slimmed alone
	cur   *slimBatch
	free  []*slimBatch
	next  int // the record number of the next line that starts an object
}

func (g *slimRewriter) slimLines(w *bufio.Writer) *slimLines {
	proto := lineSlimmer{maxBytes: g.opts.MaxBytes, drop: g.drop}
	s := &slimLines{w: w, stats: &g.stats, proto: proto, alone: proto, next: -1}
	s.p = pipeline.New(pipeline.Config[*slimBatch]{
		Workers: cmp.Or(g.opts.Workers, runtime.GOMAXPROCS(0)),
		Work:    func(_ int, b *slimBatch) error { return b.slim() },
		Settle:  s.settle,
	})
	s.cur = s.newBatch()
	return s
}

func (s *slimLines) newBatch() *slimBatch {
	if n := len(s.free); n > 0 {
		b := s.free[n-1]
		s.free = s.free[:n-1]
		return b
	}
	return &slimBatch{arena: make([]byte, 0, slimBatchBytes), ls: s.proto}
}

// add takes the current line of rd: copied into the current batch, a
// long one as a batch of its own, a very long one slimmed at once.
func (s *slimLines) add(rd *session.Reader) error {
	l := rd.Line()
	it := slimItem{line: *l}
	if startsObject(l.Raw) {
		it.object, it.entry = true, s.next
		s.next++
	}
	it.line.Raw = nil
	if len(l.Raw) > slimAloneLine {
		return s.slimAlone(l, it)
	}
	b := s.cur
	it.start = len(b.arena)
	b.arena = append(b.arena, l.Raw...)
	it.end = len(b.arena)
	b.items = append(b.items, it)
	if len(b.arena) >= slimBatchBytes || len(b.items) >= slimBatchLines {
		return s.submit()
	}
	return nil
}

// submit sends the current batch to the workers.
func (s *slimLines) submit() error {
	if len(s.cur.items) == 0 {
		return nil
	}
	b := s.cur
	s.cur = s.newBatch()
	return s.p.Submit(b)
}

// slimAlone slims line l once every line before it is written, on the
// reader's goroutine and straight to w: the line is held once, in the
// reader.
func (s *slimLines) slimAlone(l *session.Line, it slimItem) error {
	if err := s.submit(); err != nil {
		return err
	}
	if err := s.p.Drain(); err != nil {
		return err
	}
	s.alone.stats = RewriteStats{}
	verbatim, err := s.alone.slim(s.w, l, it.object, it.entry)
	s.alone.t, s.alone.ed = session.Tape{}, session.Editor{} // they hold on to the line
	if err != nil {
		return err
	}
	s.stats.add(&s.alone.stats)
	if verbatim {
		return copyLine(s.w, l)
	}
	return nil
}

// slim slims every line of b, on a worker.
func (b *slimBatch) slim() error {
	b.ls.stats = RewriteStats{}
	b.out.Reset()
	for i := range b.items {
		it := &b.items[i]
		it.line.Raw = b.arena[it.start:it.end]
		start := b.out.Len()
		verbatim, err := b.ls.slim(&b.out, &it.line, it.object, it.entry)
		if err != nil {
			return err
		}
		it.verbatim, it.out = verbatim, [2]int{start, b.out.Len()}
	}
	return nil
}

// settle writes the lines of b, in file order, and counts what they
// removed.
func (s *slimLines) settle(b *slimBatch) error {
	out := b.out.Bytes()
	for i := range b.items {
		it := &b.items[i]
		var err error
		if it.verbatim {
			err = copyLine(s.w, &it.line)
		} else {
			_, err = s.w.Write(out[it.out[0]:it.out[1]])
		}
		if err != nil {
			return err
		}
	}
	s.stats.add(&b.ls.stats)
	clear(b.items) // their Raw
	b.arena, b.items = b.arena[:0], b.items[:0]
	s.free = append(s.free, b)
	return nil
}

// close writes what is left; stop stops the workers (after close, or in
// place of it when the reading failed).
func (s *slimLines) close() error {
	if err := s.submit(); err != nil {
		return err
	}
	return s.p.Wait()
}

func (s *slimLines) stop() { s.p.Close() }

// add adds the figures of o, later lines', to s.
func (s *RewriteStats) add(o *RewriteStats) {
	s.BlocksRemoved += o.BlocksRemoved
	s.Placeholders += o.Placeholders
	s.CustomDropped += o.CustomDropped
	s.CustomBytes += o.CustomBytes
	s.Reparented += o.Reparented
	for _, r := range o.Removed {
		s.addRemoved(r)
	}
}
