package render

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/mattn/go-runewidth"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/text"
)

// ViewOptions are the settings of the text views of tree, path and context.
type ViewOptions struct {
	Style text.Style
	// Width cuts every line to this many terminal columns; 0 never cuts.
	Width int
	// File is the session file as the user named it, for the header.
	File string
	// WholeHeader never cuts the header line (the file's name, counts and
	// leaf id), whatever the width: output that is piped or redirected
	// keeps the name whole to be copied.
	WholeHeader bool
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
	return text.Safe(id)
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
	tr := &treeRun{tw: tw, s: s, t: t, leaf: leaf, onPath: pathSet(s, leaf), records: s.Records()}
	if !opt.Quiet {
		tw.header(tr.header())
	}
	if len(s.Entries) == 0 {
		tw.line(cell{text: "(no entries)", paint: text.Style.Dim})
		return tw.flush()
	}
	if err := tw.flush(); err != nil {
		return err
	}
	if err := tr.lines(); err != nil {
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
	t       *project.Tree
	leaf    *project.Entry
	onPath  []bool // by entry index; nil when the leaf has no path
	records *project.RecordReader
	levels  []level // the indentation levels; levels[0] is the roots' (none)
}

func (tr *treeRun) on(i int) bool { return tr.onPath != nil && tr.onPath[i] }

// header is the tree's first line: the file, its counts of entries,
// leaves, branch points (and roots, when there are several) and the leaf.
func (tr *treeRun) header() []cell {
	opt := tr.tw.opt
	leaves, branchPoints := 0, 0
	tr.t.Walk(func(i, _ int) {
		switch k := len(tr.t.Children(i)); {
		case k == 0:
			leaves++
		case k > 1:
			branchPoints++
		}
	})
	parts := []string{text.Plural(len(tr.s.Entries), "entry", "entries"), text.Plural(leaves, "leaf", "leaves"),
		text.Plural(branchPoints, "branch point", "branch points")}
	if roots := len(tr.t.Roots); roots > 1 {
		parts = append(parts, text.Plural(roots, "root", "roots"))
	}
	cells := []cell{fileCell(opt.File), {text: ": " + strings.Join(parts, ", ")}}
	if tr.leaf != nil {
		note := cell{text: " (" + pathMark + " marks its path)", paint: text.Style.Dim, optional: true}
		if !tr.on(tr.leaf.Index) {
			note = cell{text: " (no path: a parentId cycle above it)", paint: text.Style.Warn}
		}
		cells = append(cells, cell{text: "; leaf "}, cell{text: shortID(tr.leaf.ID()), paint: text.Style.Accent}, note)
	}
	return cells
}

// level is one indentation level of the tree: below a branch point. more
// says whether a vertical line continues at this level (a later sibling
// follows). Levels are shared by every entry below them, and each draws
// its indentation once, when it is made: building the tree costs one
// level per branch.
type level struct {
	up     int32 // the level above (0: none)
	depth  int32
	more   bool
	indent string // the bars of this level and those above, as the width allows
	cols   int    // columns of indent
}

// push adds a level below level up and returns its index.
func (tr *treeRun) push(up int32, more bool) int32 {
	tr.levels = append(tr.levels, level{up: up, depth: tr.levels[up].depth + 1, more: more})
	i := int32(len(tr.levels) - 1)
	tr.levels[i].indent, tr.levels[i].cols = tr.draw(i)
	return i
}

// Connectors of a branch's first entry.
const (
	connMid  = "├─ "
	connLast = "└─ "
	barMore  = "│  "
	barNone  = "   "
	connCols = 3 // columns of a connector
)

// Kinds of tree lines.
const (
	itemEntry     uint8 = iota // an entry inside a linear run
	itemFirstMid               // the first entry of a branch, more follow (├─)
	itemFirstLast              // the first entry of the last branch (└─)
	itemFold                   // "… N entries …"
	itemBelow                  // the branches below --depth, summed up
)

// treeItem is one line of the tree, 16 bytes: an entry's, a folded run of
// fold entries starting at entry, or the sum of the branches below entry.
type treeItem struct {
	entry, lvl, fold int32
	kind             uint8
}

func (it treeItem) conn() string {
	switch it.kind {
	case itemFirstMid:
		return connMid
	case itemFirstLast:
		return connLast
	}
	return ""
}

// lines writes the tree below the roots: the lines are laid out depth
// first from an explicit stack, then written a chunk at a time on the
// cores (each entry's record read and described once).
func (tr *treeRun) lines() error {
	tr.levels = make([]level, 1, 1+tr.branches()) // levels[0], and one below each branch point's child
	items := tr.layout()
	readers := &readerPool{s: tr.s}
	return inChunks(tr.tw.out, len(items), chunkSize(tr.tw.opt), func(w io.Writer, from, to int) error {
		c := *tr
		c.tw, c.records = newTextWriter(w, tr.tw.opt), readers.get()
		defer readers.put(c.records)
		for _, it := range items[from:to] {
			switch it.kind {
			case itemFold:
				c.foldLine(it)
			case itemBelow:
				c.belowLine(it)
			default:
				if err := c.line(it); err != nil {
					return err
				}
			}
		}
		return c.tw.flush()
	})
}

// branches counts the children of the branch points: at most the number
// of levels layout pushes.
func (tr *treeRun) branches() int {
	n := 0
	for i := range tr.s.Entries {
		if k := len(tr.t.Children(i)); k > 1 {
			n += k
		}
	}
	return n + len(tr.t.Roots)
}

// layout lists the lines of the tree in order.
func (tr *treeRun) layout() []treeItem {
	t, opt := tr.t, tr.tw.opt
	items := make([]treeItem, 0, len(tr.s.Entries)) // at most one line an entry, and a few sums
	var stack []treeItem
	stack = pushBranches(stack, t.Roots, 0)
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if opt.Compact && f.kind == itemEntry && !tr.keep(int(f.entry)) {
			if next, count := tr.run(int(f.entry)); count >= 2 {
				items = append(items, treeItem{entry: f.entry, lvl: f.lvl, fold: int32(count), kind: itemFold})
				stack = append(stack, treeItem{entry: int32(next), lvl: f.lvl})
				continue
			}
		}
		items = append(items, f)
		body := f.lvl
		if f.kind != itemEntry {
			body = tr.push(f.lvl, f.kind == itemFirstMid)
		}
		switch kids := t.Children(int(f.entry)); {
		case len(kids) == 1:
			stack = append(stack, treeItem{entry: kids[0], lvl: body})
		case len(kids) > 1 && opt.Depth > 0 && int(tr.levels[body].depth) >= opt.Depth:
			items = append(items, treeItem{entry: f.entry, lvl: body, kind: itemBelow})
		default:
			stack = pushBranches(stack, kids, body)
		}
	}
	return items
}

// keep reports whether the compact tree shows entry i on its own line:
// roots and branch tips, branch points, labelled entries, compactions,
// branch summaries, model changes and the leaf.
func (tr *treeRun) keep(i int) bool {
	e := tr.s.Entries[i]
	switch e.Type() {
	case "compaction", "branch_summary", "model_change":
		return true
	}
	_, labelled := tr.s.Label(e.ID())
	return len(tr.t.Children(i)) != 1 || labelled || e == tr.leaf || e.ParentID() == ""
}

// run counts the entries from i down its single-child chain that the
// compact tree leaves out, and returns the entry after them.
func (tr *treeRun) run(i int) (int, int) {
	count := 0
	for !tr.keep(i) {
		count++
		i = int(tr.t.Children(i)[0]) // keep holds every entry without exactly one child
	}
	return i, count
}

// foldLine writes a run of entries the compact tree leaves out as one
// "… N entries …" line.
func (tr *treeRun) foldLine(it treeItem) {
	l := &tr.levels[it.lvl]
	tr.tw.line(pathMarkCell(tr.on(int(it.entry))), cell{text: l.indent, cols: l.cols, paint: text.Style.Dim},
		cell{text: "… " + text.Plural(int(it.fold), "entry", "entries") + " …", paint: text.Style.Dim})
}

// belowLine sums up the branches of a branch point deeper than --depth.
func (tr *treeRun) belowLine(it treeItem) {
	kids := tr.t.Children(int(it.entry))
	entries := 0
	stack := append([]int32(nil), kids...)
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = append(stack[:len(stack)-1], tr.t.Children(int(top))...)
		entries++
	}
	// The path to the leaf goes on below when one of the branches is on it:
	// the line carries its mark, and says the leaf is there.
	onPath, leaf := false, ""
	for _, k := range kids {
		onPath = onPath || tr.on(int(k))
	}
	if onPath {
		leaf = ", the leaf among them"
	}
	l := &tr.levels[it.lvl]
	tr.tw.line(pathMarkCell(onPath), cell{text: l.indent + "└╴ ", cols: l.cols + 3, paint: text.Style.Dim},
		cell{text: "… " + text.Plural(entries, "entry", "entries") + " in " + strconv.Itoa(len(kids)) + " branches" + leaf + " (--depth " + strconv.Itoa(tr.tw.opt.Depth) + ")", paint: text.Style.Dim})
}

// pushBranches pushes the first entries of several branches (or a single
// root, without a connector) so that the first is popped first.
func pushBranches(stack []treeItem, entries []int32, lvl int32) []treeItem {
	if len(entries) == 1 {
		return append(stack, treeItem{entry: entries[0], lvl: lvl})
	}
	for i := len(entries) - 1; i >= 0; i-- {
		kind := itemFirstMid
		if i == len(entries)-1 {
			kind = itemFirstLast
		}
		stack = append(stack, treeItem{entry: entries[i], lvl: lvl, kind: kind})
	}
	return stack
}

func (tr *treeRun) line(it treeItem) error {
	e := tr.s.Entries[it.entry]
	d, err := viewOf(tr.s, tr.records, e, textLimit(tr.tw.opt))
	if err != nil {
		return err
	}
	onPath := tr.on(e.Index)
	l := &tr.levels[it.lvl]
	indent := cell{text: l.indent, cols: l.cols, paint: text.Style.Dim}
	if conn := it.conn(); conn != "" {
		indent.text, indent.cols = tr.tw.join(l.indent, conn), l.cols+connCols
	}
	idPaint := text.Style.Dim
	if onPath {
		idPaint = text.Style.Accent
	}
	var buf [8]cell
	cells := append(buf[:0], pathMarkCell(onPath), indent,
		cell{text: shortID(e.ID()), paint: idPaint}, cell{text: " ", cols: 1},
		cell{text: text.Safe(d.kind), paint: d.paint()})
	cells = tr.tw.appendTextCells(cells, d.restPrefix(tr.tw), d.text, d.lazy)
	tr.tw.line(endMarks(cells, tr.s, e, len(tr.t.Children(e.Index)), e == tr.leaf)...)
	return nil
}

// pathMarkCell is the first column of a tree line: • on the leaf's path.
func pathMarkCell(on bool) cell {
	if on {
		return cell{text: pathMark + " ", paint: text.Style.Accent, cols: 2}
	}
	return cell{text: "  ", cols: 2}
}

// endMarks appends the marks that end an entry's line in the tree and
// path views: its label, its number of branches when it has several and
// the leaf's mark.
func endMarks(cells []cell, s *project.Session, e *project.Entry, branches int, leaf bool) []cell {
	if label, ok := s.Label(e.ID()); ok {
		cells = append(cells, cell{text: "  [" + cut(text.Safe(label), maxLabel) + "]", paint: text.Style.Label})
	}
	if branches > 1 {
		cells = append(cells, cell{text: "  " + branchMark + " " + strconv.Itoa(branches) + " branches", paint: text.Style.Bold})
	}
	if leaf {
		cells = append(cells, cell{text: "  " + leafMark, paint: text.Style.Accent})
	}
	return cells
}

// textLimit is how many runes of an entry's text a line of the given
// options can show at most (0: all of it).
func textLimit(opt ViewOptions) int {
	if opt.Width <= 0 {
		return 0
	}
	return opt.Width + 1
}

// draw draws the indentation of level i: the bars of the levels above an
// entry, outermost first. Levels beyond what the width can show are
// elided as "⋯+N ". The bars are laid from the end of one buffer of their
// size as the levels are walked up, innermost first: one allocation a
// level (a tree of 12,531 branch points has 25,594 levels).
func (tr *treeRun) draw(i int32) (string, int) {
	keep := tr.tw.maxLevels()
	size, bars := 0, 0
	top := i
	for ; top != 0 && bars < keep; top = tr.levels[top].up {
		size += len(barOf(tr.levels[top].more))
		bars++
	}
	elided := ""
	if top != 0 {
		elided = "⋯+" + strconv.Itoa(int(tr.levels[top].depth)) + " "
	}
	b := make([]byte, len(elided)+size)
	copy(b, elided)
	at := len(b)
	for k := 0; k < bars; k, i = k+1, tr.levels[i].up {
		bar := barOf(tr.levels[i].more)
		at -= len(bar)
		copy(b[at:], bar)
	}
	s := bytesString(b) // b is not written again
	return s, tr.tw.width(s)
}

// barOf is the bar a level draws below its first entry: a line down when
// more branches follow.
func barOf(more bool) string {
	if more {
		return barMore
	}
	return barNone
}

// maxLevels is how many levels of indentation a line shows.
func (tw *textWriter) maxLevels() int {
	if tw.opt.Width <= 0 {
		return 64
	}
	return max(4, (tw.opt.Width-40)/len([]rune(barMore)))
}

func (tr *treeRun) detached(entries []*project.Entry) error {
	tr.tw.line()
	if !tr.tw.opt.Quiet {
		tr.tw.line(cell{text: warnMark + " ", paint: text.Style.Warn},
			cell{text: text.Plural(len(entries), "detached entry", "detached entries") + ": a parentId cycle cuts them off from every root (pi ignores them)", paint: text.Style.Warn})
	}
	for _, e := range entries {
		d, err := viewOf(tr.s, tr.records, e, textLimit(tr.tw.opt))
		if err != nil {
			return err
		}
		cells := []cell{{text: "  "}, {text: shortID(e.ID()), paint: text.Style.Dim}, {text: " "},
			{text: text.Safe(d.line()), flex: true},
			{text: fmt.Sprintf("  (line %d, parent %s)", e.Line, shortID(e.ParentID())), paint: text.Style.Dim}}
		if e == tr.leaf {
			cells = append(cells, cell{text: "  " + leafMark, paint: text.Style.Accent})
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
	if !opt.Quiet {
		h := []cell{fileCell(opt.File)}
		if len(path) == 0 {
			tw.line(append(h, cell{text: ": no entries"})...) // no lines follow to set apart
		} else {
			tw.header(append(h, cell{text: ": path to leaf "}, cell{text: shortID(path[len(path)-1].ID()), paint: text.Style.Accent},
				cell{text: ", " + text.Plural(len(path), "entry", "entries") + " from the root"},
				cell{text: " (times UTC)", paint: text.Style.Dim, optional: true}))
		}
	}
	children := s.ChildCounts()
	kindWidth, measured := 0, map[string]bool{} // a path has a few kinds, many times over
	idWidth := 0                                // ids differ in width when not pi's own
	for _, e := range path {
		if kind := entryKind(e); !measured[kind] {
			measured[kind] = true
			kindWidth = max(kindWidth, tw.width(text.Safe(kind)))
		}
		idWidth = max(idWidth, tw.width(shortID(e.ID())))
	}
	numWidth := len(strconv.Itoa(len(path)))
	if err := tw.flush(); err != nil {
		return err
	}
	readers := &readerPool{s: s}
	return inChunks(w, len(path), chunkSize(opt), func(w io.Writer, from, to int) error {
		tw := newTextWriter(w, opt)
		records := readers.get()
		defer readers.put(records)
		day := ""
		for j := from - 1; j >= 0 && day == ""; j-- {
			day, _ = splitTime(path[j].Timestamp()) // the rule the lines before this chunk drew last
		}
		var stamp []byte // each line's timestamp, one buffer for all
		for i := from; i < to; i++ {
			e := path[i]
			d, err := viewOf(s, records, e, textLimit(opt))
			if err != nil {
				return err
			}
			stamp = e.AppendTimestamp(stamp[:0])
			date, clock := splitTime(bytesString(stamp)) // good until the next line's stamp
			if date != day && date != "" {
				tw.line(cell{text: blanks(numWidth+2) + "── " + date + " ──", paint: text.Style.Dim})
				day = strings.Clone(date)
			}
			num := tw.itoa(i + 1)
			kind := text.Safe(d.kind)
			kindCols := tw.width(kind)
			clockCols := tw.width(clock)
			id := shortID(e.ID())
			idCols := tw.width(id)
			var buf [10]cell
			cells := append(buf[:0],
				cell{text: tw.join(blanks(numWidth-len(num)), num, "  "), cols: numWidth + 2, paint: text.Style.Dim},
				cell{text: id, cols: idCols, paint: text.Style.Accent}, cell{text: blanks(idWidth - idCols + 2), cols: idWidth - idCols + 2},
				cell{text: tw.join(clock, blanks(8-clockCols)), cols: max(8, clockCols), paint: text.Style.Dim}, cell{text: "  ", cols: 2},
				cell{text: tw.join(kind, blanks(kindWidth-kindCols)), cols: kindWidth, paint: d.paint()}, cell{text: "  ", cols: 2},
			)
			cells = tw.appendTextCells(cells, tw.joinPrefix(d.detail, ": ", d.hasText()), d.text, d.lazy)
			tw.line(endMarks(cells, s, e, children[e.Index], i == len(path)-1)...)
		}
		return tw.flush()
	})
}

// spaces is the padding blanks cuts from.
const spaces = "                                                                "

// blanks returns n spaces (none for n <= 0).
func blanks(n int) string {
	if n <= len(spaces) {
		return spaces[:max(n, 0)]
	}
	return strings.Repeat(" ", n)
}

// splitTime splits an ISO timestamp into its UTC date and time of day.
// A timestamp that does not parse shows as its first characters.
func splitTime(ts string) (date, clock string) {
	if isUTCStamp(ts) { // pi's own form: the date and the time of day are in it
		return ts[:10], ts[11:19]
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		if ts == "" {
			return "", "--:--:--"
		}
		return "", cut(text.Safe(ts), 8)
	}
	t = t.UTC()
	return t.Format("2006-01-02"), t.Format("15:04:05")
}

// isUTCStamp reports whether ts is a valid timestamp in UTC as pi writes
// them, YYYY-MM-DDTHH:MM:SS(.fraction)Z, so that its date and time of day
// can be read off it as they are.
func isUTCStamp(ts string) bool {
	if len(ts) < 20 || ts[len(ts)-1] != 'Z' || ts[4] != '-' || ts[7] != '-' || ts[10] != 'T' || ts[13] != ':' || ts[16] != ':' {
		return false
	}
	num := func(from, to int) int {
		n := 0
		for _, c := range []byte(ts[from:to]) {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	if frac := ts[19 : len(ts)-1]; frac != "" && (frac[0] != '.' || len(frac) < 2 || len(frac) > 10 || num(20, len(ts)-1) < 0) {
		return false
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	if year < 0 || month < 1 || month > 12 || day < 1 {
		return false
	}
	lastDay := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	hour, minute, sec := num(11, 13), num(14, 16), num(17, 19)
	return day <= lastDay && hour >= 0 && hour < 24 && minute >= 0 && minute < 60 && sec >= 0 && sec < 60
}

// A paintFunc paints text in a style: a method expression of text.Style,
// such as text.Style.Dim, which costs no allocation where a method value
// would.
type paintFunc func(text.Style, string) string

// cell is a piece of a line with its paint.
type cell struct {
	lazy  *lazyWords // written as the line is, in place of text (--width 0 only)
	text  string     // already escaped with text.Safe
	paint paintFunc  // nil: plain
	cols  int        // columns of text when the caller knows them (0: measure)
	flex  bool       // the part cut first when the line is too long
	left  bool       // a flexible cell cut at its start (file names)
	// optional cells are left out, last first, before anything is cut.
	optional bool
}

// textWriter writes lines cut to the width.
type textWriter struct {
	out  *bufio.Writer
	opt  ViewOptions
	cond *runewidth.Condition
	err  error
	// scratch holds the strings join made for the line being built; it is
	// reused once the line is written (line copies its cells into out).
	// A view of many entries otherwise made each line's joined cells
	// anew: about 60 bytes of garbage a line, which the view's collector
	// at GOGC 8 runs for.
	scratch []byte
}

// join returns the parts as one string, in tw's scratch space: good
// until the line being built is written, so it must not be kept past it.
// One part that is not empty is returned as it is.
//
// The views' lines are made of the entries' own strings, of marks and of
// padding, and most of them are joined: written out at once, they need
// no string of their own.
func (tw *textWriter) join(parts ...string) string {
	n, one := 0, ""
	for _, p := range parts {
		if p != "" {
			n++
			one = p
		}
	}
	if n <= 1 {
		return one
	}
	start := len(tw.scratch)
	for _, p := range parts {
		tw.scratch = append(tw.scratch, p...)
	}
	// A scratch that grew to hold this leaves the strings joined before
	// it in the old array, which they keep alive: they stay good.
	return bytesString(tw.scratch[start:])
}

// bytesString is b as a string without a copy: b must not change while
// the string is in use.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func newTextWriter(w io.Writer, opt ViewOptions) *textWriter {
	return &textWriter{out: bufio.NewWriter(w), opt: opt, cond: text.WidthRules()}
}

// width returns the columns of s.
func (tw *textWriter) width(s string) int {
	if n, ok := narrowWidth(s); ok {
		return n
	}
	return tw.cond.StringWidth(s)
}

// narrowWidth counts the columns of s when every character of it is one
// column wide on its own and never joins its neighbours (printable ASCII,
// and the few other characters the views draw with): ok is false for any
// other string, which must be measured grapheme by grapheme.
func narrowWidth(s string) (n int, ok bool) {
	for i := 0; i < len(s); {
		if k := text.PrintableASCII(s[i:]); k > 0 {
			n += k
			i += k
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !narrowRune(r) {
			return 0, false
		}
		n++
		i += size
	}
	return n, true
}

// narrowRune reports the characters narrowWidth counts besides ASCII: the
// views' own marks and box drawing (render's tests check each against
// go-runewidth).
func narrowRune(r rune) bool {
	switch r {
	case '•', '…', '→', '⋯', '◀', '⑂', '✗', '—', '–', '·':
		return true
	}
	return r >= 0x2500 && r <= 0x257f // box drawing
}

// header writes a header line and a blank line after it.
func (tw *textWriter) header(cells []cell) {
	tw.headLine(cells)
	tw.line()
}

// headLine writes the line that names the file: cut to the width like any
// other, unless WholeHeader.
func (tw *textWriter) headLine(cells []cell) {
	width := tw.opt.Width
	if tw.opt.WholeHeader {
		tw.opt.Width = 0
	}
	tw.line(cells...)
	tw.opt.Width = width
}

// itoa is strconv.Itoa(n) in tw's scratch space (see join).
func (tw *textWriter) itoa(n int) string {
	start := len(tw.scratch)
	tw.scratch = strconv.AppendInt(tw.scratch, int64(n), 10)
	return bytesString(tw.scratch[start:])
}

// line writes one line: when it is wider than the width, the flexible cell
// shrinks first, then the line is cut at the width with "…".
func (tw *textWriter) line(cells ...cell) {
	if tw.err != nil {
		tw.scratch = tw.scratch[:0]
		return
	}
	tw.fit(cells)
	for _, c := range cells {
		switch {
		case c.lazy != nil:
			c.lazy.writeTo(tw.out, true)
		case c.text == "":
		case c.paint != nil:
			tw.out.WriteString(c.paint(tw.opt.Style, c.text))
		default:
			tw.out.WriteString(c.text)
		}
	}
	tw.err = tw.out.WriteByte('\n')
	tw.scratch = tw.scratch[:0] // the line's cells are in out: their joins are free again
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
	var buf [16]int
	widths := buf[:0]
	for _, c := range cells {
		w := c.cols
		if w == 0 {
			w = tw.width(c.text)
		}
		widths = append(widths, w)
		total += w
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
		shrunk := tw.width(cells[i].text)
		total -= widths[i] - shrunk
		widths[i] = shrunk
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
			cells[i].text = tw.truncate(tw.join(cells[i].text, "…"), limit-used)
			used = -1
		}
	}
}

// truncate cuts s to n columns, ending in "…" when something was cut.
func (tw *textWriter) truncate(s string, n int) string {
	w, narrow := narrowWidth(s)
	if !narrow {
		w = tw.cond.StringWidth(s)
	}
	if w <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	if narrow { // a column a character: cut after n-1 of them
		s = firstRunes(s, n-1)
	} else {
		s = tw.cond.Truncate(s, n-1, "")
	}
	return tw.join(strings.TrimRight(s, " …"), "…")
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
func fileCell(file string) cell {
	return cell{text: text.Safe(file), paint: text.Style.Bold, flex: true, left: true}
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
