package text

import "github.com/fatih/color"

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
