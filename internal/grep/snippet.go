package grep

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// cut returns the text around s[from:to] (a match), white space runs made
// one space, at most beforeRunes runes before it, matchRunes of it and
// afterRunes after it, "…" where text was cut; and the match's byte span
// in what it returns.
func cut(s string, from, to int) (string, [2]int) {
	var b strings.Builder
	start := back(s, from, beforeRunes)
	if start > 0 {
		b.WriteString("…")
	}
	squeeze(&b, strings.TrimLeftFunc(s[start:from], unicode.IsSpace))
	at := b.Len()
	end := forward(s, from, matchRunes)
	if end > to {
		end = to
	}
	squeeze(&b, s[from:end])
	span := [2]int{at, b.Len()}
	if end < to {
		b.WriteString("…")
		return b.String(), span
	}
	stop := forward(s, to, afterRunes)
	squeeze(&b, strings.TrimRightFunc(s[to:stop], unicode.IsSpace))
	if stop < len(s) {
		b.WriteString("…")
	}
	return b.String(), span
}

// back is the byte offset n runes before at in s (0 at most).
func back(s string, at, n int) int {
	for ; n > 0 && at > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:at])
		at -= size
	}
	return at
}

// forward is the byte offset n runes after at in s (len(s) at most).
func forward(s string, at, n int) int {
	for ; n > 0 && at < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[at:])
		at += size
	}
	return at
}

// squeeze writes s with each run of white space made one space.
func squeeze(b *strings.Builder, s string) {
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
}
