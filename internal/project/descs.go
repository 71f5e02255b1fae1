package project

import (
	"bufio"
	"io"

	"github.com/pisess/pisess/internal/safefile"
)

// descriptions holds what the Describer of OpenDescribed made of each
// entry, outside the heap: in a spool (memory up to 4 MiB, then an
// unlinked temporary file), one after the other in entry order, while the
// index keeps each one's length (strStore). A view reads them back in
// about that order (RecordReader.Description), so a session of many
// entries costs the index no more memory described than not: on a 1 GB
// session of 269,177 entries they are 24 MB.
type descriptions struct {
	spool safefile.Spool
	w     *bufio.Writer // in front of the spool, while the index is built
	at    int64         // bytes written so far
	marks []int64       // where the description of every markEvery-th entry starts
	r     io.ReaderAt   // the spool, once the index is built (nil: none to read)
	err   error         // the spool could not be written or read back
}

// markEvery is how many entries lie between two marks: a description is
// found from the mark before it, adding up at most this many lengths.
const markEvery = 64

// add appends the description of entry i, which must be the entry after
// the last one added (every entry is added, most with no description).
func (d *descriptions) add(i int, desc string) {
	if i%markEvery == 0 {
		d.marks = append(d.marks, d.at)
	}
	if desc == "" || d.err != nil {
		return
	}
	if d.w == nil {
		d.w = bufio.NewWriterSize(&d.spool, 64<<10)
	}
	n, err := d.w.WriteString(desc)
	d.at += int64(n)
	d.err = err
}

// finish ends the writing: the descriptions can be read from then on.
func (d *descriptions) finish() {
	if d.w == nil || d.err != nil {
		return
	}
	if d.err = d.w.Flush(); d.err != nil {
		return
	}
	d.w = nil
	r, err := d.spool.Reader()
	if ra, ok := r.(io.ReaderAt); ok && err == nil {
		d.r = ra
		return
	}
	d.err = err
}

// close lets the spool's file go.
func (d *descriptions) close() { d.spool.Close() }

// descWindow is how much of the descriptions a RecordReader reads at once
// when it reads them in order, and descJump when it jumps to another
// place (a tree's next branch): a jump is mostly followed by a few
// entries, and a full window each time was most of what tree allocated on
// a session of many branches (2,926 jumps, 190 MB, on the 150 MB
// small-entry session); a long run after a jump goes on in full windows.
const (
	descWindow = 64 << 10
	descJump   = 4 << 10
)

// descCursor is a RecordReader's place in the descriptions: the window it
// read last, and where the entry after the one it read last begins.
//
// A new window is read into spare, the one read before it, rather than a
// new buffer: a string returned from the window being replaced stays
// good, as Description promises, and the two buffers are all a reader
// allocates for a whole view (a new window each time was 40 MB of
// garbage a tree on the 150 MB small-entry session, a third of what the
// view's collector at GOGC 8 ran for).
type descCursor struct {
	window []byte
	spare  []byte // the window before, to be read into next
	start  int64  // offset of window[0]
	next   int    // the index of the entry after the last one read
	nextAt int64  // and where its description begins
}

// keepDescWindow is the largest buffer a descCursor keeps for a later
// window: one that grew for a long description (a wide --width) goes.
const keepDescWindow = 1 << 20

// Description returns what the Describer of OpenDescribed made of entry
// e, or "" when it was not described or cannot be read (then read the
// record back: it describes the same). The string stays good after the
// next call.
func (rd *RecordReader) Description(e *Entry) string {
	s, c := rd.s, &rd.desc
	n := int64(s.strs.descLen(e.strs))
	if n == 0 || s.descs.r == nil {
		return ""
	}
	at := c.nextAt
	if e.Index != c.next {
		at = s.descStart(e.Index)
	}
	if at < c.start || at+n > c.start+int64(len(c.window)) {
		// A new window, read into the spare buffer, not the old one
		// refilled: what was returned from it stays good.
		size := int64(descWindow)
		if e.Index != c.next {
			size = descJump
		}
		need := int(max(n, size))
		w := c.spare
		if cap(w) < need {
			w = make([]byte, need, max(need, descWindow)) // a jump's window is read into it later
		}
		w = w[:need]
		got, err := s.descs.r.ReadAt(w, at)
		if int64(got) < n {
			_ = err // read back instead
			c.spare = w
			return ""
		}
		c.spare = c.window[:0]
		if cap(c.spare) > keepDescWindow {
			c.spare = nil
		}
		c.window, c.start = w[:got], at
	}
	c.next, c.nextAt = e.Index+1, at+n
	return unsafeString(c.window[at-c.start : at-c.start+n])
}

// descStart is where the description of entry i begins: its mark, and
// the lengths of the entries between.
func (s *Session) descStart(i int) int64 {
	at := s.descs.marks[i/markEvery]
	for k := i &^ (markEvery - 1); k < i; k++ {
		at += int64(s.strs.descLen(s.Entries[k].strs))
	}
	return at
}
