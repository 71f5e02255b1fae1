package session

import (
	"encoding/binary"
	"math/bits"
)

// This file holds the incremental JSON recogniser: it tells a complete value
// from a viable prefix (input that could still be completed into valid JSON)
// and from input that can never become JSON. It never recurses, so nesting
// depth is bounded only by memory (one byte per level).

// outcome is what scanning one JSON value found.
type outcome uint8

const (
	complete   outcome = iota // a whole value ends at the returned index
	incomplete                // the input ended, but could still be completed
	invalid                   // no continuation can make this JSON
)

// scanState is where an incomplete scan stopped, for the partial-tail rule
// on multi-byte characters: a torn character can only be inside a string.
type scanState uint8

const (
	outsideString scanState = iota
	insideString
)

// grammar states of the non-recursive value scanner.
const (
	wantValue      = iota // a value must start here
	wantArrayFirst        // just after '[': a value or ']'
	wantKeyFirst          // just after '{': a key or '}'
	wantKey               // after ',' in an object: a key
	wantColon             // after a key
	wantNext              // after a value inside a container: ',' or the closer
)

// scanner scans JSON values. The zero value is ready; it reuses its stack.
type scanner struct {
	stack []byte // '{' or '[' per open container
}

// isSpace reports JSON insignificant whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// value scans one JSON value starting at b[i] (after optional whitespace).
// It returns the index just past the value (complete), the index where the
// input ended (incomplete, with whether that was inside a string) or the
// index of the first impossible byte (invalid).
func (s *scanner) value(b []byte, i int) (int, outcome, scanState) {
	s.stack = s.stack[:0]
	state := wantValue
	for {
		i = skipSpace(b, i)
		if i == len(b) {
			return i, incomplete, outsideString
		}
		c := b[i]
		switch state {
		case wantArrayFirst: // ']' closes the array as after a value
			state = wantValue
			if c == ']' {
				state = wantNext
			}
			continue
		case wantKeyFirst, wantKey:
			if c == '}' && state == wantKeyFirst { // closes the object as after a value
				state = wantNext
				continue
			}
			if c != '"' {
				return i, invalid, outsideString
			}
			j, out := scanString(b, i+1)
			if out != complete {
				return j, out, insideString
			}
			i, state = j, wantColon
			continue
		case wantColon:
			if c != ':' {
				return i, invalid, outsideString
			}
			i, state = i+1, wantValue
			continue
		case wantNext:
			top := s.stack[len(s.stack)-1]
			switch {
			case c == ',' && top == '{':
				i, state = i+1, wantKey
			case c == ',':
				i, state = i+1, wantValue
			case (c == '}' && top == '{') || (c == ']' && top == '['):
				s.stack = s.stack[:len(s.stack)-1]
				i++
				if len(s.stack) == 0 {
					return i, complete, outsideString
				}
			default:
				return i, invalid, outsideString
			}
			continue
		}
		// state == wantValue
		var out outcome
		switch {
		case c == '{':
			s.stack = append(s.stack, '{')
			i, state = i+1, wantKeyFirst
			continue
		case c == '[':
			s.stack = append(s.stack, '[')
			i, state = i+1, wantArrayFirst
			continue
		case c == '"':
			i, out = scanString(b, i+1)
			if out == incomplete {
				return i, out, insideString
			}
		case c == 't':
			i, out = scanLiteral(b, i, "true")
		case c == 'f':
			i, out = scanLiteral(b, i, "false")
		case c == 'n':
			i, out = scanLiteral(b, i, "null")
		case c == '-' || ('0' <= c && c <= '9'):
			i, out = scanNumber(b, i)
		default:
			return i, invalid, outsideString
		}
		if out != complete {
			return i, out, outsideString
		}
		if len(s.stack) == 0 {
			return i, complete, outsideString
		}
		state = wantNext
	}
}

// stringSpecial marks the bytes that end the fast path inside a string:
// the closing quote, a backslash and the control characters JSON forbids.
var stringSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// plainRun returns the index of the first byte at or after i that
// stringSpecial marks, or len(b). It looks at sixteen bytes, two words,
// at a time and takes the first marked one of a word from its mask.
func plainRun(b []byte, i int) int {
	for ; i+16 <= len(b); i += 16 {
		w := b[i : i+16]
		if m := specialBits(binary.LittleEndian.Uint64(w)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		if m := specialBits(binary.LittleEndian.Uint64(w[8:])); m != 0 {
			return i + 8 + bits.TrailingZeros64(m)/8
		}
	}
	if i+8 <= len(b) {
		if m := specialBits(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(b) && !stringSpecial[b[i]] {
		i++
	}
	return i
}

// specialBits marks the bytes of x (little-endian: the first byte is the
// lowest) that are a quote, a backslash or a control character: the high
// bit of each such byte is set. The lowest marked byte is exact (it is the
// first special one); above it a borrow may mark bytes that are not, so
// only the lowest is to be read. Zero when no byte is special.
func specialBits(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	slash := x ^ (ones * '\\')
	control := (x - ones*0x20) &^ x
	return (control | ((quote - ones) &^ quote) | ((slash - ones) &^ slash)) & highs
}

// scanString scans the rest of a string whose opening quote is before b[i].
func scanString(b []byte, i int) (int, outcome) {
	for {
		i = plainRun(b, i)
		if i == len(b) {
			return i, incomplete
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, complete
		case c < 0x20:
			return i, invalid
		}
		// a backslash escape
		i++
		if i == len(b) {
			return i, incomplete
		}
		switch b[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			i++
			for k := 0; k < 4; k++ {
				if i == len(b) {
					return i, incomplete
				}
				if !isHex(b[i]) {
					return i, invalid
				}
				i++
			}
		default:
			return i, invalid
		}
	}
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanLiteral scans true, false or null; a prefix of one at the end of the
// input is incomplete.
func scanLiteral(b []byte, i int, lit string) (int, outcome) {
	for k := 0; k < len(lit); k++ {
		if i+k == len(b) {
			return i + k, incomplete
		}
		if b[i+k] != lit[k] {
			return i + k, invalid
		}
	}
	return i + len(lit), complete
}

// scanNumber scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. It stops
// at the first byte that cannot continue the number; whether that byte is
// legal is for the caller to decide. Input ending where a digit is still
// required is incomplete.
func scanNumber(b []byte, i int) (int, outcome) {
	if b[i] == '-' {
		i++
	}
	if i == len(b) {
		return i, incomplete
	}
	switch {
	case b[i] == '0':
		i++
	case isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, invalid
	}
	if i < len(b) && b[i] == '.' {
		i++
		j, out := digits(b, i)
		if out != complete {
			return j, out
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		return digits(b, i)
	}
	return i, complete
}

// digits scans one or more decimal digits.
func digits(b []byte, i int) (int, outcome) {
	if i == len(b) {
		return i, incomplete
	}
	if !isDigit(b[i]) {
		return i, invalid
	}
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i, complete
}
