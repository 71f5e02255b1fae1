package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fatih/color"
)

// Style paints text when colour is on. The zero value paints nothing.
type Style struct {
	on bool
}

// NewStyle returns a Style that colours only when on is true.
func NewStyle(on bool) Style { return Style{on: on} }

func (s Style) paint(text string, attrs ...color.Attribute) string {
	if !s.on {
		return text
	}
	c := color.New(attrs...)
	c.EnableColor()
	return c.Sprint(text)
}

// A paintFunc paints text in a style: a method expression of Style, such
// as Style.Dim, which costs no allocation where a method value would.
type paintFunc func(Style, string) string

// Error paints an error marker.
func (s Style) Error(t string) string { return s.paint(t, color.FgRed, color.Bold) }

// Warn paints a warning marker.
func (s Style) Warn(t string) string { return s.paint(t, color.FgYellow) }

// OK paints a success marker.
func (s Style) OK(t string) string { return s.paint(t, color.FgGreen) }

// Dim paints secondary text.
func (s Style) Dim(t string) string { return s.paint(t, color.Faint) }

// Bold paints emphasis.
func (s Style) Bold(t string) string { return s.paint(t, color.Bold) }

// Accent paints highlighted text (the active path).
func (s Style) Accent(t string) string { return s.paint(t, color.FgCyan, color.Bold) }

// Label paints a label.
func (s Style) Label(t string) string { return s.paint(t, color.FgMagenta) }

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
// a space. Printable ASCII, most of what the views show, is checked a byte
// at a time.
func printable(text string) bool {
	for i := 0; i < len(text); {
		if c := text[i]; c >= 0x20 && c < 0x7f {
			i++
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
