package safefile

import (
	"bytes"
	"errors"
	"io"
)

// spoolMemory is how much a Spool keeps in memory before it moves to a
// temporary file.
const spoolMemory = 4 << 20

// Spool holds bytes until they are complete: a dry run's new generation
// for the check that follows, a view's output until the view is done (so
// a command that fails half-way writes nothing). It keeps them in memory
// up to 4 MiB, past that in a temporary file of the system's (removed
// from its directory at once, so nothing is left behind), so a session
// with a 200 MB entry is not held again beside the line being read. Where
// no temporary file can be made or written, it stays in memory. The zero
// value is empty and ready; Close lets the file go.
type Spool struct {
	mem   bytes.Buffer
	file  *ScratchFile
	filed int64 // bytes written to file
}

// Write implements io.Writer.
func (s *Spool) Write(p []byte) (int, error) {
	if s.file == nil && s.mem.Len()+len(p) > spoolMemory {
		s.moveToFile()
	}
	if s.file != nil {
		n, err := s.file.Write(p)
		if err == nil {
			s.filed += int64(n)
			return n, nil
		}
		if err := s.moveToMemory(); err != nil {
			return 0, err
		}
	}
	return s.mem.Write(p)
}

// moveToFile moves what the spool holds to a temporary file, if it can.
func (s *Spool) moveToFile() {
	f, err := Scratch(nil, "pisess-spool-*")
	if err != nil {
		return
	}
	f.Unlink()
	n, err := f.Write(s.mem.Bytes())
	if err != nil {
		f.Close()
		return
	}
	s.file, s.filed, s.mem = f, int64(n), bytes.Buffer{}
}

// moveToMemory moves what the temporary file holds back to memory (the
// file system is full): the bytes written before the write that failed.
func (s *Spool) moveToMemory() error {
	f := s.file
	s.file = nil
	defer f.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if n, err := s.mem.ReadFrom(io.LimitReader(f, s.filed)); err != nil || n != s.filed {
		return errors.Join(errors.New("the spool's temporary file could not be read back"), err)
	}
	return nil
}

// Reader reads what the spool holds from the start: a regular file, when
// it has one, so a reader can measure its long lines (session.Source). It is
// good until the next Write.
func (s *Spool) Reader() (io.Reader, error) {
	if s.file == nil {
		return bytes.NewReader(s.mem.Bytes()), nil
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return s.file.File, nil // all of it: a failed write moved the spool to memory
}

// Bytes returns all the spool holds.
func (s *Spool) Bytes() ([]byte, error) {
	r, err := s.Reader()
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// Close lets the temporary file go.
func (s *Spool) Close() {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
}
