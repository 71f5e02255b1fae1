package render

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/pisess/pisess/internal/project"
)

// ViewOptions are the settings of the text views of tree, path and context.
type ViewOptions struct {
	Style Style
	// Width cuts every line to this many terminal columns; 0 never cuts.
	Width int
	// File is the session file as the user named it, for the header.
	File string
	// Quiet leaves out the header and the closing notes.
	Quiet bool
	// Compact folds linear runs of the tree into "… N entries …" lines.
	Compact bool
	// Depth, when positive, sums up the branches nested deeper than this
	// many levels below the roots.
	Depth int
}

// Markers shared by the views.
const (
	leafMark    = "◀ leaf"
	pathMark    = "•"
	warnMark    = "⚠"
	branchMark  = "⑂"
	idColumns   = 8  // short ids: pi's ids are 8 hex digits
	maxLabel    = 32 // columns of a label before it is cut
	minFlexCols = 6  // below this the summary is not worth keeping apart
)

// shortID returns an entry id as the views show it: escaped, and cut to
// idColumns characters (pi's own ids are exactly that long). An entry
// without an id shows as "-".
func shortID(id string) string {
	if id == "" {
		return "-"
	}
	if r := []rune(id); len(r) > idColumns {
		id = string(r[:idColumns])
	}
	return Safe(id)
}

// Tree writes the text view of `pisess tree`: every entry on one line, a
// linear run of entries at one indentation and a new level only below a
// branch point (as pi's /tree does), the active path marked with • (and in
// the accent colour), the leaf with ◀ leaf, labels in brackets, branch points
// with ⑂ and their number of branches. Entries no root reaches are listed
// after the tree under a warning. With Compact, linear runs fold into one
// "… N entries …" line; with Depth, branches nested deeper are summed up.
// It works from the session's index in O(n), reading each record it
// describes once, and never recurses: any depth is fine, and nesting deeper
// than the width allows is elided so each line costs at most the width.
func Tree(w io.Writer, s *project.Session, leaf *project.Entry, opt ViewOptions) error {
	tw := newTextWriter(w, opt)
	t := s.Tree()
	tr := &treeRun{tw: tw, s: s, leaf: leaf, onPath: pathSet(s, leaf), records: s.Records()}
	st := treeStats(s, t)
	if !opt.Quiet {
		tw.header(tr.header(st))
	}
	if st.entries == 0 {
		tw.line(cell{text: "(no entries)", paint: opt.Style.Dim})
		return tw.flush()
	}
	if err := tw.flush(); err != nil {
		return err
	}
	if err := tr.lines(t); err != nil {
		return err
	}
	if len(t.Detached) > 0 {
		if err := tr.detached(t.Detached); err != nil {
			return err
		}
	}
	return tw.flush()
}

// treeRun is one tree being written.
type treeRun struct {
	tw      *textWriter
	s       *project.Session
	leaf    *project.Entry
	onPath  []bool // by entry index; nil when the leaf has no path
	records *project.RecordReader
}

func (tr *treeRun) on(e *project.Entry) bool { return tr.onPath != nil && tr.onPath[e.Index] }

// stats are the counts of the tree header.
type stats struct {
	entries, leaves, branchPoints, roots int
}

func treeStats(s *project.Session, t *project.Tree) stats {
	st := stats{roots: len(t.Roots), entries: len(s.Entries)}
	detached := make(map[int]bool, len(t.Detached))
	for _, e := range t.Detached {
		detached[e.Index] = true
	}
	for i, k := range s.ChildCounts() {
		switch {
		case detached[i]:
		case k == 0:
			st.leaves++
		case k > 1:
			st.branchPoints++
		}
	}
	return st
}

func (tr *treeRun) header(st stats) []cell {
	opt := tr.tw.opt
	parts := []string{Plural(st.entries, "entry", "entries"), Plural(st.leaves, "leaf", "leaves"),
		Plural(st.branchPoints, "branch point", "branch points")}
	if st.roots > 1 {
		parts = append(parts, Plural(st.roots, "root", "roots"))
	}
	cells := []cell{fileCell(opt.File, opt.Style), {text: ": " + strings.Join(parts, ", ")}}
	if tr.leaf != nil {
		note := cell{text: " (" + pathMark + " marks its path)", paint: opt.Style.Dim, optional: true}
		if !tr.on(tr.leaf) {
			note = cell{text: " (no path: a parentId cycle above it)", paint: opt.Style.Warn}
		}
		cells = append(cells, cell{text: "; leaf "}, cell{text: shortID(tr.leaf.ID), paint: opt.Style.Accent}, note)
	}
	return cells
}

// level is one indentation level of the tree: below a branch point. more
// says whether a vertical line continues at this level (a later sibling
// follows). Levels are shared by every entry below them, so building the
// tree costs one small allocation per branch.
type level struct {
	up    *level
	more  bool
	depth int
}

func (l *level) push(more bool) *level {
	d := 1
	if l != nil {
		d = l.depth + 1
	}
	return &level{up: l, more: more, depth: d}
}

func (l *level) levels() int {
	if l == nil {
		return 0
	}
	return l.depth
}

// Connectors of a branch's first entry.
const (
	connMid  = "├─ "
	connLast = "└─ "
	barMore  = "│  "
	barNone  = "   "
)

// treeFrame is an entry waiting to be written.
type treeFrame struct {
	n    *project.Node
	lvl  *level // the levels above this entry
	conn string // connMid or connLast for the first entry of a branch
}

// treeItem is one line of the tree: an entry's (frame), a folded run of
// fold entries starting at the frame's entry, or the sum of the branches
// below the frame's entry (below).
type treeItem struct {
	frame treeFrame
	fold  int32
	below bool
}

// lines writes the tree below the roots: the lines are laid out depth
// first from an explicit stack, then written a chunk at a time on the
// cores (each entry's record read and described once).
func (tr *treeRun) lines(t *project.Tree) error {
	items := tr.layout(t)
	return inChunks(tr.tw.out, len(items), func(w io.Writer, from, to int) error {
		c := *tr
		c.tw, c.records = newTextWriter(w, tr.tw.opt), tr.s.Records()
		for _, it := range items[from:to] {
			switch {
			case it.fold > 0:
				c.foldLine(it.frame, int(it.fold))
			case it.below:
				c.belowLine(it.frame.n, it.frame.lvl)
			default:
				if err := c.line(it.frame); err != nil {
					return err
				}
			}
		}
		return c.tw.flush()
	})
}

// layout lists the lines of the tree in order.
func (tr *treeRun) layout(t *project.Tree) []treeItem {
	items := make([]treeItem, 0, len(tr.s.Entries)) // at most one line an entry, and a few sums
	var stack []treeFrame
	stack = pushBranches(stack, t.Roots, nil)
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if tr.tw.opt.Compact && f.conn == "" && !tr.keep(f.n) {
			if next, count := tr.run(f.n); count >= 2 {
				items = append(items, treeItem{frame: f, fold: int32(count)})
				stack = append(stack, treeFrame{n: next, lvl: f.lvl})
				continue
			}
		}
		items = append(items, treeItem{frame: f})
		body := f.lvl
		if f.conn != "" {
			body = f.lvl.push(f.conn == connMid)
		}
		switch kids := f.n.Children; {
		case len(kids) == 1:
			stack = append(stack, treeFrame{n: kids[0], lvl: body})
		case len(kids) > 1 && tr.tw.opt.Depth > 0 && body.levels() >= tr.tw.opt.Depth:
			items = append(items, treeItem{frame: treeFrame{n: f.n, lvl: body}, below: true})
		default:
			stack = pushBranches(stack, kids, body)
		}
	}
	return items
}

// keep reports whether the compact tree shows an entry on its own line:
// roots and branch tips, branch points, labelled entries, compactions,
// branch summaries, model changes and the leaf.
func (tr *treeRun) keep(n *project.Node) bool {
	switch n.Entry.Type {
	case "compaction", "branch_summary", "model_change":
		return true
	}
	return len(n.Children) != 1 || n.HasLabel || n.Entry == tr.leaf || n.Entry.ParentID == ""
}

// run counts the entries from n down its single-child chain that the
// compact tree leaves out, and returns the entry after them.
func (tr *treeRun) run(n *project.Node) (*project.Node, int) {
	count := 0
	for !tr.keep(n) {
		count++
		n = n.Children[0] // keep holds every entry without exactly one child
	}
	return n, count
}

// foldLine writes a run of entries the compact tree leaves out as one
// "… N entries …" line.
func (tr *treeRun) foldLine(f treeFrame, count int) {
	st := tr.tw.opt.Style
	mark := cell{text: "  "}
	if tr.on(f.n.Entry) {
		mark = cell{text: pathMark + " ", paint: st.Accent}
	}
	tr.tw.line(mark, cell{text: tr.tw.indent(f.lvl), paint: st.Dim},
		cell{text: "… " + Plural(count, "entry", "entries") + " …", paint: st.Dim})
}

// belowLine sums up the branches of a branch point deeper than --depth.
func (tr *treeRun) belowLine(n *project.Node, lvl *level) {
	entries := 0
	stack := append([]*project.Node(nil), n.Children...)
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = append(stack[:len(stack)-1], top.Children...)
		entries++
	}
	st := tr.tw.opt.Style
	tr.tw.line(cell{text: "  "}, cell{text: tr.tw.indent(lvl) + "└╴ ", paint: st.Dim},
		cell{text: "… " + Plural(entries, "entry", "entries") + " in " + strconv.Itoa(len(n.Children)) + " branches (--depth " + strconv.Itoa(tr.tw.opt.Depth) + ")", paint: st.Dim})
}

// pushBranches pushes the first entries of several branches (or a single
// root, without a connector) so that the first is popped first.
func pushBranches(stack []treeFrame, nodes []*project.Node, lvl *level) []treeFrame {
	if len(nodes) == 1 {
		return append(stack, treeFrame{n: nodes[0], lvl: lvl})
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		conn := connMid
		if i == len(nodes)-1 {
			conn = connLast
		}
		stack = append(stack, treeFrame{n: nodes[i], lvl: lvl, conn: conn})
	}
	return stack
}

func (tr *treeRun) line(f treeFrame) error {
	e := f.n.Entry
	r, err := tr.records.Read(e)
	if err != nil {
		return err
	}
	st := tr.tw.opt.Style
	onPath := tr.on(e)
	cells := make([]cell, 0, 8)
	if onPath {
		cells = append(cells, cell{text: pathMark + " ", paint: st.Accent})
	} else {
		cells = append(cells, cell{text: "  "})
	}
	cells = append(cells, cell{text: tr.tw.indent(f.lvl) + f.conn, paint: st.Dim})
	idPaint := st.Dim
	if onPath {
		idPaint = st.Accent
	}
	d := describe(r, textLimit(tr.tw.opt))
	cells = append(cells, cell{text: shortID(e.ID), paint: idPaint}, cell{text: " "},
		cell{text: Safe(d.kind), paint: d.paint(st)}, cell{text: Safe(d.rest()), flex: true})
	if f.n.HasLabel {
		cells = append(cells, labelCell(f.n.Label, st))
	}
	if k := len(f.n.Children); k > 1 {
		cells = append(cells, cell{text: fmt.Sprintf("  %s %d branches", branchMark, k), paint: st.Bold})
	}
	if e == tr.leaf {
		cells = append(cells, cell{text: "  " + leafMark, paint: st.Accent})
	}
	tr.tw.line(cells...)
	return nil
}

// textLimit is how many runes of an entry's text a line of the given
// options can show at most (0: all of it).
func textLimit(opt ViewOptions) int {
	if opt.Width <= 0 {
		return 0
	}
	return opt.Width + 1
}

func labelCell(label string, st Style) cell {
	return cell{text: "  [" + cut(Safe(label), maxLabel) + "]", paint: st.Label}
}

// indent draws the levels above an entry, outermost first. Levels beyond
// what the width can show are elided as "⋯+N ".
func (tw *textWriter) indent(l *level) string {
	if l == nil {
		return ""
	}
	keep := tw.maxLevels()
	bars := make([]string, 0, min(l.depth, keep))
	for ; l != nil && len(bars) < keep; l = l.up {
		if l.more {
			bars = append(bars, barMore)
		} else {
			bars = append(bars, barNone)
		}
	}
	var b strings.Builder
	if l != nil {
		b.WriteString("⋯+" + strconv.Itoa(l.depth) + " ")
	}
	for i := len(bars) - 1; i >= 0; i-- {
		b.WriteString(bars[i])
	}
	return b.String()
}

// maxLevels is how many levels of indentation a line shows.
func (tw *textWriter) maxLevels() int {
	if tw.opt.Width <= 0 {
		return 64
	}
	return max(4, (tw.opt.Width-40)/len([]rune(barMore)))
}

func (tr *treeRun) detached(entries []*project.Entry) error {
	st := tr.tw.opt.Style
	tr.tw.line()
	if !tr.tw.opt.Quiet {
		tr.tw.line(cell{text: warnMark + " ", paint: st.Warn},
			cell{text: Plural(len(entries), "detached entry", "detached entries") + ": a parentId cycle cuts them off from every root (pi ignores them)", paint: st.Warn})
	}
	for _, e := range entries {
		r, err := tr.records.Read(e)
		if err != nil {
			return err
		}
		cells := []cell{{text: "  "}, {text: shortID(e.ID), paint: st.Dim}, {text: " "},
			{text: Safe(describe(r, textLimit(tr.tw.opt)).line()), flex: true},
			{text: fmt.Sprintf("  (line %d, parent %s)", e.Line, shortID(e.ParentID)), paint: st.Dim}}
		if e == tr.leaf {
			cells = append(cells, cell{text: "  " + leafMark, paint: st.Accent})
		}
		tr.tw.line(cells...)
	}
	return nil
}

// Path writes the text view of `pisess path`: one line per entry from the
// root to the leaf with its position, short id, time of day (UTC, as
// recorded; a dated rule whenever the day changes), kind (the role for a
// message) and summary; labels, branch points and the leaf are marked. It
// reads back only the records on the path.
func Path(w io.Writer, s *project.Session, path []*project.Entry, opt ViewOptions) error {
	tw := newTextWriter(w, opt)
	st := opt.Style
	if !opt.Quiet {
		h := []cell{fileCell(opt.File, st)}
		if len(path) == 0 {
			h = append(h, cell{text: ": no entries"})
		} else {
			h = append(h, cell{text: ": path to leaf "}, cell{text: shortID(path[len(path)-1].ID), paint: st.Accent},
				cell{text: ", " + Plural(len(path), "entry", "entries") + " from the root"},
				cell{text: " (times UTC)", paint: st.Dim, optional: true})
		}
		tw.header(h)
	}
	children := s.ChildCounts()
	kindWidth := 0
	for _, e := range path {
		kindWidth = max(kindWidth, tw.width(Safe(entryKind(e))))
	}
	numWidth := len(strconv.Itoa(len(path)))
	if err := tw.flush(); err != nil {
		return err
	}
	return inChunks(w, len(path), func(w io.Writer, from, to int) error {
		tw := newTextWriter(w, opt)
		records := s.Records()
		day := ""
		for j := from - 1; j >= 0 && day == ""; j-- {
			day, _ = splitTime(path[j].Timestamp) // the rule the lines before this chunk drew last
		}
		for i := from; i < to; i++ {
			e := path[i]
			r, err := records.Read(e)
			if err != nil {
				return err
			}
			d := describe(r, textLimit(opt))
			date, clock := splitTime(e.Timestamp)
			if date != day && date != "" {
				tw.line(cell{text: strings.Repeat(" ", numWidth+2) + "── " + date + " ──", paint: st.Dim})
				day = date
			}
			cells := []cell{
				{text: fmt.Sprintf("%*d  ", numWidth, i+1), paint: st.Dim},
				{text: shortID(e.ID), paint: st.Accent}, {text: "  "},
				{text: clock + strings.Repeat(" ", max(0, 8-tw.width(clock))), paint: st.Dim}, {text: "  "},
				{text: Safe(d.kind) + strings.Repeat(" ", kindWidth-tw.width(Safe(d.kind))), paint: d.paint(st)}, {text: "  "},
				{text: Safe(joinDetail(d.detail, d.text)), flex: true},
			}
			if l, ok := s.Label(e.ID); ok && e.ID != "" {
				cells = append(cells, labelCell(l, st))
			}
			if k := children[e.Index]; k > 1 {
				cells = append(cells, cell{text: fmt.Sprintf("  %s %d branches", branchMark, k), paint: st.Bold})
			}
			if i == len(path)-1 {
				cells = append(cells, cell{text: "  " + leafMark, paint: st.Accent})
			}
			tw.line(cells...)
		}
		return tw.flush()
	})
}

// splitTime splits an ISO timestamp into its UTC date and time of day.
// A timestamp that does not parse shows as its first characters.
func splitTime(ts string) (date, clock string) {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		if ts == "" {
			return "", "--:--:--"
		}
		return "", cut(Safe(ts), 8)
	}
	t = t.UTC()
	return t.Format("2006-01-02"), t.Format("15:04:05")
}

// cell is a piece of a line with its paint.
type cell struct {
	text  string              // already escaped with Safe
	paint func(string) string // nil: plain
	flex  bool                // the part cut first when the line is too long
	left  bool                // a flexible cell cut at its start (file names)
	// optional cells are left out, last first, before anything is cut.
	optional bool
}

// textWriter writes lines cut to the width.
type textWriter struct {
	out  *bufio.Writer
	opt  ViewOptions
	cond *runewidth.Condition
	err  error
}

func newTextWriter(w io.Writer, opt ViewOptions) *textWriter {
	// Fixed widths (ambiguous characters are narrow), whatever the locale:
	// output is the same everywhere.
	return &textWriter{out: bufio.NewWriter(w), opt: opt,
		cond: &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}}
}

func (tw *textWriter) width(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return tw.cond.StringWidth(s)
		}
	}
	return len(s) // printable ASCII: a column a byte
}

// header writes a header line and a blank line after it.
func (tw *textWriter) header(cells []cell) {
	tw.line(cells...)
	tw.line()
}

// line writes one line: when it is wider than the width, the flexible cell
// shrinks first, then the line is cut at the width with "…".
func (tw *textWriter) line(cells ...cell) {
	if tw.err != nil {
		return
	}
	tw.fit(cells)
	var b strings.Builder
	for _, c := range cells {
		if c.text == "" {
			continue
		}
		if c.paint != nil {
			b.WriteString(c.paint(c.text))
		} else {
			b.WriteString(c.text)
		}
	}
	b.WriteByte('\n')
	_, tw.err = tw.out.WriteString(b.String())
}

// fit shrinks the cells in place to the width: first the flexible cell
// (down to minFlexCols), then, if that is not enough, the end of the line
// goes, marked with "…".
func (tw *textWriter) fit(cells []cell) {
	limit := tw.opt.Width
	if limit <= 0 {
		return
	}
	total := 0
	widths := make([]int, len(cells))
	for i, c := range cells {
		widths[i] = tw.width(c.text)
		total += widths[i]
	}
	for i := len(cells) - 1; i >= 0 && total > limit; i-- {
		if cells[i].optional {
			cells[i].text = ""
			total -= widths[i]
			widths[i] = 0
		}
	}
	if total <= limit {
		return
	}
	for i, c := range cells {
		if !c.flex {
			continue
		}
		keep := max(widths[i]-(total-limit), min(widths[i], minFlexCols))
		if c.left {
			cells[i].text = tw.truncateLeft(c.text, keep)
		} else {
			cells[i].text = tw.truncate(c.text, keep)
		}
		total -= widths[i] - tw.width(cells[i].text)
		widths[i] = tw.width(cells[i].text)
		break
	}
	if total <= limit {
		return
	}
	used := 0
	for i := range cells {
		switch {
		case used < 0:
			cells[i].text = ""
		case used+widths[i] < limit:
			used += widths[i]
		default:
			cells[i].text = tw.truncate(cells[i].text+"…", limit-used)
			used = -1
		}
	}
}

// truncate cuts s to n columns, ending in "…" when something was cut.
func (tw *textWriter) truncate(s string, n int) string {
	if tw.width(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	s = tw.cond.Truncate(s, n-1, "")
	return strings.TrimRight(s, " …") + "…"
}

// truncateLeft cuts s to n columns from its start, beginning with "…"
// when something was cut.
func (tw *textWriter) truncateLeft(s string, n int) string {
	if tw.width(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	for len(r) > 0 && tw.width(string(r)) > n-1 {
		r = r[1:]
	}
	return "…" + string(r)
}

// fileCell is the file name of a header: cut at its start when the line
// is too long, so the base name stays.
func fileCell(file string, st Style) cell {
	return cell{text: Safe(file), paint: st.Bold, flex: true, left: true}
}

func (tw *textWriter) flush() error {
	if tw.err != nil {
		return tw.err
	}
	return tw.out.Flush()
}

// cut shortens s to n runes with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Plural formats a count with its noun.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(int64(n)) + " " + many
}
