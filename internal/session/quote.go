package session

import "unicode/utf8"

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
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
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
