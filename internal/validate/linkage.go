package validate

import (
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// node is the compact per-entry record the linkage checks keep: a few
// integers per entry, whatever the entry's size.
type node struct {
	parent int32 // ordinal of the parent entry, -1 for a root
	jump   int32 // skip pointer for logarithmic ancestor queries
	depth  int32
	line   int32
	id     uint32 // the id, when it is pi's 8 hex digits (flagHexID)
	aux    int32  // index into the tool or special tables (or, flagOther, linker.others), -1 for none
	typ    uint8  // session.TypeCode of the type; 0 = none or another (flagOther)
	role   uint8  // session.RoleCode of a message's role; 0 = none or another (flagOther)
	flags  uint8
}

// node flags.
const (
	flagHexID   uint8 = 1 << iota // node.id holds the entry's id
	flagExempt                    // an assistant turn that stopped with aborted/error
	flagMessage                   // the entry projects a message into the context
	flagOther                     // the entry's type, or message role, has no code: aux indexes linker.others
)

// callSite is an assistant entry's tool call. Sites with the same call id
// are chained through prev, newest first; one entry's sites are adjacent.
type callSite struct {
	node int32
	prev int32 // the previous site with the same call id, or -1
	id   textRef
	name textRef // interned
}

// resultRef is the call a toolResult answers.
type resultRef struct {
	id   textRef
	name textRef // interned
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
	nodes    chunks[node]
	ids      idIndex
	calls    map[uint64]int32 // hash of a call id -> newest site
	sites    chunks[callSite]
	results  chunks[resultRef]  // the call each toolResult answers
	texts    texts              // the strings of sites and results
	specials map[int32]*special // compactions and context edits
	seed     maphash.Seed
	others   []string         // the types and roles that have no code (flagOther)
	otherIDs map[string]int32 // the reverse of others
	strs     map[string]textRef
	pending  map[string][]parentRef
	tornIDs  map[string]int // id read from a torn line -> its line
	// forked: the header names a parentSession. pi's
	// createBranchedSession copies a branch_summary as it is, so its
	// fromId may name an entry of the parent session's other branches.
	forked bool
	omp    bool // an oh-my-pi file: its context is built as omp builds it (omp.go)
	add    func(finding.Finding)
	made   func() int // how many findings were made so far (nil: 0)
	// deferred are the tool results looked up once the tree is known.
	deferred []resultQuery
	// toolSteps counts the work of finding the calls the tool results
	// answer, for the test that it stays linear.
	toolSteps int
	appends   appends // interleaved appends (interleave.go)
}

func newLinker(add func(finding.Finding)) *linker {
	return &linker{
		ids:      newIDIndex(),
		calls:    make(map[uint64]int32),
		specials: make(map[int32]*special),
		seed:     maphash.MakeSeed(),
		otherIDs: make(map[string]int32),
		strs:     make(map[string]textRef),
		pending:  make(map[string][]parentRef),
		tornIDs:  make(map[string]int),
		add:      add,
	}
}

// maxOthers bounds the names others keeps; hostile files with thousands
// of made-up types share "(other)".
const maxOthers = 255

// code returns c, the code of an entry's type or message role, and notes
// on n a name that has none: others keeps each such name once.
func (k *linker) code(n *node, c uint8, name string) uint8 {
	if c != 0 || name == "" {
		return c
	}
	i, ok := k.otherIDs[name]
	if !ok {
		i = int32(len(k.others)) // maxOthers once others is full: "(other)"
		if i < maxOthers {
			k.others = append(k.others, strings.Clone(name))
			k.otherIDs[k.others[i]] = i
		}
	}
	n.aux, n.flags = i, n.flags|flagOther
	return 0
}

// typeName returns the type of n's entry.
func (k *linker) typeName(n *node) string { return k.name(n, n.typ == 0, session.TypeName(n.typ)) }

// roleName returns the message role of n's entry, "" if it is no message.
func (k *linker) roleName(n *node) string { return k.name(n, n.typ != 0, session.RoleName(n.role)) }

// name returns known, or, when other says the node's type (or role) is
// the one without a code, the name code kept for it.
func (k *linker) name(n *node, other bool, known string) string {
	switch {
	case !other || n.flags&flagOther == 0:
		return known
	case int(n.aux) < len(k.others):
		return k.others[n.aux]
	}
	return "(other)"
}

// intern keeps s once for every equal string (tool names).
func (k *linker) intern(s string) textRef {
	if kept, ok := k.strs[s]; ok {
		return kept
	}
	ref := k.texts.add(s)
	if len(k.strs) <= 4096 { // hostile input: stop growing the table
		k.strs[k.texts.get(ref)] = ref
	}
	return ref
}

// internString is intern for a string that is kept as a string.
func (k *linker) internString(s string) string { return k.texts.get(k.intern(s)) }

// torn notes the id read from a torn line: pi never loads that entry, so
// an entry after it that names the id names nothing, and the finding says
// where the entry was lost.
func (k *linker) torn(id string, line int) {
	if _, seen := k.tornIDs[id]; !seen && len(k.tornIDs) < 4096 { // hostile input: bounded
		k.tornIDs[strings.Clone(id)] = line
	}
}

// lostIn says where an id that names no entry was lost, when a torn line
// held it ("" otherwise).
func (k *linker) lostIn(id string) string {
	line, ok := k.tornIDs[id]
	if !ok {
		return ""
	}
	return fmt.Sprintf(": that entry was torn on line %d by an interrupted write, and pi skips it", line)
}

// node returns the node of ordinal i.
func (k *linker) node(i int32) *node { return k.nodes.at(i) }

// enter checks one entry against the entries before it, records it, and
// returns where it stands in the tree.
func (k *linker) enter(e entry) session.Link {
	ord := k.nodes.len()
	parent := k.resolveParent(e, ord)
	n := node{parent: parent, jump: -1, aux: -1, line: int32(e.line)}
	n.typ = k.code(&n, session.TypeCode(e.Type), e.Type)
	if parent >= 0 {
		p := k.node(parent)
		n.depth = p.depth + 1
		n.jump = k.jumpFor(parent)
	}
	h, hex := session.HexID(e.ID)
	if hex && e.HasID {
		n.id, n.flags = h, n.flags|flagHexID
	}
	if e.Type == "message" {
		n.role = k.code(&n, session.RoleCode(e.Message.Role), e.Message.Role)
		if stop := e.Message.StopReason; stop == "aborted" || stop == "error" {
			n.flags |= flagExempt
		}
	}
	if projectsMessage(e) {
		n.flags |= flagMessage
	}
	k.nodes.add(n)
	k.appends.enter(ord, parent, e.ID, e.line, k.add)
	k.checkReferences(e, ord) // before register: an entry cannot name itself
	link := session.Link{Ord: ord, First: k.register(e, ord, n), Parent: parent}
	if parent < 0 && e.HasID && e.HasParent && e.ParentID == e.ID {
		link.Parent = link.First // a self-parent names its own id
	}
	k.remember(e, ord)
	return link
}

// resolveParent finds the ordinal of e's parent and reports parent faults.
func (k *linker) resolveParent(e entry, ord int32) int32 {
	if e.linear {
		return ord - 1
	}
	if !e.HasParent {
		return -1
	}
	pid := e.ParentID
	if e.HasID && pid == e.ID {
		k.add(finding.Errorf(finding.SelfParent, e.line, "entry %q is its own parent", e.ID).WithEntry(e.ID).WithPointer("/parentId"))
		return -1
	}
	if p, ok := k.ids.get(pid); ok {
		return p
	}
	pid = strings.Clone(pid)
	k.pending[pid] = append(k.pending[pid], parentRef{line: e.line, entryID: strings.Clone(e.ID)})
	return -1
}

// jumpFor computes the skip pointer of a new child of parent (Myers' jump
// pointers: ancestor queries in O(log depth) with one pointer per node).
func (k *linker) jumpFor(parent int32) int32 {
	p := k.node(parent)
	if p.jump >= 0 {
		j := k.node(p.jump)
		if j.jump >= 0 && p.depth-j.depth == j.depth-k.node(j.jump).depth {
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
	d := k.node(a).depth
	for x >= 0 && k.node(x).depth > d {
		if j := k.node(x).jump; j >= 0 && k.node(j).depth >= d {
			x = j
		} else {
			x = k.node(x).parent
		}
	}
	return x == a
}

// register records e's id (n is its node) and tool calls, and settles
// forward references. It returns the ordinal of the first entry with e's
// id (-1 without one).
func (k *linker) register(e entry, ord int32, n node) int32 {
	first := int32(-1)
	if e.HasID {
		var prev int32
		var dup bool
		if n.flags&flagHexID != 0 {
			prev, dup = k.ids.addHex(n.id, ord)
		} else {
			prev, dup = k.ids.add(e.ID, ord)
		}
		first = ord
		if dup {
			first = prev
			k.add(finding.Errorf(finding.DuplicateID, e.line, "id %q is already used on line %d", e.ID, k.node(prev).line).WithEntry(e.ID).WithPointer("/id"))
		}
		k.settlePending(e)
	}
	if session.RoleName(k.node(ord).role) == "assistant" {
		calls := e.Message.Calls
		if len(calls) > 0 {
			k.node(ord).aux = k.sites.len()
		}
		for _, c := range calls {
			h := maphash.String(k.seed, c.ID)
			prev, seen := k.calls[h]
			if !seen {
				prev = -1
			}
			k.calls[h] = k.sites.len()
			k.sites.add(callSite{node: ord, prev: prev, id: k.texts.add(c.ID), name: k.intern(c.Name)})
		}
	}
	return first
}

// settlePending reports the entries read before e that name it as their
// parent.
func (k *linker) settlePending(e entry) {
	if len(k.pending) == 0 {
		return
	}
	for _, ref := range k.pending[e.ID] {
		k.add(finding.Errorf(finding.ForwardParent, ref.line, "parentId %q names an entry that appears later (line %d)", e.ID, e.line).WithEntry(ref.entryID).WithPointer("/parentId"))
	}
	delete(k.pending, e.ID)
}

// checkReferences checks the references an entry makes to other entries.
func (k *linker) checkReferences(e entry, ord int32) {
	switch e.Type {
	case "message":
		if session.RoleName(k.node(ord).role) == "toolResult" {
			k.checkToolResult(e, ord)
		}
	case "label":
		k.checkExists(e, "targetId", e.TargetID, e.HasTargetID, "")
	case "branch_summary":
		if _, found := k.ids.get(e.FromID); k.forked && e.HasFromID && !found {
			return // in the parent session (see forked)
		}
		k.checkExists(e, "fromId", e.FromID, e.HasFromID, "root")
	case "context_edit":
		k.checkContextEdit(e, ord)
	case "compaction":
		k.checkFirstKept(e, ord)
	}
}

// checkToolResult: a result answers a call on its ancestor chain, by name.
// The newest calls with its id are tried first (the call is most often
// the result's parent); past toolWalk of them the result is looked up
// once the tree is known (resolveResults): walking every call with an id
// that many branches reuse, for every result, took quadratic time.
func (k *linker) checkToolResult(e entry, ord int32) {
	callID, ok := e.Message.ToolCallID, e.Message.HasToolCallID
	if !ok {
		return // the schema reports it
	}
	site, seen := k.calls[maphash.String(k.seed, callID)]
	if !seen {
		site = -1
	}
	for steps := 0; site >= 0; site = k.sites.at(site).prev {
		if steps++; steps > toolWalk {
			k.deferResult(e, ord)
			return
		}
		k.toolSteps++
		if k.isAncestor(k.sites.at(site).node, ord) {
			break
		}
	}
	if f, bad := k.toolFinding(int(k.node(ord).line), e.ID, callID, e.Message.ToolName, e.linear, site); bad {
		k.add(f)
	}
}

// toolWalk is how many calls with its id a result tries as it is read.
const toolWalk = 32

// toolFinding is the finding of a result that answers the call at site
// (-1: none on its ancestor chain), if any.
func (k *linker) toolFinding(line int, entryID, callID, name string, linear bool, site int32) (finding.Finding, bool) {
	if site >= 0 {
		c := k.sites.at(site)
		if callName := k.texts.get(c.name); callName != name {
			return finding.Errorf(finding.ToolNameMismatch, line, "toolName %q differs from the call's name %q (line %d)", name, callName, k.node(c.node).line).WithEntry(entryID).WithPointer("/message/toolName"), true
		}
		return finding.Finding{}, false
	}
	where := "on its ancestor chain"
	if linear {
		where = "earlier in the file"
	}
	return finding.Errorf(finding.OrphanToolResult, line, "toolResult answers call %q, but no toolCall with that id is %s", callID, where).WithEntry(entryID).WithPointer("/message/toolCallId"), true
}

// checkExists: the entry named by key (its value target, when ok) exists
// earlier in the file.
func (k *linker) checkExists(e entry, key, target string, ok bool, allowed string) (int32, bool) {
	if !ok || (allowed != "" && target == allowed) {
		return -1, false
	}
	ord, found := k.ids.get(target)
	if !found {
		k.add(finding.Errorf(finding.DanglingReference, e.line, "%s %q names no earlier entry%s", key, target, k.lostIn(target)).WithEntry(e.ID).WithPointer("/" + key))
		return -1, false
	}
	return ord, true
}

// checkContextEdit: the target is on the edit's ancestor chain and editable.
func (k *linker) checkContextEdit(e entry, ord int32) {
	target, ok := k.checkExists(e, "targetId", e.TargetID, e.HasTargetID, "")
	if !ok {
		return
	}
	t := *k.node(target)
	switch {
	case !k.isAncestor(target, ord):
		k.add(finding.Errorf(finding.ContextEditTarget, e.line, "targetId names line %d, which is not on this edit's ancestor chain", t.line).WithEntry(e.ID).WithPointer("/targetId"))
	case !session.Editable(k.typeName(&t), k.roleName(&t)):
		k.add(finding.Errorf(finding.ContextEditTarget, e.line, "targetId names a %s on line %d, which cannot be edited (only custom_message entries and user, assistant, toolResult and custom messages)", k.describe(&t), t.line).WithEntry(e.ID).WithPointer("/targetId"))
	}
}

func (k *linker) describe(n *node) string {
	if role := k.roleName(n); role != "" {
		return role + " message"
	}
	return k.typeName(n)
}

// checkFirstKept: the compaction keeps from itself or one of its ancestors.
func (k *linker) checkFirstKept(e entry, ord int32) {
	if e.linear {
		k.checkFirstKeptIndex(e, ord)
		return
	}
	first, ok := e.FirstKeptID, e.HasFirstKeptID
	if !ok || (e.HasID && first == e.ID) {
		return
	}
	if target, found := k.ids.get(first); found && k.isAncestor(target, ord) {
		return
	}
	k.add(finding.Warnf(finding.DanglingFirstKept, e.line, "firstKeptEntryId %q is not on this compaction's path: pi keeps nothing from before it%s", first, k.lostIn(first)).WithEntry(e.ID).WithPointer("/firstKeptEntryId"))
}

// checkFirstKeptIndex: a version-1 index is a record before or at the
// compaction, and not the header (record 0).
func (k *linker) checkFirstKeptIndex(e entry, ord int32) {
	idx := e.FirstKeptIndex
	if !idx.Present {
		return
	}
	record := int64(ord) + 1 // the header is record 0
	if !idx.IsInt || idx.N < 1 || idx.N > record {
		k.add(finding.Warnf(finding.DanglingFirstKept, e.line, "firstKeptEntryIndex %s is not an entry at or before this compaction (records 1..%d)", idx.Text, record).WithPointer("/firstKeptEntryIndex"))
	}
}

// finish reports the parent references never resolved, and interleaved
// appends.
func (k *linker) finish() {
	k.appends.finish(k.add)
	for _, id := range slices.Sorted(maps.Keys(k.pending)) {
		for _, ref := range k.pending[id] {
			if lost := k.lostIn(id); lost != "" {
				k.add(finding.Errorf(finding.MissingParent, ref.line, "parentId %q names an entry pi never loads%s; this entry and its descendants are cut off from the tree", id, lost).WithEntry(ref.entryID).WithPointer("/parentId"))
				continue
			}
			k.add(finding.Errorf(finding.MissingParent, ref.line, "parentId %q names no entry in this file", id).WithEntry(ref.entryID).WithPointer("/parentId"))
		}
	}
}
