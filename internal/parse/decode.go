package parse

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
	d := decoder{b: raw, alias: alias}
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return nil, errors.New("not an object")
	}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

type decoder struct {
	b     []byte
	i     int
	depth int
	alias bool
}

var errSyntax = errors.New("invalid JSON")

func (d *decoder) space() {
	for d.i < len(d.b) && isSpace(d.b[d.i]) {
		d.i++
	}
}

// value decodes the value at d.i. Containers recurse, bounded by MaxDepth.
func (d *decoder) value() (any, error) {
	d.space()
	if d.i >= len(d.b) {
		return nil, errSyntax
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.string()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		end, out := scanNumber(d.b, d.i)
		if out != complete {
			return nil, errSyntax
		}
		n := json.Number(d.text(d.b[d.i:end]))
		d.i = end
		return n, nil
	}
}

func (d *decoder) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		return ErrTooDeep
	}
	d.i++
	return nil
}

func (d *decoder) object() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	m := make(map[string]any, 8)
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return m, nil
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, errSyntax
		}
		key, err := d.string()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, errSyntax
		}
		d.i++
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[key] = v
		d.space()
		if d.i >= len(d.b) {
			return nil, errSyntax
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return m, nil
		default:
			return nil, errSyntax
		}
	}
}

func (d *decoder) array() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	a := make([]any, 0, 4)
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		return a, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, errSyntax
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return a, nil
		default:
			return nil, errSyntax
		}
	}
}

func (d *decoder) literal(lit string) error {
	end, out := scanLiteral(d.b, d.i, lit)
	if out != complete {
		return errSyntax
	}
	d.i = end
	return nil
}

// string decodes the string whose opening quote is at d.i.
func (d *decoder) string() (string, error) {
	start := d.i + 1
	i := start
	for i < len(d.b) && d.b[i] != '"' && d.b[i] != '\\' {
		i++
	}
	if i < len(d.b) && d.b[i] == '"' {
		d.i = i + 1
		return d.text(d.b[start:i]), nil
	}
	return d.unescape(start, i)
}

// text returns b as a string, sharing memory when aliasing.
func (d *decoder) text(b []byte) string {
	if d.alias && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

// unescape decodes a string with escapes; b[start:i] has none.
func (d *decoder) unescape(start, i int) (string, error) {
	out := make([]byte, 0, i-start+16)
	out = append(out, d.b[start:i]...)
	for i < len(d.b) {
		c := d.b[i]
		switch {
		case c == '"':
			d.i = i + 1
			return string(out), nil
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(d.b) {
			return "", errSyntax
		}
		i++
		switch e := d.b[i]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, next, err := d.unicodeEscape(i + 1)
			if err != nil {
				return "", err
			}
			out = utf8.AppendRune(out, r)
			i = next
			continue
		default:
			return "", errSyntax
		}
		i++
	}
	return "", errSyntax
}

// unicodeEscape decodes the XXXX of \uXXXX at b[i:], joining a surrogate
// pair; a lone surrogate becomes U+FFFD, as in encoding/json.
func (d *decoder) unicodeEscape(i int) (rune, int, error) {
	r, ok := hex4(d.b, i)
	if !ok {
		return 0, 0, errSyntax
	}
	i += 4
	if !utf16.IsSurrogate(r) {
		return r, i, nil
	}
	if i+6 <= len(d.b) && d.b[i] == '\\' && d.b[i+1] == 'u' {
		if r2, ok := hex4(d.b, i+2); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, i + 6, nil
			}
		}
	}
	return utf8.RuneError, i, nil
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(n), err == nil
}
