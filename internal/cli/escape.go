package cli

import (
	"io"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/text"
)

// copyEscaped writes what the spool holds to w with
// text.EscapeControls applied.
func copyEscaped(w io.Writer, sp *safefile.Spool) error {
	e := newEscaper(w)
	if err := copySpool(e, sp); err != nil {
		return err
	}
	return e.flush(true)
}

// copySpool writes what sp holds to w.
func copySpool(w io.Writer, sp *safefile.Spool) error {
	r, err := sp.Reader()
	if err == nil {
		_, err = io.Copy(w, r)
	}
	return err
}

// escapeBuffer is how much output an escaper holds before it writes.
const escapeBuffer = 1 << 20

// escaper writes what it is given through text.EscapeControls, a
// buffer at a time; a buffer it writes never ends inside the two bytes of
// a C1 control.
type escaper struct {
	w    io.Writer
	buf  []byte
	size int // how much it holds before it writes
	err  error
}

func newEscaper(w io.Writer) *escaper {
	return &escaper{w: w, buf: make([]byte, 0, escapeBuffer), size: escapeBuffer}
}

// Write implements io.Writer.
func (e *escaper) Write(p []byte) (int, error) {
	e.buf = append(e.buf, p...)
	if len(e.buf) >= e.size {
		return len(p), e.flush(false)
	}
	return len(p), e.err
}

// flush writes the buffer out, but for a last byte that may start a C1
// control unless final.
func (e *escaper) flush(final bool) error {
	if e.err != nil {
		return e.err
	}
	n := len(e.buf)
	if !final && n > 0 && e.buf[n-1] == 0xc2 {
		n--
	}
	_, e.err = e.w.Write(text.EscapeControls(e.buf[:n]))
	e.buf = append(e.buf[:0], e.buf[n:]...)
	return e.err
}
