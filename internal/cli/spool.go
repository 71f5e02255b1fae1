package cli

import (
	"bytes"
	"io"
	"os"

	"github.com/pisess/pisess/internal/render"
)

// spoolMemory is how much output a spool keeps in memory before it moves
// to a temporary file.
const spoolMemory = 4 << 20

// spool holds a command's output until it is complete, so that a command
// that fails half-way writes nothing: in memory up to spoolMemory, past it
// in a temporary file (removed at once), so a view of a huge session costs
// no more memory than a small one.
type spool struct {
	mem  bytes.Buffer
	file *os.File
}

// Write implements io.Writer.
func (s *spool) Write(p []byte) (int, error) {
	if s.file == nil && s.mem.Len()+len(p) <= spoolMemory {
		return s.mem.Write(p)
	}
	if s.file == nil {
		f, err := os.CreateTemp("", "pisess-out-*")
		if err != nil {
			return 0, err
		}
		os.Remove(f.Name())
		s.file = f
		if _, err := f.Write(s.mem.Bytes()); err != nil {
			return 0, err
		}
		s.mem = bytes.Buffer{}
	}
	return s.file.Write(p)
}

// copyTo writes the output to w with render.EscapeControls applied.
func (s *spool) copyTo(w io.Writer) error {
	if s.file == nil {
		_, err := w.Write(render.EscapeControls(s.mem.Bytes()))
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	e := newEscaper(w)
	if _, err := io.Copy(e, s.file); err != nil {
		return err
	}
	return e.flush(true)
}

// escapeBuffer is how much output an escaper holds before it writes.
const escapeBuffer = 1 << 20

// escaper writes what it is given through render.EscapeControls, a
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
	_, e.err = e.w.Write(render.EscapeControls(e.buf[:n]))
	e.buf = append(e.buf[:0], e.buf[n:]...)
	return e.err
}

// discard lets the temporary file go.
func (s *spool) discard() {
	if s.file != nil {
		s.file.Close()
	}
}

// reader reads the output back as it was written.
func (s *spool) reader() (io.Reader, error) {
	if s.file == nil {
		return bytes.NewReader(s.mem.Bytes()), nil
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return s.file, nil
}
