package session

import (
	"bytes"
	"strconv"
	"strings"
)

// The JavaScript value rules pi's code applies to what JSON.parse gives
// it, once: truthiness (`if (x)`, `!!x`) and String.prototype.trim.

// JSTruthy is JavaScript truthiness of one raw JSON value (JSON white
// space around it allowed): absent (undefined), null, false, a number
// equal to zero (0, -0, 0.0, 0e5, and 1e-400, which JSON.parse makes 0)
// and the empty string are falsy; every other string ("0", "-0" and
// "false" among them), number, object and array is truthy.
func JSTruthy(raw []byte) bool {
	raw = bytes.Trim(raw, " \t\n\r")
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case 'n', 'f':
		return false
	case 't', '{', '[':
		return true
	case '"':
		return len(raw) > 2 // no escape decodes to nothing: only "" is empty
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err != strconv.ErrRange {
		return false // not a number: not a JSON value
	}
	return f != 0 // ±Inf past the range, 0 below it, as JSON.parse
}

// JSTrim is String.prototype.trim, which pi applies to a session name
// and omp to thinking signatures: white space and line terminators,
// including U+FEFF (which Go's TrimSpace keeps) but not U+0085 (which it
// drops) or U+180E.
func JSTrim(s string) string {
	return strings.TrimFunc(s, isJSSpace)
}

// isJSSpace is JavaScript's white space and line terminators (trim's).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}
