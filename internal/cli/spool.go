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

// copyTo writes the output to w with render.EscapeControls applied, a
// chunk at a time (a chunk never ends inside the two bytes of a C1
// control).
func (s *spool) copyTo(w io.Writer) error {
	if s.file == nil {
		_, err := w.Write(render.EscapeControls(s.mem.Bytes()))
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	held := 0 // bytes carried over from the previous chunk
	for {
		n, err := io.ReadFull(s.file, buf[held:])
		n += held
		held = 0
		if n > 0 && buf[n-1] == 0xc2 && err == nil {
			held, n = 1, n-1
		}
		if _, werr := w.Write(render.EscapeControls(buf[:n])); werr != nil {
			return werr
		}
		if held == 1 {
			buf[0] = 0xc2
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// discard lets the temporary file go.
func (s *spool) discard() {
	if s.file != nil {
		s.file.Close()
	}
}
