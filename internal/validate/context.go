package validate

import (
	"hash/maphash"
	"slices"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// Rule 6 (session-format.md section 5): in the projected context of the
// default leaf every tool call is answered before the next message. The
// projection needs only a little of each entry, so validate keeps that
// little in its compact index, rebuilds the context's turns at the end, and
// lets session.PairTools judge them: the same verdicts as the projection of
// the full file (a test holds the two to each other on every corpus file),
// in memory that grows with the number of entries, not their size.

// special is what the projection needs of a compaction or a context edit.
type special struct {
	// compaction
	firstKept int32              // ordinal of the first kept entry, -1 for none
	hasTail   bool               // retainedTail is an array: nothing before is kept
	tail      []session.ToolTurn // the retainedTail messages
	// context_edit (well-formed only)
	target int32              // ordinal of the edited entry, -1 for none
	omit   bool               // replacement null
	calls  []session.ToolCall // tool calls of a replacement content
}

// projectsMessage reports whether an entry puts a message into the context
// when it is on the context path (compactions are handled apart).
func projectsMessage(e entry) bool {
	switch e.Type {
	case "message":
		return e.Message.Present
	case "custom_message":
		return true
	case "branch_summary":
		return e.Summary
	}
	return false
}

// remember keeps what the projection will need of an entry.
func (k *linker) remember(e entry, ord int32) {
	switch {
	case e.Type == "message" && k.name(k.node(ord).role) == "toolResult":
		k.node(ord).aux = k.results.add(resultRef{id: k.callIDRef(e.Message.ToolCallID), name: k.intern(e.Message.ToolName)})
	case e.Type == "compaction":
		k.specials[ord] = k.compaction(e, ord)
	case e.Type == "context_edit":
		if sp, ok := k.contextEdit(e); ok {
			k.specials[ord] = sp
		}
	}
}

// callIDRef keeps a toolResult's call id: the newest call with that id
// kept it already, in the common case.
func (k *linker) callIDRef(id string) textRef {
	if site, ok := k.calls[maphash.String(k.seed, id)]; ok {
		if ref := k.sites.at(site).id; k.texts.get(ref) == id {
			return ref
		}
	}
	return k.texts.add(id)
}

// compaction resolves a compaction's kept range and its retainedTail turns.
func (k *linker) compaction(e entry, ord int32) *special {
	sp := &special{firstKept: -1, target: -1}
	if e.HasTail {
		sp.hasTail = true
		for _, msg := range e.Tail {
			sp.tail = append(sp.tail, k.turnOfMessage(msg, e.ID, e.line))
		}
		return sp
	}
	if e.linear { // version 1: the index counts records, the header is 0
		if idx := e.FirstKeptIndex; idx.Present && idx.IsInt && idx.N >= 1 && idx.N <= int64(ord)+1 {
			sp.firstKept = int32(idx.N - 1)
		}
		return sp
	}
	if target, found := k.ids.get(e.FirstKeptID); e.HasFirstKeptID && found {
		sp.firstKept = target
	}
	return sp
}

// contextEdit reads a well-formed context edit: replacement null, or an
// object with a content; anything else is ignored, as pi would.
func (k *linker) contextEdit(e entry) (*special, bool) {
	if !e.HasTargetID || e.Replacement.Kind == session.ReplacementIgnored {
		return nil, false
	}
	target, found := k.ids.get(e.TargetID)
	if !found {
		return nil, false
	}
	sp := &special{firstKept: -1, target: target, omit: e.Replacement.Kind == session.ReplacementOmit}
	for _, c := range e.Replacement.Calls {
		sp.calls = append(sp.calls, session.ToolCall{ID: strings.Clone(c.ID), Name: k.internString(c.Name)})
	}
	return sp, true
}

// turnOfMessage is the turn of a message (a retainedTail element).
func (k *linker) turnOfMessage(msg session.Message, entryID string, line int) session.ToolTurn {
	if !msg.Present {
		return session.ToolTurn{}
	}
	role := msg.Role
	t := session.ToolTurn{Role: strings.Clone(role), EntryID: strings.Clone(entryID), Line: line}
	t.StopReason = strings.Clone(msg.StopReason)
	t.ToolCallID = strings.Clone(msg.ToolCallID)
	t.ToolName = k.internString(msg.ToolName)
	if role == "assistant" {
		for _, c := range msg.Calls {
			t.Calls = append(t.Calls, session.ToolCall{ID: strings.Clone(c.ID), Name: k.internString(c.Name)})
		}
	}
	return t
}

// checkContext reports rule 6 on the default leaf's projected context, and
// the tool calls the context ends waiting for (unanswered_tool_call).
func (k *linker) checkContext() {
	turns := k.contextTurns()
	if k.omp {
		turns = session.OmpTurns(turns) // omp strips dangling calls and failed turns (omp.go)
	}
	for _, u := range session.PairTools(turns) {
		k.add(finding.Warnf(finding.UnpairedToolInContext, u.Line, "%s", u.Describe()).WithEntry(u.EntryID))
	}
	for _, u := range session.Unanswered(turns) {
		k.add(finding.Warnf(finding.UnansweredToolCall, u.Line, "%s", session.DescribeUnanswered(u)).WithEntry(u.EntryID))
	}
}

// contextTurns projects the default leaf (the last entry) as pi does
// (session-format.md section 7) and returns one turn per message.
func (k *linker) contextTurns() []session.ToolTurn {
	entries := k.contextEntries(k.defaultPath())
	edits := map[int32]*special{}
	for _, ord := range entries {
		if sp := k.specials[ord]; sp != nil && k.name(k.node(ord).typ) == "context_edit" {
			edits[sp.target] = sp
		}
	}
	var turns []session.ToolTurn
	for i, ord := range entries {
		n := *k.node(ord)
		if i == 0 && k.name(n.typ) == "compaction" {
			turns = append(turns, session.ToolTurn{Role: "compactionSummary", EntryID: k.entryID(n), Line: int(n.line)})
			turns = append(turns, k.specials[ord].tail...)
			continue
		}
		if n.flags&flagMessage == 0 {
			continue
		}
		t := k.turnOf(ord)
		if ed := edits[ord]; ed != nil && k.editable(n) {
			if ed.omit {
				continue
			}
			if t.Role == "assistant" {
				t.Calls = ed.calls
			}
		}
		turns = append(turns, t)
	}
	return turns
}

// defaultPath is the path from a root to the last entry, by ordinals.
func (k *linker) defaultPath() []int32 {
	var path []int32
	for x := k.nodes.len() - 1; x >= 0; x = k.node(x).parent {
		path = append(path, x)
	}
	slices.Reverse(path)
	return path
}

// contextEntries applies the last compaction's cut to a path. In an omp
// file a later reset_boundary (/clear) cuts instead: the context starts
// after it (a compaction after the boundary supersedes it).
func (k *linker) contextEntries(path []int32) []int32 {
	ci := k.last(path, "compaction")
	if reset := k.last(path, "reset_boundary"); k.omp && reset > ci {
		return path[reset+1:]
	}
	if ci < 0 {
		return path
	}
	c := k.specials[path[ci]]
	out := []int32{path[ci]}
	if i := slices.Index(path[:ci], c.firstKept); i >= 0 && !c.hasTail {
		out = append(out, path[i:ci]...)
	}
	return append(out, path[ci+1:]...)
}

// last is the index on path of the last entry of type typ, or -1.
func (k *linker) last(path []int32, typ string) int {
	for i := len(path) - 1; i >= 0; i-- {
		if k.name(k.node(path[i]).typ) == typ {
			return i
		}
	}
	return -1
}

// turnOf is the turn of an entry that projects a message.
func (k *linker) turnOf(ord int32) session.ToolTurn {
	n := *k.node(ord)
	t := session.ToolTurn{EntryID: k.entryID(n), Line: int(n.line)}
	switch k.name(n.typ) {
	case "custom_message":
		t.Role = "custom"
	case "branch_summary":
		t.Role = "branchSummary"
	default:
		t.Role = k.name(n.role)
	}
	switch t.Role {
	case "assistant":
		if n.flags&flagExempt != 0 {
			t.StopReason = "aborted"
		}
		for s := n.aux; s >= 0 && s < k.sites.len() && k.sites.at(s).node == ord; s++ {
			site := k.sites.at(s)
			t.Calls = append(t.Calls, session.ToolCall{ID: k.texts.get(site.id), Name: k.texts.get(site.name)})
		}
	case "toolResult":
		if n.aux >= 0 {
			r := k.results.at(n.aux)
			t.ToolCallID, t.ToolName = k.texts.get(r.id), k.texts.get(r.name)
		}
	}
	return t
}

// editable reports whether a context edit may change the entry's message.
func (k *linker) editable(n node) bool {
	switch k.name(n.typ) {
	case "custom_message":
		return true
	case "message":
		role := k.name(n.role)
		return role == "user" || role == "assistant" || role == "toolResult"
	}
	return false
}

// entryID formats a node's id, when the index kept it.
func (k *linker) entryID(n node) string {
	if n.flags&flagHexID == 0 {
		return ""
	}
	const digits = "0123456789abcdef"
	var b [8]byte // fmt.Sprintf("%08x", n.id) without fmt: once an entry on the context path
	for i, h := 7, n.id; i >= 0; i, h = i-1, h>>4 {
		b[i] = digits[h&15]
	}
	return string(b[:])
}
