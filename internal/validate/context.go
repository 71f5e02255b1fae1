package validate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/project"
)

// Rule 6 (session-format.md section 5): in the projected context of the
// default leaf every tool call is answered before the next message. The
// projection needs only a little of each entry, so validate keeps that
// little in its compact index, rebuilds the context's turns at the end, and
// lets project.PairTools judge them: the same verdicts as the projection of
// the full file (a test holds the two to each other on every corpus file),
// in memory that grows with the number of entries, not their size.

// special is what the projection needs of a compaction or a context edit.
type special struct {
	// compaction
	firstKept int32              // ordinal of the first kept entry, -1 for none
	hasTail   bool               // retainedTail is an array: nothing before is kept
	tail      []project.ToolTurn // the retainedTail messages
	// context_edit (well-formed only)
	target int32              // ordinal of the edited entry, -1 for none
	omit   bool               // replacement null
	calls  []project.ToolCall // tool calls of a replacement content
}

// projectsMessage reports whether an entry puts a message into the context
// when it is on the context path (compactions are handled apart).
func projectsMessage(e entry) bool {
	switch e.typ {
	case "message":
		return obj(e.fields, "message") != nil
	case "custom_message":
		return true
	case "branch_summary":
		return truthy(e.fields["summary"])
	}
	return false
}

// truthy is JavaScript truthiness of a decoded JSON value.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case json.Number:
		f, err := v.Float64()
		return err == nil && f != 0
	}
	return true // objects and arrays
}

// remember keeps what the projection will need of an entry.
func (k *linker) remember(e entry, ord int32) {
	switch {
	case e.typ == "message" && k.name(k.nodes[ord].role) == "toolResult":
		msg := obj(e.fields, "message")
		id, _ := str(msg, "toolCallId")
		name, _ := str(msg, "toolName")
		k.nodes[ord].aux = int32(len(k.results))
		k.results = append(k.results, project.ToolCall{ID: strings.Clone(id), Name: k.intern(name)})
	case e.typ == "compaction":
		k.specials[ord] = k.compaction(e, ord)
	case e.typ == "context_edit":
		if sp, ok := k.contextEdit(e); ok {
			k.specials[ord] = sp
		}
	}
}

// compaction resolves a compaction's kept range and its retainedTail turns.
func (k *linker) compaction(e entry, ord int32) *special {
	sp := &special{firstKept: -1, target: -1}
	if tail, ok := e.fields["retainedTail"].([]any); ok {
		sp.hasTail = true
		for _, m := range tail {
			msg, _ := m.(map[string]any)
			sp.tail = append(sp.tail, k.turnOfMessage(msg, e.id, e.line))
		}
		return sp
	}
	if e.linear { // version 1: the index counts records, the header is 0
		if n, err := asInt(e.fields["firstKeptEntryIndex"]); err == nil && n >= 1 && n <= int64(ord)+1 {
			sp.firstKept = int32(n - 1)
		}
		return sp
	}
	if first, ok := str(e.fields, "firstKeptEntryId"); ok {
		if target, found := k.ids.get(first); found {
			sp.firstKept = target
		}
	}
	return sp
}

// contextEdit reads a well-formed context edit: replacement null, or an
// object with a content; anything else is ignored, as pi would.
func (k *linker) contextEdit(e entry) (*special, bool) {
	targetID, ok := str(e.fields, "targetId")
	repl, has := e.fields["replacement"]
	if !ok || !has {
		return nil, false
	}
	target, found := k.ids.get(targetID)
	if !found {
		return nil, false
	}
	if repl == nil {
		return &special{firstKept: -1, target: target, omit: true}, true
	}
	r, _ := repl.(map[string]any)
	content, hasContent := r["content"]
	if r == nil || !hasContent || content == nil {
		return nil, false
	}
	sp := &special{firstKept: -1, target: target}
	for _, c := range toolCalls(map[string]any{"content": content}) {
		sp.calls = append(sp.calls, project.ToolCall{ID: strings.Clone(c.id), Name: k.intern(c.name)})
	}
	return sp, true
}

// turnOfMessage is the turn of a decoded message (a retainedTail element).
func (k *linker) turnOfMessage(msg map[string]any, entryID string, line int) project.ToolTurn {
	if msg == nil {
		return project.ToolTurn{}
	}
	role, _ := str(msg, "role")
	t := project.ToolTurn{Role: strings.Clone(role), EntryID: strings.Clone(entryID), Line: line}
	t.StopReason, _ = str(msg, "stopReason")
	t.StopReason = strings.Clone(t.StopReason)
	t.ToolCallID, _ = str(msg, "toolCallId")
	t.ToolCallID = strings.Clone(t.ToolCallID)
	t.ToolName, _ = str(msg, "toolName")
	t.ToolName = k.intern(t.ToolName)
	if role == "assistant" {
		for _, c := range toolCalls(msg) {
			t.Calls = append(t.Calls, project.ToolCall{ID: strings.Clone(c.id), Name: k.intern(c.name)})
		}
	}
	return t
}

// checkContext reports rule 6 on the default leaf's projected context.
func (k *linker) checkContext() {
	for _, u := range project.PairTools(k.contextTurns()) {
		k.add(finding.Warnf(finding.UnpairedToolInContext, u.Line, "%s", u.Describe()).WithEntry(u.EntryID))
	}
}

// contextTurns projects the default leaf (the last entry) as pi does
// (session-format.md section 7) and returns one turn per message.
func (k *linker) contextTurns() []project.ToolTurn {
	entries := k.contextEntries(k.defaultPath())
	edits := map[int32]*special{}
	for _, ord := range entries {
		if sp := k.specials[ord]; sp != nil && k.name(k.nodes[ord].typ) == "context_edit" {
			edits[sp.target] = sp
		}
	}
	var turns []project.ToolTurn
	for i, ord := range entries {
		n := k.nodes[ord]
		if i == 0 && k.name(n.typ) == "compaction" {
			turns = append(turns, project.ToolTurn{Role: "compactionSummary", EntryID: k.entryID(n), Line: int(n.line)})
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
	for x := int32(len(k.nodes)) - 1; x >= 0; x = k.nodes[x].parent {
		path = append(path, x)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// contextEntries applies the last compaction's cut to a path.
func (k *linker) contextEntries(path []int32) []int32 {
	ci := -1
	for i, ord := range path {
		if k.name(k.nodes[ord].typ) == "compaction" {
			ci = i
		}
	}
	if ci < 0 {
		return path
	}
	c := k.specials[path[ci]]
	out := []int32{path[ci]}
	if !c.hasTail && c.firstKept >= 0 {
		for i := 0; i < ci; i++ {
			if path[i] == c.firstKept {
				out = append(out, path[i:ci]...)
				break
			}
		}
	}
	return append(out, path[ci+1:]...)
}

// turnOf is the turn of an entry that projects a message.
func (k *linker) turnOf(ord int32) project.ToolTurn {
	n := k.nodes[ord]
	t := project.ToolTurn{EntryID: k.entryID(n), Line: int(n.line)}
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
		for s := n.aux; s >= 0 && int(s) < len(k.sites) && k.sites[s].node == ord; s++ {
			t.Calls = append(t.Calls, project.ToolCall{ID: k.sites[s].id, Name: k.sites[s].name})
		}
	case "toolResult":
		if n.aux >= 0 {
			r := k.results[n.aux]
			t.ToolCallID, t.ToolName = r.ID, r.Name
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
	return fmt.Sprintf("%08x", n.id)
}
