package fix

import (
	"io"
	"slices"
	"strings"

	"github.com/pisess/pisess/internal/session"
)

// dropPlan is what slim --rewrite --drop-custom drops: the custom entries
// of the given customTypes that a later entry of the same type supersedes
// on every branch through them, and where their children go.
//
// A custom entry C of type T is dropped when every path from C down to a
// leaf meets another custom entry of type T: the last one on each branch
// stays (an extension reads the last of its type on the branch it
// resumes). A dropped entry's children are re-parented to its nearest
// ancestor that stays (null at the root). An entry something else names
// stays: the target of a label (the user's bookmark; pi would keep the
// label of a missing entry but show it nowhere, and validate calls it a
// dangling_reference), a branch summary's fromId, a compaction's
// firstKeptEntryId (pi keeps nothing before the compaction when that id is
// not on the path). A context_edit cannot target a custom entry (pi's
// context_edit_target, refused before this). custom entries add no message
// to pi's context and are never a leaf when dropped, so the context at
// every leaf is what it was.
type dropPlan struct {
	ids     []string // entry index → id
	dropped []bool
	parent  []int32 // entry index → the new parent's index (-1: null); only read for entries whose parent is dropped
	moved   []bool  // the entry's parent is dropped: its parentId is rewritten
	count   int
}

// scanned entry of the drop pass.
type dropEntry struct {
	parent int32 // -1: none
	ctype  int   // index+1 of its customType among the types to drop; 0: not such a custom entry
}

// planDrops reads the entries of the session in (header first, valid,
// version 3: checked before) and plans the drops for types.
func planDrops(in io.Reader, limits session.Limits, types []string) (*dropPlan, error) {
	rd := session.NewReader(in, limits)
	rd.DeferClassify()
	var t session.Tape
	var cls session.Classifier
	index := map[string]int32{}
	var entries []dropEntry
	var ids []string
	var refs []string
	header := true
	for rd.Next() {
		if _, ok := objectLine(&t, &cls, rd.Line()); !ok {
			continue
		}
		if header {
			header = false
			continue
		}
		id := strings.Clone(t.StrOf(0, "id"))
		e := dropEntry{parent: -1}
		if p, ok := t.Str(t.Get(0, "parentId")); ok {
			if i, known := index[p]; known {
				e.parent = i
			}
		}
		switch t.StrOf(0, "type") {
		case "custom":
			e.ctype = slices.Index(types, t.StrOf(0, "customType")) + 1
		case "label":
			refs = append(refs, strings.Clone(t.StrOf(0, "targetId")))
		case "branch_summary":
			refs = append(refs, strings.Clone(t.StrOf(0, "fromId")))
		case "compaction":
			refs = append(refs, strings.Clone(t.StrOf(0, "firstKeptEntryId")))
		}
		index[id] = int32(len(entries))
		entries = append(entries, e)
		ids = append(ids, id)
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	pinned := make([]bool, len(entries))
	for _, r := range refs {
		if i, ok := index[r]; ok {
			pinned[i] = true
		}
	}
	p := &dropPlan{ids: ids, dropped: make([]bool, len(entries)), parent: make([]int32, len(entries)), moved: make([]bool, len(entries))}
	for k := range types {
		p.markSuperseded(entries, pinned, k+1)
	}
	p.reparent(entries)
	return p, nil
}

// markSuperseded marks the custom entries of type ctype that every branch
// through them supersedes: covered(n) is n being of the type, or n having
// children that are all covered; an entry of the type whose children are
// all covered is dropped. Parents come before their children in the file
// (a forward parent is refused), so one backward sweep settles it.
func (p *dropPlan) markSuperseded(entries []dropEntry, pinned []bool, ctype int) {
	hasChild := make([]bool, len(entries))
	allCovered := make([]bool, len(entries))
	for i := range allCovered {
		allCovered[i] = true
	}
	for n := len(entries) - 1; n >= 0; n-- {
		e := entries[n]
		if e.ctype == ctype && hasChild[n] && allCovered[n] && !pinned[n] {
			p.dropped[n] = true
			p.count++
		}
		covered := e.ctype == ctype || hasChild[n] && allCovered[n]
		if e.parent >= 0 {
			hasChild[e.parent] = true
			allCovered[e.parent] = allCovered[e.parent] && covered
		}
	}
}

// reparent gives each entry whose parent is dropped its nearest ancestor
// that stays.
func (p *dropPlan) reparent(entries []dropEntry) {
	for n, e := range entries {
		up := e.parent
		if up >= 0 && p.dropped[up] {
			p.moved[n] = true
			up = p.parent[up] // settled: the parent comes first
		}
		p.parent[n] = up
	}
}

// newParent is entry n's parentId as JSON, when it changes.
func (p *dropPlan) newParent(n int) ([]byte, bool) {
	if p == nil || n >= len(p.moved) || !p.moved[n] {
		return nil, false
	}
	if up := p.parent[n]; up >= 0 {
		return jsonString(p.ids[up]), true
	}
	return []byte("null"), true
}

func (p *dropPlan) drops(n int) bool { return p != nil && n < len(p.dropped) && p.dropped[n] }
