package session

import (
	"errors"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Kind is the JSON type of a value on a Tape.
type Kind uint8

// The kinds of value. KindNone is the kind of no value (a missing key).
const (
	KindNone Kind = iota
	KindObject
	KindArray
	KindString
	KindNumber
	KindTrue
	KindFalse
	KindNull
)

// Tape is one JSON object laid out flat, in document order, without
// decoding it: a node per value and per object key, each with its span in
// the input. Building one costs no allocation once its node slice has
// grown, and reading it decodes only what is asked for (strings without
// escapes are shared with the input, not copied). It is what validation
// uses instead of map[string]any: a line's schema check and linkage facts
// need the types of its values and a few short strings, not the strings of
// its content.
//
// Node 0 is the object. An object's members follow it as key, value, key,
// value...; an array's elements follow it; Skip(n) is the index just after
// n and everything inside it. A Tape is reused by each Build and must not
// be shared by goroutines while it is being built.
type Tape struct {
	raw   []byte
	nodes []node
	i     int
	depth int
	keys  *Keys  // the keys named on the key nodes of this build, or nil
	next  *Keys  // the keys the next builds name (SetKeys)
	chunk []byte // StrChunks' buffer, kept for the next call (nil while one is under way)
}

type node struct {
	kind       Kind
	escaped    bool   // a string with escape sequences
	key        uint16 // a member's key: its number in the tape's Keys, 0 when none
	start, end int    // strings: the body between the quotes; numbers: the literal; containers: bracket to bracket
	next       int    // the index after this node's subtree
}

// Line is the fast path for a whole line that holds exactly one JSON
// object: it builds the object's tape and returns the object's span, as
// the Classifier would report it (Class Object, Objects[0]). ok is false
// for every other line; the caller then classifies the line, which
// explains it. Line checks what the Classifier checks (strict grammar, no
// control characters in strings, valid UTF-8, only spaces after the
// object), so ok implies the Classifier's verdict Object.
func (t *Tape) Line(line []byte) (span [2]int, ok bool) {
	if !utf8.Valid(line) {
		return span, false
	}
	start, err := t.build(line)
	if err != nil || skipSpace(line, t.i) != len(line) {
		t.reset(nil)
		return span, false
	}
	return [2]int{start, t.i}, true
}

// Build builds the tape of one complete JSON object, a span the
// Classifier accepted. The error is ErrTooDeep past MaxDepth.
func (t *Tape) Build(raw []byte) error {
	_, err := t.build(raw)
	return err
}

// build lays out the object at the start of raw (after white space) and
// returns where it starts; t.i is just past its end. On an error the tape
// is empty.
func (t *Tape) build(raw []byte) (start int, err error) {
	t.reset(raw)
	t.space()
	start, err = t.i, errNotObject
	if t.i < len(t.raw) && t.raw[t.i] == '{' {
		err = t.container(KindObject)
	}
	if err != nil {
		t.reset(nil)
	}
	return start, err
}

func (t *Tape) reset(raw []byte) {
	t.raw, t.nodes, t.i, t.depth, t.keys = raw, t.nodes[:0], 0, 0, t.next
}

func (t *Tape) space() {
	for t.i < len(t.raw) && t.raw[t.i] <= ' ' && isSpace(t.raw[t.i]) { // one compare for the usual byte
		t.i++
	}
}

// push appends a node and returns its index.
func (t *Tape) push(n node) int {
	t.nodes = append(t.nodes, n)
	return len(t.nodes) - 1
}

// pushLeaf appends a node with nothing inside it: the next node follows it.
func (t *Tape) pushLeaf(kind Kind, escaped bool, start, end int) {
	t.nodes = append(t.nodes, node{kind: kind, escaped: escaped, start: start, end: end, next: len(t.nodes) + 1})
}

func (t *Tape) value() error {
	t.space()
	if t.i >= len(t.raw) {
		return errSyntax
	}
	switch c := t.raw[t.i]; {
	case c == '{':
		return t.container(KindObject)
	case c == '[':
		return t.container(KindArray)
	case c == '"':
		return t.string()
	case c == 't':
		return t.literal("true", KindTrue)
	case c == 'f':
		return t.literal("false", KindFalse)
	case c == 'n':
		return t.literal("null", KindNull)
	}
	end, out := scanNumber(t.raw, t.i)
	if out != complete {
		return errSyntax
	}
	t.pushLeaf(KindNumber, false, t.i, end)
	t.i = end
	return nil
}

func (t *Tape) literal(lit string, k Kind) error {
	end, out := scanLiteral(t.raw, t.i, lit)
	if out != complete {
		return errSyntax
	}
	t.pushLeaf(k, false, t.i, end)
	t.i = end
	return nil
}

// string adds the string whose opening quote is at t.i.
func (t *Tape) string() error {
	start := t.i + 1
	i := plainRun(t.raw, start)
	escaped := false
	if i >= len(t.raw) || t.raw[i] != '"' {
		end, out := scanString(t.raw, i)
		if out != complete {
			return errSyntax
		}
		i, escaped = end-1, true
	}
	t.pushLeaf(KindString, escaped, start, i)
	t.i = i + 1
	return nil
}

// close finishes container n at t.i, just past its closing bracket.
func (t *Tape) close(n int) {
	t.i++
	t.depth--
	t.nodes[n].end = t.i
	t.nodes[n].next = len(t.nodes)
}

// container adds the object (kind KindObject) or the array whose opening
// bracket is at t.i.
func (t *Tape) container(kind Kind) error {
	if t.depth++; t.depth > MaxDepth {
		return ErrTooDeep
	}
	closer := byte(']')
	if kind == KindObject {
		closer = '}'
	}
	n := t.push(node{kind: kind, start: t.i})
	t.i++
	t.space()
	if t.i < len(t.raw) && t.raw[t.i] == closer {
		t.close(n)
		return nil
	}
	for {
		if kind == KindObject {
			t.space()
			if t.i >= len(t.raw) || t.raw[t.i] != '"' {
				return errSyntax
			}
			if err := t.string(); err != nil {
				return err
			}
			if t.keys != nil {
				t.nameKey(len(t.nodes) - 1)
			}
			t.space()
			if t.i >= len(t.raw) || t.raw[t.i] != ':' {
				return errSyntax
			}
			t.i++
		}
		if err := t.value(); err != nil {
			return err
		}
		t.space()
		switch {
		case t.i >= len(t.raw):
			return errSyntax
		case t.raw[t.i] == ',':
			t.i++
		case t.raw[t.i] == closer:
			t.close(n)
			return nil
		default:
			return errSyntax
		}
	}
}

// Kind returns the kind of node n; KindNone for n < 0 (a missing value).
func (t *Tape) Kind(n int) Kind {
	if n < 0 {
		return KindNone
	}
	return t.nodes[n].kind
}

// Skip returns the index just after node n and all the nodes inside it.
func (t *Tape) Skip(n int) int { return t.nodes[n].next }

// Get returns the value node of key in object obj, or -1 when obj is not
// an object or has no such key. Of duplicate keys the last counts, as in
// JSON.parse and encoding/json.
func (t *Tape) Get(obj int, key string) int {
	if obj < 0 || t.nodes[obj].kind != KindObject {
		return -1
	}
	found := -1
	for k, end := obj+1, t.nodes[obj].next; k < end; k = t.nodes[k+1].next {
		if t.KeyIs(k, key) {
			found = k + 1
		}
	}
	return found
}

// KeyIs reports whether string node k holds key.
func (t *Tape) KeyIs(k int, key string) bool {
	n := &t.nodes[k]
	if !n.escaped {
		return string(t.raw[n.start:n.end]) == key
	}
	s, _ := t.Str(k)
	return s == key
}

// Text returns the bytes of node n: a string's body as written (escapes
// not decoded), a number's literal, a container from bracket to bracket.
func (t *Tape) Text(n int) []byte {
	return t.raw[t.nodes[n].start:t.nodes[n].end]
}

// Escaped reports whether string node n has escape sequences.
func (t *Tape) Escaped(n int) bool { return t.nodes[n].escaped }

// Str returns the value of string node n; ok is false when n is not a
// string (or is -1). A string without escapes shares the input's memory
// and is valid only while the input is; one with escapes is a copy.
func (t *Tape) Str(n int) (s string, ok bool) {
	if n >= 0 {
		if nd := &t.nodes[n]; nd.kind == KindString && !nd.escaped { // the usual string: inlined
			return unsafe.String(&t.raw[nd.start], nd.end-nd.start), true // raw[start] is at most the closing quote
		}
	}
	return t.strSlow(n)
}

// strSlow is Str of anything but a string without escapes.
func (t *Tape) strSlow(n int) (s string, ok bool) {
	if n < 0 || t.nodes[n].kind != KindString {
		return "", false
	}
	out := unescapeBody(t.Text(n), len(t.Text(n)))
	if len(out) == 0 {
		return "", true
	}
	return unsafe.String(&out[0], len(out)), true
}

// Int reads number node n as a 64-bit integer, as json.Number.Int64 does.
func (t *Tape) Int(n int) (int64, error) {
	if n < 0 || t.nodes[n].kind != KindNumber {
		return 0, errors.New("not a number")
	}
	if i, ok := plainInt(t.Text(n)); ok {
		return i, nil
	}
	return strconv.ParseInt(string(t.Text(n)), 10, 64)
}

// Value decodes node n into Go values as Decode does, strings copied; nil
// for n < 0. It is for the rare paths that need a whole value.
func (t *Tape) Value(n int) any {
	if n < 0 {
		return nil
	}
	return t.decode(n, false)
}
