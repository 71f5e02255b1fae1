//go:build unix

package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// Deep is the size of the big structures: depth of the chain, number of
// siblings, length of the cycle, levels of nesting.
const Deep = 100_000

// deep is the size of the big structures in this run: Deep, or a tenth
// of it with -short.
func deep() int { return size(Deep/10, Deep, Deep) }

// turn is the i-th entry of a generated session: users and assistants in
// turn.
func turn(i int, id, parent string) string {
	if i%2 == 0 {
		return Entry("message", id, parent, UserMsg(Q(fmt.Sprintf("question %d", i))))
	}
	return Entry("message", id, parent, AssistantMsg(TextBlock(Q(fmt.Sprintf("answer %d", i))), Usage("3", "0.0001")))
}

// Chain writes a version-3 session of n entries, each the child of the one
// before it: a single path n entries deep.
func Chain(w io.Writer, n int) error {
	return writeEntries(w, n, func(i int) string {
		parent := ""
		if i > 0 {
			parent = ID(i)
		}
		return turn(i, ID(i+1), parent)
	})
}

// Siblings writes a version-3 session with one root and n children of it
// (n branches at one point; the last child is the leaf).
func Siblings(w io.Writer, n int) error {
	return writeEntries(w, n+1, func(i int) string {
		if i == 0 {
			return turn(0, ID(1), "")
		}
		return turn(1, ID(i+1), ID(1))
	})
}

// Cycle writes a version-3 session of n entries whose parentIds form one
// cycle through forward references: entry i names entry i+1 as its parent,
// and the last names the first.
func Cycle(w io.Writer, n int) error {
	return writeEntries(w, n, func(i int) string {
		return turn(i, ID(i+1), ID((i+1)%n+1))
	})
}

// writeEntries writes a header and the n lines line(0..n-1).
func writeEntries(w io.Writer, n int, line func(i int) string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(Header(3) + "\n")
	for i := 0; i < n; i++ {
		bw.WriteString(line(i))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// LongLine returns a reader of head followed by filler bytes, size bytes
// in all and no newline: one line that never ends, made on the fly, never
// held in memory.
func LongLine(head []byte, filler byte, size int64) io.Reader {
	if int64(len(head)) > size {
		head = head[:size]
	}
	return io.MultiReader(bytes.NewReader(head), io.LimitReader(repeatReader(filler), size-int64(len(head))))
}

// repeatReader reads as an endless run of one byte.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// WriteSparse writes head to a new file at path and extends it to size
// bytes with a hole: the rest reads as NUL bytes and takes no disk space.
func WriteSparse(path string, head []byte, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(head)
	if err == nil {
		err = f.Truncate(size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// RepeatBody returns src's first line (its header) followed by its other
// lines, repeated until the result holds at least size bytes. Repeating a
// version-1 session's entries gives a bigger valid version-1 session (its
// entries have no ids to collide).
func RepeatBody(src []byte, size int) []byte {
	nl := bytes.IndexByte(src, '\n')
	if nl < 0 || nl == len(src)-1 {
		return bytes.Clone(src)
	}
	head, body := src[:nl+1], src[nl+1:]
	if body[len(body)-1] != '\n' {
		body = append(bytes.Clone(body), '\n')
	}
	out := bytes.NewBuffer(make([]byte, 0, size+len(body)))
	out.Write(head)
	for out.Len() < size {
		out.Write(body)
	}
	return out.Bytes()
}

// Prefix returns the longest prefix of src that ends with a newline and
// holds at most size bytes (at least the first line).
func Prefix(src []byte, size int) []byte {
	if size >= len(src) {
		return src
	}
	if i := bytes.LastIndexByte(src[:size], '\n'); i >= 0 {
		return src[:i+1]
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		return src[:i+1]
	}
	return src
}
