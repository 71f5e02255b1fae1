package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenFile opens a session file for reading. It never blocks in open: a
// FIFO that no process has open for writing (say, a *.jsonl named pipe in
// a sessions directory) reads as empty instead of hanging the command,
// while a pipe with a writer (`pisess validate <(zcat old.jsonl.gz)`)
// reads to its end as usual. O_NONBLOCK does nothing to regular files.
func OpenFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// IOError is a session file that could not be read (the commands map it
// to exit code 2): not a finding about its content.
type IOError struct {
	Path string
	Err  error
}

func (e *IOError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *IOError) Unwrap() error { return e.Err }

// OpenSession opens the session file at path for reading as OpenFile
// does, with its FileInfo; a directory, or a file that cannot be opened or
// stat'ed, is an *IOError.
func OpenSession(path string) (*os.File, fs.FileInfo, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, nil, &IOError{Path: path, Err: err}
	}
	info, err := f.Stat()
	if err == nil && info.IsDir() {
		err = errors.New("is a directory")
	}
	if err != nil {
		f.Close()
		return nil, nil, &IOError{Path: path, Err: err}
	}
	return f, info, nil
}
