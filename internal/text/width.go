package text

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// WidthRules measure text in terminal columns with fixed rules (ambiguous
// characters are narrow), whatever the locale, so that output is the same
// everywhere: Width measures with them, and so do render's tree views.
func WidthRules() *runewidth.Condition {
	return &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}
}

// Width is the number of terminal columns s takes. Colour escapes
// (ESC [ … m) take none.
func Width(s string) int {
	if !strings.Contains(s, "\x1b[") {
		return WidthRules().StringWidth(s)
	}
	return WidthRules().StringWidth(stripSGR(s))
}

// stripSGR removes colour escapes.
func stripSGR(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return b.String()
		}
		s = s[i+j+1:]
	}
}

// CutEnd shortens s to at most w columns, ending in "…" when cut. Pass
// plain text (no colour).
func CutEnd(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	return WidthRules().Truncate(s, w-1, "") + "…"
}

// CutMiddle shortens s to at most w columns by replacing its middle with
// "…", keeping both ends: the start and the name of a path. Pass plain
// text (no colour).
func CutMiddle(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	if w <= 1 {
		return CutEnd(s, w)
	}
	keep := w - 1
	head := WidthRules().Truncate(s, keep/2, "")
	tail := lastColumns(s[len(head):], keep-Width(head))
	return head + "…" + tail
}

// lastColumns is the longest suffix of s at most w columns wide.
func lastColumns(s string, w int) string {
	c := WidthRules()
	runes := []rune(s)
	used, i := 0, len(runes)
	for i > 0 {
		rw := c.RuneWidth(runes[i-1])
		if used+rw > w {
			break
		}
		used += rw
		i--
	}
	return string(runes[i:])
}
