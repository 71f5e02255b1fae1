package validate

import (
	"strings"
	"unsafe"
)

// The linkage index lives in the two stores below: they grow without ever
// copying what they hold, so a file's index costs what it stores, not the
// twice as much a growing slice passes through, and they keep no pointer
// per entry for the garbage collector to follow.

// chunkBits sets the size of a full chunk: 4096 elements.
const chunkBits = 12

// chunks is an append-only sequence kept in chunks of 1<<chunkBits
// elements. The first chunk grows like a slice, so a small file stays
// small; after it, every chunk is allocated at full size once.
type chunks[T any] struct {
	c [][]T
	n int32
}

// add appends v and returns its index.
func (s *chunks[T]) add(v T) int32 {
	i := s.n
	if i>>chunkBits == int32(len(s.c)) {
		size := 1 << chunkBits
		if i == 0 {
			size = 16
		}
		s.c = append(s.c, make([]T, 0, size))
	}
	last := &s.c[len(s.c)-1]
	*last = append(*last, v)
	s.n++
	return i
}

// at returns the element at index i.
func (s *chunks[T]) at(i int32) *T { return &s.c[i>>chunkBits][i&(1<<chunkBits-1)] }

// len is the number of elements.
func (s *chunks[T]) len() int32 { return s.n }

// textRef names a string kept in texts: chunk<<32 | offset<<16 | length,
// or longText | index for a string kept on its own. The zero textRef is "".
type textRef uint64

const (
	textChunk = 1 << 16 // bytes in a full chunk
	longText  = 1 << 63 // the string is texts.long[ref&^longText]
	maxShort  = 1 << 12 // longer strings are kept on their own
)

// texts keeps short strings (tool call ids and names) back to back in
// chunks of bytes: eight bytes of reference per string, no allocation per
// string. Bytes once written never change, so get can share them.
type texts struct {
	chunks [][]byte
	long   []string
}

// add keeps a copy of s.
func (t *texts) add(s string) textRef {
	if s == "" {
		return 0
	}
	if len(s) > maxShort {
		t.long = append(t.long, strings.Clone(s))
		return longText | textRef(len(t.long)-1)
	}
	if n := len(t.chunks); n == 0 || len(t.chunks[n-1])+len(s) > textChunk {
		size := textChunk
		if n == 0 {
			size = 256
		}
		t.chunks = append(t.chunks, make([]byte, 0, size))
	}
	c := len(t.chunks) - 1
	off := len(t.chunks[c])
	t.chunks[c] = append(t.chunks[c], s...) // may move the chunk: refs are offsets
	return textRef(c)<<32 | textRef(off)<<16 | textRef(len(s))
}

// get returns the string behind r; it shares the store's memory.
func (t *texts) get(r textRef) string {
	if r&longText != 0 {
		return t.long[r&^longText]
	}
	n := int(r & 0xffff)
	if n == 0 {
		return ""
	}
	off := int(r >> 16 & 0xffff)
	b := t.chunks[r>>32][off : off+n]
	return unsafe.String(&b[0], n)
}
