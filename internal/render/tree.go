package render

import (
	"bufio"
	"bytes"
	"encoding/json"
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
// after the tree under a warning. It never recurses: any depth is fine, and
// nesting deeper than the width allows is elided so each line costs at most
// the width.
func Tree(w io.Writer, v *project.TreeView, opt ViewOptions) error {
	tw := newTextWriter(w, opt)
	stats := treeStats(v.Tree)
	if !opt.Quiet {
		tw.header(treeHeader(v, stats, opt))
	}
	if stats.entries == 0 {
		tw.line(cell{text: "(no entries)", paint: opt.Style.Dim})
		return tw.flush()
	}
	tw.treeLines(v)
	if len(v.Tree.Detached) > 0 {
		tw.detached(v)
	}
	return tw.flush()
}

// stats are the counts of the tree header.
type stats struct {
	entries, leaves, branchPoints, roots int
}

func treeStats(t *project.Tree) stats {
	st := stats{roots: len(t.Roots), entries: len(t.Detached)}
	t.Walk(func(n *project.Node, _ int) {
		st.entries++
		switch len(n.Children) {
		case 0:
			st.leaves++
		case 1:
		default:
			st.branchPoints++
		}
	})
	return st
}

func treeHeader(v *project.TreeView, st stats, opt ViewOptions) []cell {
	parts := []string{Plural(st.entries, "entry", "entries"), Plural(st.leaves, "leaf", "leaves"),
		Plural(st.branchPoints, "branch point", "branch points")}
	if st.roots > 1 {
		parts = append(parts, Plural(st.roots, "root", "roots"))
	}
	cells := []cell{fileCell(opt.File, opt.Style), {text: ": " + strings.Join(parts, ", ")}}
	if v.Leaf != nil {
		note := cell{text: " (" + pathMark + " marks its path)", paint: opt.Style.Dim, optional: true}
		if !v.OnPath[v.Leaf] {
			note = cell{text: " (no path: a parentId cycle above it)", paint: opt.Style.Warn}
		}
		cells = append(cells, cell{text: "; leaf "}, cell{text: shortID(v.Leaf.ID), paint: opt.Style.Accent}, note)
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

func (tw *textWriter) treeLines(v *project.TreeView) {
	var stack []treeFrame
	stack = pushBranches(stack, v.Tree.Roots, nil)
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		tw.treeLine(v, f)
		body := f.lvl
		if f.conn != "" {
			body = f.lvl.push(f.conn == connMid)
		}
		if len(f.n.Children) == 1 {
			stack = append(stack, treeFrame{n: f.n.Children[0], lvl: body})
			continue
		}
		stack = pushBranches(stack, f.n.Children, body)
	}
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

func (tw *textWriter) treeLine(v *project.TreeView, f treeFrame) {
	st := tw.opt.Style
	e := f.n.Entry
	onPath := v.OnPath[e]
	cells := make([]cell, 0, 8)
	if onPath {
		cells = append(cells, cell{text: pathMark + " ", paint: st.Accent})
	} else {
		cells = append(cells, cell{text: "  "})
	}
	cells = append(cells, cell{text: tw.indent(f.lvl) + f.conn, paint: st.Dim})
	idPaint := st.Dim
	if onPath {
		idPaint = st.Accent
	}
	d := describe(e)
	cells = append(cells, cell{text: shortID(e.ID), paint: idPaint}, cell{text: " "},
		cell{text: Safe(d.kind), paint: d.paint(st)}, cell{text: Safe(d.rest()), flex: true})
	if f.n.HasLabel {
		cells = append(cells, labelCell(f.n.Label, st))
	}
	if k := len(f.n.Children); k > 1 {
		cells = append(cells, cell{text: fmt.Sprintf("  %s %d branches", branchMark, k), paint: st.Bold})
	}
	if e == v.Leaf {
		cells = append(cells, cell{text: "  " + leafMark, paint: st.Accent})
	}
	tw.line(cells...)
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

func (tw *textWriter) detached(v *project.TreeView) {
	st := tw.opt.Style
	n := len(v.Tree.Detached)
	tw.line()
	if !tw.opt.Quiet {
		tw.line(cell{text: warnMark + " ", paint: st.Warn},
			cell{text: Plural(n, "detached entry", "detached entries") + ": a parentId cycle cuts them off from every root (pi ignores them)", paint: st.Warn})
	}
	for _, e := range v.Tree.Detached {
		cells := []cell{{text: "  "}, {text: shortID(e.ID), paint: st.Dim}, {text: " "},
			{text: Safe(describe(e).line()), flex: true},
			{text: fmt.Sprintf("  (line %d, parent %s)", e.Line, shortID(e.ParentID)), paint: st.Dim}}
		if e == v.Leaf {
			cells = append(cells, cell{text: "  " + leafMark, paint: st.Accent})
		}
		tw.line(cells...)
	}
}

// Path writes the text view of `pisess path`: one line per entry from the
// root to the leaf with its position, short id, time of day (UTC, as
// recorded; a dated rule whenever the day changes), kind (the role for a
// message) and summary; labels, branch points and the leaf are marked.
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
	children := childCounts(s)
	views := make([]entryView, len(path))
	kindWidth := 0
	for i, e := range path {
		views[i] = describe(e)
		kindWidth = max(kindWidth, tw.width(Safe(views[i].kind)))
	}
	numWidth := len(strconv.Itoa(len(path)))
	day := ""
	for i, e := range path {
		date, clock := splitTime(e.Timestamp)
		if date != day && date != "" {
			tw.line(cell{text: strings.Repeat(" ", numWidth+2) + "── " + date + " ──", paint: st.Dim})
			day = date
		}
		d := views[i]
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
		if k := children[e]; k > 1 {
			cells = append(cells, cell{text: fmt.Sprintf("  %s %d branches", branchMark, k), paint: st.Bold})
		}
		if i == len(path)-1 {
			cells = append(cells, cell{text: "  " + leafMark, paint: st.Accent})
		}
		tw.line(cells...)
	}
	return tw.flush()
}

// childCounts counts each entry's children.
func childCounts(s *project.Session) map[*project.Entry]int {
	n := map[*project.Entry]int{}
	for _, e := range s.Entries {
		if p := s.Parent(e); p != nil && p != e {
			n[p]++
		}
	}
	return n
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

func (tw *textWriter) width(s string) int { return tw.cond.StringWidth(s) }

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

// entryView is what the tree and path views show of an entry: a short kind
// (the role of a message), a detail (tools called, a result's size, a
// model, a customType…) and the first words of its text.
type entryView struct {
	kind, detail, text string
	failed             bool // an errored tool result or turn, a failed command
}

// line is the tree's form: "kind detail: text".
func (d entryView) line() string { return d.kind + d.rest() }

// rest is what follows the kind on a tree line.
func (d entryView) rest() string {
	s := ""
	if d.detail != "" {
		s = " " + d.detail
	}
	if d.text != "" {
		s += ": " + d.text
	}
	return s
}

// paint colours the kind: user turns stand out, failures are red, and the
// entries that stand for rewritten history (summaries) are yellow.
func (d entryView) paint(st Style) func(string) string {
	switch {
	case d.failed:
		return st.Error
	case d.kind == "user":
		return st.Bold
	case d.kind == "compaction" || d.kind == "branch summary":
		return st.Warn
	}
	return nil
}

// describe reads an entry for the tree and path views. Texts are whole
// (white space collapsed): the line width decides how much is shown.
func describe(e *project.Entry) entryView {
	switch e.Type {
	case "message":
		raw := e.Message()
		if raw == nil || e.Role() == "" && !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			return entryView{kind: "message", text: "(unreadable)"}
		}
		m := viewMessage(raw)
		kind := m.role
		switch m.role {
		case "custom":
			m.detail = joinWords(m.customType, m.detail)
		case "bashExecution":
			kind = "bash"
		case "":
			kind = "message"
		}
		return entryView{kind: kind, detail: m.detail, text: m.text, failed: m.failed}
	case "model_change":
		return entryView{kind: "model", detail: "→ " + e.StringField("provider") + "/" + e.StringField("modelId")}
	case "thinking_level_change":
		return entryView{kind: "thinking", detail: "→ " + e.StringField("thinkingLevel")}
	case "compaction":
		return describeCompaction(e)
	case "branch_summary":
		return entryView{kind: "branch summary", detail: "(from " + shortID(e.StringField("fromId")) + ")", text: words(e.StringField("summary"))}
	case "custom_message":
		raw, _ := e.Field("content")
		text, _ := contentText(raw)
		detail := e.StringField("customType")
		if display, _ := e.Field("display"); string(display) == "false" {
			detail = joinWords(detail, "(hidden)")
		}
		return entryView{kind: "custom message", detail: detail, text: words(text)}
	case "custom":
		return entryView{kind: "custom", detail: e.StringField("customType")}
	case "label":
		if l := e.StringField("label"); l != "" {
			return entryView{kind: "label", detail: strconv.Quote(l) + " → " + shortID(e.StringField("targetId"))}
		}
		return entryView{kind: "label", detail: "cleared on " + shortID(e.StringField("targetId"))}
	case "session_info":
		return entryView{kind: "session name", text: words(e.StringField("name"))}
	case "context_edit":
		if raw, _ := e.Field("replacement"); string(bytes.TrimSpace(raw)) == "null" {
			return entryView{kind: "context edit", detail: "omit " + shortID(e.StringField("targetId"))}
		}
		return entryView{kind: "context edit", detail: "replace content of " + shortID(e.StringField("targetId"))}
	case "usage":
		return describeUsage(e)
	case "":
		return entryView{kind: "(no type)"}
	}
	return entryView{kind: e.Type}
}

func describeCompaction(e *project.Entry) entryView {
	var meta []string
	if raw, _ := e.Field("tokensBefore"); len(raw) > 0 {
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			meta = append(meta, Count(n)+" tokens before")
		}
	}
	if isJSONArray(e) {
		var tail []json.RawMessage
		raw, _ := e.Field("retainedTail")
		_ = json.Unmarshal(raw, &tail)
		meta = append(meta, "retains "+Plural(len(tail), "message", "messages"))
	} else if kept := e.StringField("firstKeptEntryId"); kept != "" {
		meta = append(meta, "keeps from "+shortID(kept))
	}
	d := entryView{kind: "compaction", text: words(e.StringField("summary"))}
	if len(meta) > 0 {
		d.detail = "(" + strings.Join(meta, ", ") + ")"
	}
	return d
}

func describeUsage(e *project.Entry) entryView {
	var u struct {
		TotalTokens                          *float64
		Input, Output, CacheRead, CacheWrite float64
	}
	raw, _ := e.Field("usage")
	_ = json.Unmarshal(raw, &u)
	total := u.Input + u.Output + u.CacheRead + u.CacheWrite
	if u.TotalTokens != nil {
		total = *u.TotalTokens
	}
	model := e.StringField("provider") + "/" + e.StringField("model")
	return entryView{kind: "usage", detail: joinWords(e.StringField("kind"), model),
		text: Count(int64(total)) + " tokens"}
}

func joinWords(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}
