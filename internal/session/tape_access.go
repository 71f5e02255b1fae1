package session

import (
	"bytes"
	"iter"
	"strconv"
)

// Accessors for readers that walk a Tape rather than look single keys up:
// the projection, the token estimate and the views read records this way.

// Raw returns the bytes of node n as written in the input, a string with
// its quotes; nil for n < 0. It is what a reader copies to reproduce a
// value exactly (numbers, escapes and key order untouched).
func (t *Tape) Raw(n int) []byte {
	if n < 0 {
		return nil
	}
	start, end := t.Span(n)
	return t.raw[start:end]
}

// Span returns where node n lies in the input, as Raw does (strings with
// their quotes).
func (t *Tape) Span(n int) (start, end int) {
	start, end = t.nodes[n].start, t.nodes[n].end
	if t.nodes[n].kind == KindString {
		start, end = start-1, end+1
	}
	return start, end
}

// Input returns the bytes the tape was built from.
func (t *Tape) Input() []byte { return t.raw }

// Members yields the key node and value node of each member of object
// obj, in document order (duplicate keys included); nothing when obj is
// not an object.
func (t *Tape) Members(obj int) iter.Seq2[int, int] {
	return func(yield func(key, value int) bool) {
		if obj < 0 || t.nodes[obj].kind != KindObject {
			return
		}
		for k, end := obj+1, t.nodes[obj].next; k < end; k = t.nodes[k+1].next {
			if !yield(k, k+1) {
				return
			}
		}
	}
}

// Elements yields the element nodes of array arr in order; nothing when
// arr is not an array.
func (t *Tape) Elements(arr int) iter.Seq[int] {
	return func(yield func(int) bool) {
		if arr < 0 || t.nodes[arr].kind != KindArray {
			return
		}
		for e, end := arr+1, t.nodes[arr].next; e < end; e = t.nodes[e].next {
			if !yield(e) {
				return
			}
		}
	}
}

// Float reads number node n as a float64, as JSON.parse does (a literal
// out of range is ±Inf); ok is false when n is not a number.
func (t *Tape) Float(n int) (f float64, ok bool) {
	if n < 0 || t.nodes[n].kind != KindNumber {
		return 0, false
	}
	if f, ok := plainFloat(t.Text(n)); ok {
		return f, true
	}
	f, err := strconv.ParseFloat(string(t.Text(n)), 64)
	if err != nil {
		if ne, isNum := err.(*strconv.NumError); !isNum || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}

// StrOf returns the string member key of object obj, or "" when it is
// absent or not a string. Like Str, an unescaped string shares the input.
func (t *Tape) StrOf(obj int, key string) string {
	s, _ := t.Str(t.Get(obj, key))
	return s
}

// StrPrefix returns the value of string node n, decoded as Str decodes
// it, but cut after max bytes (possibly inside a character): for a reader
// that shows the start of a string that may be megabytes long.
// "" when n is not a string.
func (t *Tape) StrPrefix(n, max int) string {
	if n < 0 || t.nodes[n].kind != KindString {
		return ""
	}
	if !t.nodes[n].escaped {
		s, _ := t.Str(n)
		return s[:min(len(s), max)]
	}
	out := unescapeBody(t.Text(n), max)
	return string(out[:min(len(out), max)])
}

// unescapeBody decodes the body of a string that scanString accepted,
// stopping once at least max bytes are out (a cut escape may add a few
// more). Decoding never makes a body longer, so max = len(body) decodes
// it all.
func unescapeBody(body []byte, max int) []byte {
	out, _ := appendDecoded(make([]byte, 0, min(len(body), max+12)), body, 0, max)
	return out
}

// appendDecoded appends body, decoded from byte i on, to out until out
// holds at least limit bytes or body ends, and returns out and where in
// body it stopped.
func appendDecoded(out, body []byte, i, limit int) ([]byte, int) {
	for i < len(body) && len(out) < limit {
		run := body[i:min(len(body), i+limit-len(out))]
		j := bytes.IndexByte(run, '\\')
		if j < 0 {
			out = append(out, run...)
			i += len(run)
			continue
		}
		out = append(out, run[:j]...)
		var w int
		if out, w = appendEscape(out, body[i+j:]); w == 0 {
			return out, len(body) // cannot happen: scanString accepted the escapes
		}
		i += j + w
	}
	return out, i
}
