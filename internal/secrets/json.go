package secrets

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// errBadJSON: a span given as one JSON object is not one (it cannot be, as
// the classifier accepted it; the walker checks anyway and gives up).
var errBadJSON = errors.New("not a JSON object")

// frame is one open object or array of the walk.
type frame struct {
	object   bool
	wantKey  bool // object: the next string is a key
	count    int  // array: values before the current one
	key      [2]int
	keyValid bool
}

// walker visits the string values of one JSON object without decoding the
// rest. It is iterative, so nesting depth costs memory, not stack.
type walker struct {
	raw   []byte
	stack []frame
}

// walk calls visit with the span [start,end) of the contents (between the
// quotes) of every string value of raw, a complete JSON object. The
// walker's pointer and key describe where the string is while visit runs.
func (w *walker) walk(raw []byte, visit func(start, end int, escaped bool)) error {
	w.raw, w.stack = raw, w.stack[:0]
	for pos := 0; pos < len(raw); {
		switch c := raw[pos]; c {
		case ' ', '\t', '\n', '\r', ',', ':':
			pos++
		case '{', '[':
			w.stack = append(w.stack, frame{object: c == '{', wantKey: c == '{'})
			pos++
		case '}', ']':
			if len(w.stack) == 0 {
				return errBadJSON
			}
			w.stack = w.stack[:len(w.stack)-1]
			w.valueDone()
			pos++
		case '"':
			end, escaped := stringEnd(raw, pos+1)
			if end < 0 || len(w.stack) == 0 {
				return errBadJSON
			}
			if top := &w.stack[len(w.stack)-1]; top.object && top.wantKey {
				top.key, top.keyValid, top.wantKey = [2]int{pos + 1, end}, true, false
			} else {
				visit(pos+1, end, escaped)
				w.valueDone()
			}
			pos = end + 1
		default: // a number, true, false or null
			for pos < len(raw) && !strings.ContainsRune(" \t\n\r,:]}", rune(raw[pos])) {
				pos++
			}
			w.valueDone()
		}
	}
	if len(w.stack) != 0 {
		return errBadJSON
	}
	return nil
}

// valueDone moves the innermost open container past a value.
func (w *walker) valueDone() {
	if len(w.stack) == 0 {
		return
	}
	top := &w.stack[len(w.stack)-1]
	if top.object {
		top.wantKey = true
	} else {
		top.count++
	}
}

func (w *walker) keyString(span [2]int) string {
	s := w.raw[span[0]:span[1]]
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s)
	}
	out, _ := decodeString(s, nil, nil)
	return string(out)
}

// pointerWith returns the RFC 6901 JSON pointer of the value being
// visited, with each member name passed through clean (when not nil)
// first.
func (w *walker) pointerWith(clean func(string) string) string {
	var b strings.Builder
	for _, f := range w.stack {
		b.WriteByte('/')
		if !f.object {
			b.WriteString(strconv.Itoa(f.count))
			continue
		}
		name := w.keyString(f.key)
		if clean != nil {
			name = clean(name)
		}
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(name))
	}
	return b.String()
}

// stringEnd returns the index of the closing quote of the string whose
// contents start at i, and whether it has escapes; -1 if it is not closed.
func stringEnd(raw []byte, i int) (int, bool) {
	escaped := false
	for {
		q := bytes.IndexByte(raw[i:], '"')
		if q < 0 {
			return -1, escaped
		}
		q += i
		// The quote closes the string unless an odd run of backslashes
		// comes before it.
		n := 0
		for q-1-n >= i && raw[q-1-n] == '\\' {
			n++
		}
		escaped = escaped || bytes.IndexByte(raw[i:q], '\\') >= 0
		if n%2 == 0 {
			return q, escaped
		}
		i = q + 1
	}
}

// escapeSpan is one escape sequence of a JSON string: [0] the bytes
// [start,end) it decodes to, [1] the bytes [start,end) it is written with.
type escapeSpan [2][2]int

// offsetMap maps offsets in a decoded string to offsets in its JSON
// source: a boundary between decoded characters maps to a boundary between
// escapes, so replacing the source between two mapped offsets keeps the
// string valid.
type offsetMap []escapeSpan

// raw returns the source offset of decoded offset i.
func (m offsetMap) raw(i int) int { return m.convert(i, 0, 1) }

// dec returns the decoded offset of source offset r (which must not be
// inside an escape).
func (m offsetMap) dec(r int) int { return m.convert(r, 1, 0) }

// convert maps offset i on side from of the escapes (0 decoded, 1 source)
// to side to; an offset inside an escape maps to the escape's start.
func (m offsetMap) convert(i, from, to int) int {
	k := sort.Search(len(m), func(k int) bool { return m[k][from][0] > i }) - 1
	switch {
	case k < 0:
		return i
	case i < m[k][from][1]:
		return m[k][to][0]
	}
	return m[k][to][1] + i - m[k][from][1]
}

// decodeString decodes the contents of a JSON string (between the quotes)
// into dst, recording each escape in offs.
func decodeString(s []byte, dst []byte, offs offsetMap) ([]byte, offsetMap) {
	dst, offs = dst[:0], offs[:0]
	for i := 0; i < len(s); {
		j := bytes.IndexByte(s[i:], '\\')
		if j < 0 {
			dst = append(dst, s[i:]...)
			break
		}
		dst = append(dst, s[i:i+j]...)
		i += j
		if i+1 >= len(s) {
			break
		}
		start := i
		var r rune
		switch c := s[i+1]; c {
		case 'b', 'f', 'n', 'r', 't':
			r, i = rune("\b\f\n\r\t"[strings.IndexByte("bfnrt", c)]), i+2
		case 'u':
			r, i = hexRune(s, i)
			if utf16.IsSurrogate(r) {
				if r2, j := hexRune(s, i); utf16.IsSurrogate(r2) {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						r, i = pair, j
					}
				}
			}
		default: // \" \\ \/
			r, i = rune(s[i+1]), i+2
		}
		n := len(dst)
		dst = utf8.AppendRune(dst, r)
		offs = append(offs, escapeSpan{{n, len(dst)}, {start, i}})
	}
	return dst, offs
}

// hexRune reads the \uXXXX escape at s[i:], returning the code unit and
// the index after it (a bad escape reads as U+FFFD, two bytes on).
func hexRune(s []byte, i int) (rune, int) {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return utf8.RuneError, i + 2
	}
	v, err := strconv.ParseUint(string(s[i+2:i+6]), 16, 32)
	if err != nil {
		return utf8.RuneError, i + 2
	}
	return rune(v), i + 6
}
