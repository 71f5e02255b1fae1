package render

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Column is one column of a table.
type Column struct {
	Title string
	Right bool // right-aligned (numbers)
}

// Table writes rows under a header of columns as a bordered table. Cells
// are written as given: pass text from files through Safe first. A non-nil
// footer is a last row set apart from the others (totals). Cells never wrap,
// so every row stays one line.
func Table(w io.Writer, cols []Column, rows [][]string, footer []string) error {
	titles := make([]string, len(cols))
	aligns := make([]tw.Align, len(cols))
	for i, c := range cols {
		titles[i] = c.Title
		aligns[i] = tw.AlignLeft
		if c.Right {
			aligns[i] = tw.AlignRight
		}
	}
	section := func(format tw.State) tw.CellConfig {
		return tw.CellConfig{
			Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone, AutoFormat: format},
			Padding:    tw.CellPadding{Global: tw.PaddingDefault},
			Alignment:  tw.CellAlignment{Global: tw.AlignLeft, PerColumn: aligns},
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderConfig(section(tw.Off)),
		tablewriter.WithRowConfig(section(tw.Off)),
		tablewriter.WithFooterConfig(section(tw.Off)),
	)
	t.Header(titles)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	if footer != nil {
		t.Footer(footer)
	}
	return t.Render()
}

// Count formats an integer with thousands separators: 1234567 → 1,234,567.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Bytes formats a size in binary units: 1536 → 1.5 KiB.
func Bytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	v := float64(n)
	i := -1
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

// Money formats a cost in dollars: cents, or four decimals below a cent so
// that small amounts do not read as zero.
func Money(x float64) string {
	switch a := math.Abs(x); {
	case a == 0 || a >= 0.01:
		return "$" + commaFloat(x, 2)
	case a < 0.00005:
		return "<$0.0001"
	}
	return fmt.Sprintf("$%.4f", x)
}

// commaFloat formats x with prec decimals and thousands separators.
func commaFloat(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'f', prec, 64)
	whole, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return s
	}
	out := Count(n)
	if n == 0 && strings.HasPrefix(whole, "-") {
		out = "-" + out
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}
