package validate

import (
	"sort"
	"strings"

	"github.com/pisess/pisess/internal/finding"
)

// node is the compact per-entry record the linkage checks keep: a few
// integers per entry, whatever the entry's size.
type node struct {
	parent int32 // ordinal of the parent entry, -1 for a root
	jump   int32 // skip pointer for logarithmic ancestor queries
	depth  int32
	line   int32
	typ    string
	role   string
}

// callSite is an assistant entry that made a tool call.
type callSite struct {
	node int32
	name string
}

// parentRef is an entry whose parentId was not (yet) known when it was read.
type parentRef struct {
	line    int
	entryID string
}

// linker checks the linkage rules (spec section 5) as entries stream past.
// Decoded strings may share the reader's line buffer: whatever the linker
// keeps beyond one line is cloned.
type linker struct {
	nodes   []node
	ids     map[string]int32
	calls   map[string][]callSite
	pending map[string][]parentRef
	add     func(finding.Finding)
}

func newLinker(add func(finding.Finding)) *linker {
	return &linker{
		ids:     make(map[string]int32),
		calls:   make(map[string][]callSite),
		pending: make(map[string][]parentRef),
		add:     add,
	}
}

// entry is what the linker needs of one entry.
type entry struct {
	line     int
	id       string
	hasID    bool
	parentID *string // nil: null or absent
	linear   bool    // version 1: the parent is the previous entry
	typ      string
	fields   map[string]any
}

// enter checks one entry against the entries before it and records it.
func (k *linker) enter(e entry) int32 {
	ord := int32(len(k.nodes))
	parent := k.resolveParent(e, ord)
	n := node{parent: parent, jump: -1, line: int32(e.line), typ: e.typ}
	if parent >= 0 {
		p := k.nodes[parent]
		n.depth = p.depth + 1
		n.jump = k.jumpFor(parent)
	}
	if e.typ == "message" {
		msg := obj(e.fields, "message")
		n.role, _ = str(msg, "role")
	}
	k.nodes = append(k.nodes, n)
	k.register(e, ord)
	k.checkReferences(e, ord)
	return ord
}

// resolveParent finds the ordinal of e's parent and reports parent faults.
func (k *linker) resolveParent(e entry, ord int32) int32 {
	if e.linear {
		return ord - 1
	}
	if e.parentID == nil {
		return -1
	}
	pid := *e.parentID
	if e.hasID && pid == e.id {
		k.add(finding.Errorf(finding.SelfParent, e.line, "entry %q is its own parent", e.id).WithEntry(e.id).WithPointer("/parentId"))
		return -1
	}
	if p, ok := k.ids[pid]; ok {
		return p
	}
	pid = strings.Clone(pid)
	k.pending[pid] = append(k.pending[pid], parentRef{line: e.line, entryID: strings.Clone(e.id)})
	return -1
}

// jumpFor computes the skip pointer of a new child of parent (Myers' jump
// pointers: ancestor queries in O(log depth) with one pointer per node).
func (k *linker) jumpFor(parent int32) int32 {
	p := k.nodes[parent]
	if p.jump >= 0 {
		j := k.nodes[p.jump]
		if j.jump >= 0 && p.depth-j.depth == j.depth-k.nodes[j.jump].depth {
			return j.jump
		}
	}
	return parent
}

// isAncestor reports whether a is x or one of x's ancestors.
func (k *linker) isAncestor(a, x int32) bool {
	if a < 0 || x < 0 {
		return false
	}
	d := k.nodes[a].depth
	for x >= 0 && k.nodes[x].depth > d {
		if j := k.nodes[x].jump; j >= 0 && k.nodes[j].depth >= d {
			x = j
		} else {
			x = k.nodes[x].parent
		}
	}
	return x == a
}

// register records e's id and tool calls, and settles forward references.
func (k *linker) register(e entry, ord int32) {
	if e.hasID {
		if prev, dup := k.ids[e.id]; dup {
			k.add(finding.Errorf(finding.DuplicateID, e.line, "id %q is already used on line %d", e.id, k.nodes[prev].line).WithEntry(e.id).WithPointer("/id"))
		} else {
			k.ids[strings.Clone(e.id)] = ord
		}
		for _, ref := range k.pending[e.id] {
			k.add(finding.Errorf(finding.ForwardParent, ref.line, "parentId %q names an entry that appears later (line %d)", e.id, e.line).WithEntry(ref.entryID).WithPointer("/parentId"))
		}
		delete(k.pending, e.id)
	}
	if k.nodes[ord].role == "assistant" {
		for _, c := range toolCalls(obj(e.fields, "message")) {
			id := strings.Clone(c.id)
			k.calls[id] = append(k.calls[id], callSite{node: ord, name: strings.Clone(c.name)})
		}
	}
}

// checkReferences checks the references an entry makes to other entries.
func (k *linker) checkReferences(e entry, ord int32) {
	switch e.typ {
	case "message":
		if k.nodes[ord].role == "toolResult" {
			k.checkToolResult(e, ord)
		}
	case "label":
		k.checkExists(e, "targetId", "")
	case "branch_summary":
		k.checkExists(e, "fromId", "root")
	case "context_edit":
		k.checkContextEdit(e, ord)
	case "compaction":
		k.checkFirstKept(e, ord)
	}
}

// checkToolResult: a result answers a call on its ancestor chain, by name.
func (k *linker) checkToolResult(e entry, ord int32) {
	msg := obj(e.fields, "message")
	callID, ok := str(msg, "toolCallId")
	if !ok {
		return // the schema reports it
	}
	name, _ := str(msg, "toolName")
	sites := k.calls[callID]
	for i := len(sites) - 1; i >= 0; i-- {
		if !k.isAncestor(sites[i].node, ord) {
			continue
		}
		if sites[i].name != name {
			k.add(finding.Errorf(finding.ToolNameMismatch, e.line, "toolName %q differs from the call's name %q (line %d)", name, sites[i].name, k.nodes[sites[i].node].line).WithEntry(e.id).WithPointer("/message/toolName"))
		}
		return
	}
	where := "on its ancestor chain"
	if e.linear {
		where = "earlier in the file"
	}
	k.add(finding.Errorf(finding.OrphanToolResult, e.line, "toolResult answers call %q, but no toolCall with that id is %s", callID, where).WithEntry(e.id).WithPointer("/message/toolCallId"))
}

// checkExists: the entry named by key exists earlier in the file.
func (k *linker) checkExists(e entry, key, allowed string) (int32, bool) {
	target, ok := str(e.fields, key)
	if !ok || (allowed != "" && target == allowed) {
		return -1, false
	}
	ord, found := k.ids[target]
	if !found {
		k.add(finding.Errorf(finding.DanglingReference, e.line, "%s %q names no earlier entry", key, target).WithEntry(e.id).WithPointer("/" + key))
		return -1, false
	}
	return ord, true
}

// checkContextEdit: the target is on the edit's ancestor chain and editable.
func (k *linker) checkContextEdit(e entry, ord int32) {
	target, ok := k.checkExists(e, "targetId", "")
	if !ok {
		return
	}
	t := k.nodes[target]
	editable := t.typ == "custom_message" ||
		(t.typ == "message" && (t.role == "user" || t.role == "assistant" || t.role == "toolResult"))
	switch {
	case !k.isAncestor(target, ord):
		k.add(finding.Errorf(finding.ContextEditTarget, e.line, "targetId names line %d, which is not on this edit's ancestor chain", t.line).WithEntry(e.id).WithPointer("/targetId"))
	case !editable:
		k.add(finding.Errorf(finding.ContextEditTarget, e.line, "targetId names a %s on line %d, which cannot be edited (only custom_message and user, assistant, toolResult messages)", describe(t), t.line).WithEntry(e.id).WithPointer("/targetId"))
	}
}

func describe(n node) string {
	if n.role != "" {
		return n.role + " message"
	}
	return n.typ
}

// checkFirstKept: the compaction keeps from itself or one of its ancestors.
func (k *linker) checkFirstKept(e entry, ord int32) {
	if e.linear {
		k.checkFirstKeptIndex(e, ord)
		return
	}
	first, ok := str(e.fields, "firstKeptEntryId")
	if !ok || (e.hasID && first == e.id) {
		return
	}
	if target, found := k.ids[first]; found && k.isAncestor(target, ord) {
		return
	}
	k.add(finding.Warnf(finding.DanglingFirstKept, e.line, "firstKeptEntryId %q is not on this compaction's path: pi keeps nothing from before it", first).WithEntry(e.id).WithPointer("/firstKeptEntryId"))
}

// checkFirstKeptIndex: a version-1 index is a record before or at the
// compaction, and not the header (record 0).
func (k *linker) checkFirstKeptIndex(e entry, ord int32) {
	idx, ok := e.fields["firstKeptEntryIndex"]
	if !ok {
		return
	}
	n, err := asInt(idx)
	record := int64(ord) + 1 // the header is record 0
	if err != nil || n < 1 || n > record {
		k.add(finding.Warnf(finding.DanglingFirstKept, e.line, "firstKeptEntryIndex %v is not an entry at or before this compaction (records 1..%d)", idx, record).WithPointer("/firstKeptEntryIndex"))
	}
}

// finish reports the parent references never resolved.
func (k *linker) finish() {
	ids := make([]string, 0, len(k.pending))
	for id := range k.pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		for _, ref := range k.pending[id] {
			k.add(finding.Errorf(finding.MissingParent, ref.line, "parentId %q names no entry in this file", id).WithEntry(ref.entryID).WithPointer("/parentId"))
		}
	}
}
