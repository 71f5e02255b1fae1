package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth is the deepest nesting Decode accepts. Deeper values are an error
// (too_deep), never a stack overflow in a later recursive step.
const MaxDepth = 10000

// ErrTooDeep reports a value nested deeper than MaxDepth.
var ErrTooDeep = fmt.Errorf("value nested deeper than %d levels", MaxDepth)

// Decode decodes one complete JSON object (a span the Classifier accepted)
// into Go values as encoding/json would with UseNumber: objects are
// map[string]any (the last of duplicate keys wins, as in JSON.parse), arrays
// []any, numbers json.Number, and strings, bools and nil.
//
// With alias set, strings without escapes and numbers share raw's memory:
// the result is then only valid while raw is (the Reader reuses its buffer
// on Next). Without alias every string is a copy.
func Decode(raw []byte, alias bool) (map[string]any, error) {
	var t Tape
	if err := t.Build(raw); err != nil {
		return nil, err
	}
	return t.decode(0, alias).(map[string]any), nil
}

var (
	errSyntax    = errors.New("invalid JSON")
	errNotObject = errors.New("not an object")
)

// decode returns node n as Decode describes it. Containers recurse,
// bounded by MaxDepth (Build refuses deeper input).
func (t *Tape) decode(n int, alias bool) any {
	switch t.nodes[n].kind {
	case KindObject:
		m := make(map[string]any, 8)
		for k, v := range t.Members(n) {
			m[t.shared(k, alias)] = t.decode(v, alias)
		}
		return m
	case KindArray:
		a := make([]any, 0, 4)
		for e := range t.Elements(n) {
			a = append(a, t.decode(e, alias))
		}
		return a
	case KindString:
		return t.shared(n, alias)
	case KindNumber:
		return json.Number(t.shared(n, alias))
	case KindTrue:
		return true
	case KindFalse:
		return false
	}
	return nil
}

// shared returns the value of string node n, or the literal of number
// node n: sharing the input when aliasing and there is nothing to
// unescape, else a copy.
func (t *Tape) shared(n int, alias bool) string {
	var s string
	if t.nodes[n].kind == KindNumber {
		b := t.Text(n)
		s = unsafe.String(&b[0], len(b))
	} else {
		s, _ = t.Str(n)
	}
	if alias || t.nodes[n].escaped {
		return s // an escaped string is a copy already
	}
	return strings.Clone(s)
}

// appendEscape appends the character of the escape sequence at the start
// of esc and reports how many bytes it took, or 0 when it is malformed. A
// \u escape joins a surrogate pair; a lone surrogate becomes U+FFFD, as in
// encoding/json.
func appendEscape(out, esc []byte) ([]byte, int) {
	if len(esc) < 2 {
		return out, 0
	}
	switch e := esc[1]; e {
	case '"', '\\', '/':
		return append(out, e), 2
	case 'b':
		return append(out, '\b'), 2
	case 'f':
		return append(out, '\f'), 2
	case 'n':
		return append(out, '\n'), 2
	case 'r':
		return append(out, '\r'), 2
	case 't':
		return append(out, '\t'), 2
	case 'u':
		r, ok := hex4(esc, 2)
		switch {
		case !ok:
			return out, 0
		case !utf16.IsSurrogate(r):
			return utf8.AppendRune(out, r), 6
		}
		if len(esc) >= 8 && esc[6] == '\\' && esc[7] == 'u' {
			if r2, ok := hex4(esc, 8); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return utf8.AppendRune(out, dec), 12
				}
			}
		}
		return utf8.AppendRune(out, utf8.RuneError), 6
	}
	return out, 0
}

// hex4 reads the four hex digits at b[at:]; ok is false when b does not
// hold them.
func hex4(b []byte, at int) (r rune, ok bool) {
	if len(b) < at+4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[at:at+4]), 16, 16)
	return rune(v), err == nil
}
