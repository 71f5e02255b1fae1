package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"

	"github.com/pisess/pisess/internal/text"
)

// viewRaw reads a projected message for the views, its text cut after
// limit runes (0: whole): every message is read before the first line is
// written, so only what a line can show is kept of each.
func viewRaw(raw []byte, limit int) messageView {
	var t session.Tape
	if t.Build(raw) != nil {
		return messageView{role: "?", text: "(unreadable message)", tokens: project.EstimateTokens(raw)}
	}
	return viewMessage(&t, 0, limit, true)
}

// Context writes the text view of `pisess context`: a header with the model,
// thinking level, message count and estimated tokens (and the compaction
// cut and context edits, when there are any), then one line per message
// with its index, kind, source entry, size in characters, token estimate
// and first words. Compaction and branch summaries, custom messages, the
// retained tail of a compaction and edited messages are labelled; rule-6
// problems (a tool call without its result, a result without its call) are
// flagged under the message they concern and summed up at the end.
func Context(w io.Writer, c *project.Context, opt ViewOptions) error {
	tw := newTextWriter(w, opt)
	msgs := make([]messageView, len(c.Messages))
	for i, raw := range c.Messages {
		msgs[i] = viewRaw(raw, textLimit(opt))
	}
	if !opt.Quiet {
		tw.contextHeader(c, msgs)
	}
	if len(msgs) == 0 {
		tw.line(cell{text: "(no messages)", paint: text.Style.Dim})
		return tw.flush()
	}
	tw.messageLines(c, msgs)
	if n := len(c.Unpaired); n > 0 && !opt.Quiet {
		tw.line()
		tw.line(cell{text: warnMark + " " + text.Plural(n, "tool call/result problem", "tool call/result problems") +
			" (rule 6): a provider rejects the next request built from this context", paint: text.Style.Warn})
	}
	return tw.flush()
}

func (tw *textWriter) contextHeader(c *project.Context, msgs []messageView) {
	h := []cell{fileCell(tw.opt.File)}
	if c.Leaf == nil {
		tw.header(append(h, cell{text: ": no entries, empty context"}))
		return
	}
	tw.headLine(append(h, cell{text: ": context at leaf "}, cell{text: shortID(c.Leaf.ID()), paint: text.Style.Accent}))
	field := func(name string, value ...cell) {
		tw.line(append([]cell{{text: fmt.Sprintf("  %-9s ", name), paint: text.Style.Dim}}, value...)...)
	}
	field("model", append([]cell{modelCell(c.Model)}, modelsCell(c.Settings)...)...)
	thinking := "(none)"
	if name := c.ThinkingLevelName(); name != "" {
		thinking = text.Safe(name)
	}
	field("thinking", cell{text: thinking})
	field("messages", cell{text: fmt.Sprintf("%s, ≈ %s tokens", text.Count(int64(len(msgs))), text.Count(int64(project.ContextTokens(c.Messages))))},
		cell{text: " " + tokenBasis(msgs), paint: text.Style.Dim})
	if cut := cutNote(c); cut != "" {
		field("cut", cell{text: cut})
	}
	if reset := resetNote(c); reset != "" {
		field("cut", cell{text: reset})
	}
	if edits := editNote(c, msgs); edits != "" {
		field("edits", cell{text: edits})
	}
	tw.line()
}

func modelCell(m *project.Model) cell {
	if m == nil {
		return cell{text: "(none)", paint: text.Style.Dim}
	}
	provider, id := m.Names()
	return cell{text: text.Safe(cmp.Or(provider, "?") + "/" + cmp.Or(id, "?")), paint: text.Style.Bold}
}

// tokenBasis says where the token total comes from, as pi's
// estimateContextTokens computes it: the usage the provider reported for
// the last assistant message that has one, plus estimates of what follows.
func tokenBasis(msgs []messageView) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].usage {
			after := len(msgs) - 1 - i
			if after == 0 {
				return fmt.Sprintf("(usage reported at #%d)", i)
			}
			return fmt.Sprintf("(usage reported at #%d + %d estimated after it)", i, after)
		}
	}
	return "(estimated: characters / 4)"
}

// cutNote describes the compaction cut, if the context starts with one.
func cutNote(c *project.Context) string {
	if len(c.Entries) == 0 || c.Entries[0].Type() != "compaction" {
		return ""
	}
	comp := c.Entries[0]
	at := slices.Index(c.Path, comp)
	left := len(c.Path) - len(c.Entries)
	note := fmt.Sprintf("at compaction %s (line %d): %s dropped, ", shortID(comp.ID()), comp.Line,
		text.Plural(left, "earlier entry", "earlier entries"))
	switch kept := at - left; {
	case isJSONArray(comp):
		tail := 0
		for i, src := range c.Sources {
			if src == comp && i > 0 {
				tail++
			}
		}
		return note + text.Plural(tail, "message", "messages") + " retained"
	case kept > 0:
		return note + fmt.Sprintf("%d kept from %s", kept, shortID(comp.StringField("firstKeptEntryId")))
	}
	return note + fmt.Sprintf("none kept (firstKeptEntryId %s is not on the path)", shortID(comp.StringField("firstKeptEntryId")))
}

func isJSONArray(comp *project.Entry) bool {
	raw, _ := comp.Field("retainedTail")
	return len(raw) > 0 && raw[0] == '['
}

// editNote counts the messages the context edits change.
func editNote(c *project.Context, msgs []messageView) string {
	edits := contextEdits(c)
	replaced, omitted := 0, 0
	for i, e := range c.Entries {
		if ed, ok := edits[e.ID()]; ok && e.ID() != "" && ed.omit && yields(e, i) {
			omitted++
		}
	}
	var last *project.Entry
	for i, src := range c.Sources {
		if src != last && editedMessage(edits, src, msgs[i]) {
			replaced++
			last = src
		}
	}
	var parts []string
	if replaced > 0 {
		parts = append(parts, text.Plural(replaced, "message", "messages")+" replaced")
	}
	if omitted > 0 {
		parts = append(parts, text.Plural(omitted, "message", "messages")+" omitted")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " by context_edit"
}

// yields reports whether the context entry at index i puts messages into
// the context unless an edit drops them: pi 1.6.0 drops every message of
// an entry whose latest context_edit has replacement null, whatever its
// kind (validate reports an edit of an entry other than a custom_message
// or a user, assistant or toolResult message as context_edit_target).
func yields(e *project.Entry, i int) bool {
	switch e.Type() {
	case "message":
		return e.Message() != nil
	case "custom_message":
		return true
	case "branch_summary":
		r, err := e.Record()
		return err == nil && session.JSTruthy(r.Tape.Raw(r.Member("summary")))
	case "compaction":
		return i == 0 // an older compaction in the kept range yields nothing
	}
	return false
}

// editedMessage reports whether a context_edit replaced the content of m,
// a message of src: pi 1.6.0 replaces it in user, assistant, toolResult
// and custom messages.
func editedMessage(edits map[string]edit, src *project.Entry, m messageView) bool {
	ed, ok := edits[src.ID()]
	if !ok || src.ID() == "" || ed.omit {
		return false
	}
	switch m.role {
	case "user", "assistant", "toolResult", "custom":
		return true
	}
	return false
}

// omission is a message a context_edit took out of the context.
type omission struct {
	entry *project.Entry
	by    string
	at    int // the index the message would have had
}

// omissions lists the messages omitted by context edits, in order.
func omissions(c *project.Context, edits map[string]edit) []omission {
	pos := make(map[*project.Entry]int, len(c.Entries))
	for i, e := range c.Entries {
		pos[e] = i
	}
	var out []omission
	next := 0 // messages whose source comes before the entry
	for i, e := range c.Entries {
		for next < len(c.Sources) && pos[c.Sources[next]] < i {
			next++
		}
		if ed, ok := edits[e.ID()]; ok && ed.omit && e.ID() != "" && yields(e, i) {
			out = append(out, omission{entry: e, by: ed.by, at: next})
		}
	}
	return out
}

// edit is the context_edit in force for a target.
type edit struct {
	by   string // the context_edit entry's id
	omit bool
}

// contextEdits returns the last well-formed context_edit per target among
// the context entries, as the projection applies them.
func contextEdits(c *project.Context) map[string]edit {
	edits := map[string]edit{}
	for _, e := range c.Entries {
		if e.Type() != "context_edit" {
			continue
		}
		r, err := e.Record()
		if err != nil {
			continue
		}
		target, repl := r.Str("targetId"), r.Member("replacement")
		switch t := &r.Tape; {
		case target == "" || repl < 0:
		case t.Kind(repl) == session.KindNull:
			edits[target] = edit{by: e.ID(), omit: true}
		default: // content replaced (removed when the replacement has none)
			edits[target] = edit{by: e.ID()}
		}
	}
	return edits
}

// Column titles of the message table.
const (
	colIndex  = "#"
	colKind   = "message"
	colEntry  = "entry"
	colChars  = "chars"
	colTokens = "~tokens"
	colText   = "text"
	maxKind   = 28
)

func (tw *textWriter) messageLines(c *project.Context, msgs []messageView) {
	edits := contextEdits(c)
	unpaired := map[int][]project.Unpaired{}
	for _, u := range c.Unpaired {
		unpaired[u.MessageIndex] = append(unpaired[u.MessageIndex], u)
	}
	kinds := make([]string, len(msgs))
	numW, kindW, charW, tokW := len(strconv.Itoa(len(msgs)-1)), len(colKind), len(colChars), len(colTokens)
	idW := idColumns // wider only for an id wide once escaped or drawn
	for i, m := range msgs {
		idW = max(idW, tw.width(shortID(c.Sources[i].ID())))
		kinds[i] = cut(text.Safe(m.kind()), maxKind)
		kindW = max(kindW, tw.width(kinds[i]))
		charW = max(charW, len(text.Count(int64(m.chars))))
		tokW = max(tokW, len(text.Count(int64(m.tokens))))
	}
	pad := func(s string, n int) string { return s + blanks(n-tw.width(s)) }
	lpad := func(s string, n int) string { return blanks(n-tw.width(s)) + s }
	tw.line(cell{text: fmt.Sprintf("%s  %s  %s  %s  %s  %s", lpad(colIndex, numW), pad(colKind, kindW), pad(colEntry, idW),
		lpad(colChars, charW), lpad(colTokens, tokW), colText), paint: text.Style.Dim})
	sections := sectionsOf(c)
	omitted := omissions(c, edits)
	under := blanks(numW + 2) // a note under a message, past its index
	omit := func(upTo int) {
		for len(omitted) > 0 && omitted[0].at <= upTo {
			o := omitted[0]
			omitted = omitted[1:]
			tw.line(cell{text: under + "✂ " + shortID(o.entry.ID()) + " " + text.Safe(entryKind(o.entry)) +
				" omitted by context edit " + shortID(o.by), paint: text.Style.Dim})
		}
	}
	for i, m := range msgs {
		src := c.Sources[i]
		if i > 0 && sections[i] != sections[i-1] {
			tw.line(cell{text: under + "── " + sections[i] + " ──", paint: text.Style.Dim})
		}
		omit(i)
		cells := []cell{
			{text: lpad(strconv.Itoa(i), numW) + "  ", paint: text.Style.Dim},
			{text: pad(kinds[i], kindW), paint: m.kindPaint()}, {text: "  "},
			{text: pad(shortID(src.ID()), idW), paint: text.Style.Accent}, {text: "  "},
			{text: lpad(text.Count(int64(m.chars)), charW) + "  " + lpad(text.Count(int64(m.tokens)), tokW), paint: text.Style.Dim}, {text: "  "},
		}
		cells = tw.appendTextCells(cells, tw.joinPrefix(m.detail, ": ", m.text != "" || m.lazy != nil), m.text, m.lazy)
		if editedMessage(edits, src, m) {
			cells = append(cells, cell{text: "  ✎ edited by " + shortID(edits[src.ID()].by), paint: text.Style.Label})
		}
		tw.line(cells...)
		for _, u := range unpaired[i] {
			tw.line(cell{text: under + warnMark + " " + text.Safe(unpairedText(u)), paint: text.Style.Warn})
		}
	}
	omit(len(msgs))
}

// sectionsOf names the part of a compacted context each message belongs
// to: the summary, the compaction's retained tail, the entries it kept from
// before it, or what came after it. Without a compaction, all are "".
func sectionsOf(c *project.Context) []string {
	out := make([]string, len(c.Sources))
	if len(c.Entries) == 0 || c.Entries[0].Type() != "compaction" {
		return out
	}
	comp := c.Entries[0]
	// The path positions of the compaction and of the sources (0 for one
	// not on the path): a map of the messages' entries, not of the path,
	// which can be every entry of the session (10 MB of map for 256,742).
	pos := make(map[*project.Entry]int, len(c.Sources)+1)
	pos[comp] = 0
	for _, e := range c.Sources {
		pos[e] = 0
	}
	for i, e := range c.Path {
		if _, ok := pos[e]; ok {
			pos[e] = i
		}
	}
	tail := 0
	for i, src := range c.Sources {
		if src == comp && i > 0 {
			tail++
		}
	}
	for i, src := range c.Sources {
		switch {
		case src == comp && i == 0:
			out[i] = "summary"
		case src == comp:
			out[i] = "retained tail of compaction " + shortID(comp.ID()) + ": " + text.Plural(tail, "message", "messages")
		case pos[src] < pos[comp]:
			out[i] = "kept from before compaction " + shortID(comp.ID())
		default:
			out[i] = "after compaction " + shortID(comp.ID())
		}
	}
	return out
}

// unpairedText describes a rule-6 problem in a few words.
func unpairedText(u project.Unpaired) string {
	name := cmp.Or(u.ToolName, "?")
	if u.Kind == project.CallWithoutResult {
		return fmt.Sprintf("tool call %s (%s) has no result before the next message", u.ToolCallID, name)
	}
	return fmt.Sprintf("tool result for %s (%s) does not follow its call", u.ToolCallID, name)
}
