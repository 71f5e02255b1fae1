package session

import (
	"math/bits"
	"unicode/utf8"
)

// Quote encodes s as JSON.stringify does (no HTML escaping; lone
// surrogates impossible in Go strings: invalid UTF-8 becomes U+FFFD as
// JSON.stringify of the decoded string would show).
func Quote(s string) []byte { return AppendQuote(make([]byte, 0, len(s)+2), s) }

// AppendQuote appends Quote(s) to b.
func AppendQuote(b []byte, s string) []byte { return appendQuote(b, s, false) }

// AppendGoQuote appends s quoted as encoding/json writes it without HTML
// escaping: as AppendQuote, but U+2028 and U+2029 escaped, and invalid
// UTF-8 written as the escape \ufffd.
func AppendGoQuote(b []byte, s string) []byte { return appendQuote(b, s, true) }

// appendQuote copies the runs that need no escape whole: a long text is
// a few appends, not one a byte.
func appendQuote(b []byte, s string, goForm bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if n := plainASCII(s[i:]); n > 0 {
			i += n
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf { // a control, '"' or '\\' (plainASCII took the rest)
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			}
			i++
			start = i
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		invalid := r == utf8.RuneError && w == 1
		if !invalid && !(goForm && (r == '\u2028' || r == '\u2029')) {
			i += w
			continue
		}
		b = append(b, s[start:i]...)
		switch {
		case invalid && goForm:
			b = append(b, `\ufffd`...)
		case invalid:
			b = utf8.AppendRune(b, utf8.RuneError)
		default:
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&15])
		}
		i += w
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainASCII returns how many bytes at the start of s are ASCII that JSON
// writes as it is (not a control, '"' or '\\'): most of a text. It reads
// eight bytes at a time, as the Tape's plainRun does, and adds the bytes
// of 0x80 and above to what specialBits marks.
func plainASCII(s string) int {
	const highs = 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8] // one load, no bounds checks
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if m := specialBits(w) | w&highs; m != 0 { // the lowest mark is exact
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf && !stringSpecial[s[i]] {
		i++
	}
	return i
}
