package text

import (
	"bufio"
	"io"
	"math"
	"slices"
	"strings"
)

// Column is one column of a table, and how it gives way when the table is
// wider than its width.
type Column struct {
	Title string
	Right bool // right-aligned (numbers)
	// Drop > 0 lets the column go when even the shortest form of the table
	// is too wide: the lowest Drop goes first. 0 keeps it.
	Drop int
	// Min > 0 lets the column shrink down to Min columns, its cells cut
	// with "…": from the middle when Middle (paths keep their start and
	// their name), else at the end.
	Min    int
	Middle bool
}

// Table writes rows under a header of columns as a bordered table, one line
// per row. A non-nil footer is a last row set apart (totals). With width > 0
// no line is wider than width: columns are first dropped (by Drop) until
// the table fits with every shrinkable column at its Min, then the
// shrinkable ones give up what is still too much, the most expendable
// first, each only as far as its cut cells stay distinct (two different
// values never print the same). Only a table that cannot fit even so has
// its lines cut at width, each ending in "…". Cells are written as given:
// pass text from files through Safe first, and keep colour out of
// shrinkable columns.
func Table(w io.Writer, cols []Column, rows [][]string, footer []string, width int) error {
	all := make([][]string, 1, len(rows)+2)
	for _, c := range cols {
		all[0] = append(all[0], c.Title)
	}
	all = append(all, rows...)
	if footer != nil {
		all = append(all, footer)
	}
	keep, sizes := layout(cols, all, width)
	bw := bufio.NewWriter(w)
	line := func(s string) {
		if width > 0 && Width(s) > width { // only when nothing else could fit
			s = CutEnd(stripSGR(s), width)
		}
		bw.WriteString(s)
		bw.WriteByte('\n')
	}
	line(rule("┌", "┬", "┐", keep, sizes))
	for i, r := range all {
		if i == 1 || (footer != nil && i == len(all)-1) {
			line(rule("├", "┼", "┤", keep, sizes))
		}
		line(row(cols, r, keep, sizes))
	}
	line(rule("└", "┴", "┘", keep, sizes))
	return bw.Flush()
}

// layout chooses the columns kept, in order, and the width of each
// column (indexed like cols).
func layout(cols []Column, cells [][]string, width int) (keep []int, sizes []int) {
	natural := make([]int, len(cols))
	for _, r := range cells {
		for i := range cols {
			if i < len(r) {
				natural[i] = max(natural[i], Width(r[i]))
			}
		}
	}
	// A column shrinks to its Min, or as far as its cells stay distinct
	// when Min would print two different values the same.
	least := slices.Clone(natural)
	for i, c := range cols {
		if c.Min > 0 {
			least[i] = min(least[i], c.Min)
			for least[i] < natural[i] && collides(c, cells[1:], i, least[i]) {
				least[i]++
			}
		}
	}
	keep = make([]int, len(cols))
	for i := range cols {
		keep[i] = i
	}
	sizes = slices.Clone(natural)
	if width <= 0 {
		return keep, sizes
	}
	for tableWidth(keep, least) > width {
		victim := -1
		for k, i := range keep {
			if d := cols[i].Drop; d > 0 && (victim < 0 || d < cols[keep[victim]].Drop) {
				victim = k
			}
		}
		if victim < 0 {
			break
		}
		keep = slices.Delete(keep, victim, victim+1)
	}
	excess := tableWidth(keep, sizes) - width
	order := shrinkOrder(cols, keep)
	for _, i := range order { // to Min (or distinct)
		give := max(0, min(excess, sizes[i]-least[i]))
		sizes[i] -= give
		excess -= give
	}
	for _, i := range order { // then, if need be, as far as cells stay distinct
		for excess > 0 && sizes[i] > 1 && !collides(cols[i], cells[1:], i, sizes[i]-1) {
			sizes[i]--
			excess--
		}
	}
	return keep, sizes
}

// collides reports whether two different cells of column i cut to size
// print the same.
func collides(col Column, cells [][]string, i, size int) bool {
	seen := map[string]string{}
	for _, r := range cells {
		if i >= len(r) {
			continue
		}
		cut := cutCell(col, r[i], size)
		if prev, ok := seen[cut]; ok && prev != r[i] {
			return true
		}
		seen[cut] = r[i]
	}
	return false
}

// cutCell is cell cut to its column's size, as the row shows it.
func cutCell(col Column, cell string, size int) string {
	switch {
	case Width(cell) <= size:
		return cell
	case col.Middle:
		return CutMiddle(cell, size)
	default:
		return CutEnd(cell, size)
	}
}

// shrinkOrder lists the kept shrinkable columns, the most expendable
// (lowest Drop, never-dropped ones last) first.
func shrinkOrder(cols []Column, keep []int) []int {
	var out []int
	for _, i := range keep {
		if cols[i].Min > 0 {
			out = append(out, i)
		}
	}
	rank := func(i int) int {
		if cols[i].Drop == 0 {
			return math.MaxInt
		}
		return cols[i].Drop
	}
	slices.SortStableFunc(out, func(a, b int) int { return rank(a) - rank(b) })
	return out
}

// tableWidth is the width of a table of these columns: "│ cell " each,
// and a closing "│".
func tableWidth(keep, sizes []int) int {
	w := 1
	for _, i := range keep {
		w += sizes[i] + 3
	}
	return w
}

// rule is a border line.
func rule(left, mid, right string, keep, sizes []int) string {
	parts := make([]string, len(keep))
	for k, i := range keep {
		parts[k] = strings.Repeat("─", sizes[i]+2)
	}
	return left + strings.Join(parts, mid) + right
}

// row is one line of cells, each cut to its column's width and padded.
func row(cols []Column, r []string, keep, sizes []int) string {
	var b strings.Builder
	for _, i := range keep {
		cell := ""
		if i < len(r) {
			cell = r[i]
		}
		cell = cutCell(cols[i], cell, sizes[i])
		pad := strings.Repeat(" ", sizes[i]-Width(cell))
		b.WriteString("│ ")
		if cols[i].Right {
			b.WriteString(pad + cell)
		} else {
			b.WriteString(cell + pad)
		}
		b.WriteByte(' ')
	}
	b.WriteString("│")
	return b.String()
}
