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
// little in its compact index, projects the default leaf at the end by the
// rules project's views follow too (session.ContextEntries, LatestEdits,
// Yields, EditOn) read over that index, and lets session.PairTools judge
// the turns: the same verdicts as the projection of the full file (a test
// holds the two to each other on every corpus file), in memory that grows
// with the number of entries, not their size.

// special is what the projection needs of a compaction or a context edit.
type special struct {
	// compaction
	firstKept int32              // ordinal of the first kept entry, -1 for none
	hasTail   bool               // retainedTail is an array: nothing before is kept
	tail      []session.ToolTurn // the retainedTail messages
	// context_edit (with a targetId)
	targetID    string                  // resolved once the file is read: the edit may come first
	replacement session.ReplacementKind // what it does (session.EditOn)
	calls       []session.ToolCall      // tool calls of a replacement content
}

// projectsMessage reports whether an entry puts a message into the context
// when it is on the context path (the leading compaction is apart).
func projectsMessage(e entry) bool {
	return session.HasMessage(e.Type, e.Message.Present, e.Summary)
}

// remember keeps what the projection will need of an entry.
func (k *linker) remember(e entry, ord int32) {
	switch {
	case e.Type == "message" && session.RoleName(k.node(ord).role) == "toolResult":
		k.node(ord).aux = k.results.add(resultRef{id: k.callIDRef(e.Message.ToolCallID), name: k.intern(e.Message.ToolName)})
	case e.Type == "compaction":
		k.specials[ord] = k.compaction(e, ord)
	case e.Type == "context_edit":
		if e.HasTargetID {
			k.specials[ord] = k.contextEdit(e)
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
	sp := &special{firstKept: -1}
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

// contextEdit keeps what the projection needs of a context edit: its
// target and its replacement, whatever that is (the last edit of a target
// wins even when it changes nothing).
func (k *linker) contextEdit(e entry) *special {
	sp := &special{firstKept: -1, targetID: strings.Clone(e.TargetID), replacement: e.Replacement.Kind}
	for _, c := range e.Replacement.Calls {
		sp.calls = append(sp.calls, session.ToolCall{ID: strings.Clone(c.ID), Name: k.internString(c.Name)})
	}
	return sp
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
// (session-format.md section 7) and returns one turn per message. An omp
// file's context has no context edits: omp does not know them.
func (k *linker) contextTurns() []session.ToolTurn {
	ix := &contextIndex{k: k}
	entries := session.ContextEntries(k.defaultPath(), ix, k.omp)
	var edits map[int32]int32
	if !k.omp {
		edits = session.LatestEdits(entries, ix, k.editTarget)
	}
	var turns []session.ToolTurn
	for i, ord := range entries {
		n := k.node(ord)
		from := len(turns)
		switch session.Yields(i, ix.Type(ord)) {
		case session.YieldsCheckpoint:
			turns = append(turns, session.ToolTurn{Role: "compactionSummary", EntryID: k.entryID(*n), Line: int(n.line)})
			turns = append(turns, k.specials[ord].tail...)
		case session.YieldsMessage:
			if n.flags&flagMessage == 0 {
				continue
			}
			turns = append(turns, k.turnOf(ord))
		default:
			continue
		}
		if edit, ok := edits[ord]; ok {
			turns = edited(turns, from, k.specials[edit])
		}
	}
	return turns
}

// edited applies a context edit to the turns of its target, turns[from:].
// Only an assistant's tool calls matter to rule 6: a replacement gives it
// those of the replacement's content.
func edited(turns []session.ToolTurn, from int, edit *special) []session.ToolTurn {
	out := turns[:from]
	for _, t := range turns[from:] {
		switch session.EditOn(edit.replacement, t.Role) {
		case session.EditDrops:
			continue
		case session.EditReplaces:
			if t.Role == "assistant" {
				t.Calls = edit.calls
			}
		}
		out = append(out, t)
	}
	return out
}

// editTarget is the ordinal of the entry a context edit names.
func (k *linker) editTarget(edit int32) (int32, bool) {
	sp := k.specials[edit]
	if sp == nil {
		return -1, false
	}
	return k.ids.get(sp.targetID)
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

// contextIndex is the linker's index as the projection reads it
// (session.ContextIndex), entries by ordinal. It remembers the compaction
// last asked about: the cut asks about one, once for each entry before it.
type contextIndex struct {
	k    *linker
	ord  int32
	comp *special
}

func (x *contextIndex) Type(ord int32) string { return x.k.typeName(x.k.node(ord)) }
func (x *contextIndex) Role(ord int32) string { return x.k.roleName(x.k.node(ord)) }

func (x *contextIndex) KeptStart(c, ord int32) bool {
	sp := x.compaction(c)
	return sp != nil && sp.firstKept == ord
}

func (x *contextIndex) RetainedTail(c int32) bool {
	sp := x.compaction(c)
	return sp != nil && sp.hasTail
}

func (x *contextIndex) compaction(c int32) *special {
	if x.comp == nil || x.ord != c {
		x.ord, x.comp = c, x.k.specials[c]
	}
	return x.comp
}

// turnOf is the turn of an entry that projects a message.
func (k *linker) turnOf(ord int32) session.ToolTurn {
	n := *k.node(ord)
	t := session.ToolTurn{EntryID: k.entryID(n), Line: int(n.line)}
	switch k.typeName(&n) {
	case "custom_message":
		t.Role = "custom"
	case "branch_summary":
		t.Role = "branchSummary"
	default:
		t.Role = k.roleName(&n)
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
