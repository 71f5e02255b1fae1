package render

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

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
