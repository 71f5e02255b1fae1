package session

import (
	"iter"
	"unicode/utf8"
	"unsafe"
)

// strChunk is how much of an escaped string StrChunks decodes at a time.
const strChunk = 64 << 10

// StrChunks yields the value of string node n, decoded as Str decodes it,
// a piece at a time, each piece ending on a character boundary: for
// readers that measure or scan a string that may be hundreds of megabytes
// long without holding a decoded copy of it. A string without escapes is
// one piece that shares the input; an escaped one is decoded into one
// buffer of about 64 KiB, which the tape keeps for its next StrChunks, so a
// piece is valid only until the next piece, or the next StrChunks of the
// tape. Nothing when n is not a string.
func (t *Tape) StrChunks(n int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for piece := range t.Chunks(n) {
			if !yield(unsafe.String(&piece[0], len(piece))) {
				return
			}
		}
	}
}

// Chunks is StrChunks yielding the pieces as bytes, for a writer (a hash)
// that takes bytes: the same pieces, shared the same way, never empty.
func (t *Tape) Chunks(n int) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if n < 0 || t.nodes[n].kind != KindString {
			return
		}
		body := t.Text(n)
		if !t.nodes[n].escaped {
			if len(body) > 0 {
				yield(body)
			}
			return
		}
		buf := t.chunk[:0] // taken: a Chunks within this one makes its own
		t.chunk = nil
		if want := min(len(body), strChunk) + utf8.UTFMax + 8; cap(buf) < want {
			buf = make([]byte, 0, want)
		}
		defer func() { t.chunk = buf[:0] }()
		for i := 0; i < len(body); {
			buf, i = appendDecoded(buf, body, i, strChunk)
			cut := len(buf)
			if i < len(body) {
				cut = runeCut(buf)
			}
			if cut > 0 && !yield(buf[:cut:cut]) {
				return
			}
			buf = append(buf[:0], buf[cut:]...)
		}
	}
}

// runeCut is where b can be cut without splitting its last character: its
// length, or the start of an incomplete character at its end.
func runeCut(b []byte) int {
	for k := len(b) - 1; k >= 0 && k >= len(b)-utf8.UTFMax; k-- {
		if utf8.RuneStart(b[k]) {
			if utf8.FullRune(b[k:]) {
				return len(b)
			}
			return k
		}
	}
	return len(b)
}
