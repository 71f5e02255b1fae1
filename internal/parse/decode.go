package parse

import (
	"encoding/json"
	"errors"
	"fmt"
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
	v, err := d.object()
	if err != nil {
		return nil, err
	}
	return v, nil
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

func (d *decoder) object() (map[string]any, error) {
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
		if done, err := d.separator('}'); err != nil {
			return nil, err
		} else if done {
			return m, nil
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
		if done, err := d.separator(']'); err != nil {
			return nil, err
		} else if done {
			return a, nil
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

// string decodes the string whose opening quote is at d.i. Like the
// Classifier it refuses control characters and malformed escapes.
func (d *decoder) string() (string, error) {
	start := d.i + 1
	i := plainRun(d.b, start)
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

// unescape decodes, in one pass, the string that starts at b[start] and
// whose first special byte is at b[i]. The result is a buffer of its own,
// written once.
func (d *decoder) unescape(start, i int) (string, error) {
	out := make([]byte, 0, 2*(i-start)+32)
	out = append(out, d.b[start:i]...)
	for {
		if i >= len(d.b) || d.b[i] < 0x20 {
			return "", errSyntax
		}
		if d.b[i] == '"' {
			break
		}
		var n int
		if out, n = appendEscape(out, d.b[i:]); n == 0 {
			return "", errSyntax
		}
		i += n
		j := plainRun(d.b, i)
		out = append(out, d.b[i:j]...)
		i = j
	}
	d.i = i + 1
	if len(out) == 0 {
		return "", nil
	}
	return unsafe.String(&out[0], len(out)), nil
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
		if len(esc) < 6 || !isHex4(esc[2:6]) {
			return out, 0
		}
		r := hex4(esc[2:6])
		if !utf16.IsSurrogate(r) {
			return utf8.AppendRune(out, r), 6
		}
		if len(esc) >= 12 && esc[6] == '\\' && esc[7] == 'u' && isHex4(esc[8:12]) {
			if dec := utf16.DecodeRune(r, hex4(esc[8:12])); dec != utf8.RuneError {
				return utf8.AppendRune(out, dec), 12
			}
		}
		return utf8.AppendRune(out, utf8.RuneError), 6
	}
	return out, 0
}

func isHex4(b []byte) bool {
	return isHex(b[0]) && isHex(b[1]) && isHex(b[2]) && isHex(b[3])
}

// hex4 reads four hex digits that scanString accepted.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			r = r<<4 | rune(c-'0')
		case c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			r = r<<4 | rune(c-'a'+10)
		}
	}
	return r
}

// separator reads what follows a member of a container: a comma (more to
// come) or the container's closer (done, and the container is left).
func (d *decoder) separator(closer byte) (done bool, err error) {
	d.space()
	if d.i >= len(d.b) {
		return false, errSyntax
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		return false, nil
	case closer:
		d.i++
		d.depth--
		return true, nil
	}
	return false, errSyntax
}
