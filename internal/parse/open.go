package parse

import (
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
