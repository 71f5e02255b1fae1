package session

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// plainSlow is plainASCII a byte at a time.
func plainSlow(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return i
		}
	}
	return len(s)
}

func TestPlainASCII(t *testing.T) {
	long := strings.Repeat("abcdefgh", 4)
	cases := []string{"", "a", `plain words`, long, "\x1f", "\x7f~ ", `"`, `\`, "\x80"}
	for _, c := range []byte{0x00, 0x1f, 0x20, '!', '"', '#', '[', '\\', ']', 0x7f, 0x80, 0xa2, 0xdc, 0xff} { // each edge at each place of a word and after it
		for at := 0; at < 17; at++ {
			b := []byte(long[:17])
			b[at] = c
			cases = append(cases, string(b))
		}
	}
	for _, s := range cases {
		if got, want := plainASCII(s), plainSlow(s); got != want {
			t.Errorf("plainASCII(%q) = %d, want %d", s, got, want)
		}
	}
}

// FuzzQuote holds plainASCII to its byte loop, and AppendQuote and
// AppendGoQuote (which skip its runs) to quoteSlow, the quoting a byte at
// a time.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain words and more", `a "quoted" \ path`, "tab\there\n", "é€😀\u2028\u2029", "a\xffb\xe2\x82"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := plainASCII(s), plainSlow(s); got != want {
			t.Fatalf("plainASCII(%q) = %d, want %d", s, got, want)
		}
		for _, goForm := range []bool{false, true} {
			if got, want := string(appendQuote(nil, s, goForm)), quoteSlow(s, goForm); got != want {
				t.Fatalf("appendQuote(%q, %v) = %s, want %s", s, goForm, got, want)
			}
		}
	})
}

// quoteSlow is appendQuote a rune at a time.
func quoteSlow(s string, goForm bool) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			b.WriteString(`\u00` + string(hex[r>>4]) + string(hex[r&15]))
		case r == utf8.RuneError && w == 1 && goForm:
			b.WriteString(`\ufffd`)
		case goForm && (r == '\u2028' || r == '\u2029'):
			b.WriteString(`\u202` + string(hex[r&15]))
		default:
			b.WriteRune(r) // an invalid byte as U+FFFD
		}
		i += w
	}
	b.WriteByte('"')
	return b.String()
}
