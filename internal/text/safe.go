package text

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Safe makes text from a file safe to print on a terminal: control
// characters (ESC, BEL, CR, …) and other non-printing runes are shown as
// escapes, so a crafted session cannot drive the terminal. Newlines and tabs
// become spaces-free escapes too: output stays one line per item.
func Safe(text string) string {
	if printable(text) {
		return text
	}
	var b strings.Builder
	for i, r := range text {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(text[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, text[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case !unicode.IsPrint(r) && r != ' ':
			b.WriteString(strings.Trim(strconv.QuoteRuneToASCII(r), `'`))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// printable reports whether Safe leaves text as it is: valid UTF-8 (a byte
// that is not, 0x9b is CSI, is escaped too), every character printable or
// a space. Printable ASCII, most of what the views show, is checked eight
// bytes at a time (PrintableASCII).
func printable(text string) bool {
	for i := 0; i < len(text); {
		if n := PrintableASCII(text[i:]); n > 0 {
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if (r == utf8.RuneError && size == 1) || !unicode.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}

// EscapeControls escapes, in JSON output, the control characters
// encoding/json leaves raw: DEL and the C1 controls U+0080–U+009F (U+009B
// is CSI to a terminal). In JSON they can only occur inside strings, so
// the \u escapes keep the document valid and decode to the same text.
// Output without them is returned as it is.
func EscapeControls(b []byte) []byte {
	if !hasRawControl(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// hasRawControl reports whether b holds DEL or a C1 control (0xC2 0x80 to
// 0xC2 0x9F in UTF-8).
func hasRawControl(b []byte) bool {
	if bytes.IndexByte(b, 0x7f) >= 0 {
		return true
	}
	for i := 0; ; {
		next := bytes.IndexByte(b[i:], 0xc2)
		if next < 0 || i+next+1 >= len(b) {
			return false
		}
		i += next + 1 // the byte after 0xC2
		if c := b[i]; c >= 0x80 && c <= 0x9f {
			return true
		}
	}
}
