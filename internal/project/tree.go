package project

import "sort"

// Tree is pi's getTree view of a session, over the index: entries are
// named by their index in Session.Entries, and the children of every entry
// lie in one shared array, so a tree costs 8 bytes an entry whatever the
// entries hold. Labels are the session's (Session.Label).
type Tree struct {
	// Roots are the entries whose parentId is null, absent, names no entry
	// or names the entry itself, in file order.
	Roots []int32
	// Detached are the entries no root reaches: they sit on a parentId cycle
	// or below one. pi's getTree drops them silently; we list them.
	Detached []*Entry

	kids  []int32 // the children of every entry, one run per entry
	start []int32 // entry i's children are kids[start[i]:start[i+1]]
}

// Children returns the children of entry i, sorted by entry timestamp,
// oldest first (stable), as pi sorts them. The slice is the tree's.
func (t *Tree) Children(i int) []int32 { return t.kids[t.start[i]:t.start[i+1]] }

// Tree builds the tree without recursion, so arbitrarily deep chains are
// safe.
func (s *Session) Tree() *Tree {
	n := len(s.Entries)
	t := &Tree{kids: make([]int32, n), start: make([]int32, n+1)}
	for i, e := range s.Entries {
		if p := int(e.parent); p >= 0 && p != i {
			t.start[p+1]++
		}
	}
	for i := range n {
		t.start[i+1] += t.start[i]
	}
	fill := append([]int32(nil), t.start[:n]...) // next free slot of each entry's run
	for i, e := range s.Entries {
		if p := int(e.parent); p < 0 || p == i {
			t.Roots = append(t.Roots, int32(i))
		} else {
			t.kids[fill[p]] = int32(i)
			fill[p]++
		}
	}
	reached := make([]bool, n)
	t.Walk(func(i, _ int) {
		reached[i] = true
		s.sortByTimestamp(t.Children(i))
	})
	for i, e := range s.Entries {
		if !reached[i] {
			t.Detached = append(t.Detached, e)
		}
	}
	return t
}

// Walk visits every entry reachable from the roots in depth-first
// pre-order (each entry before its children, children in order),
// iteratively. depth is 0 for a root.
func (t *Tree) Walk(visit func(i, depth int)) {
	type frame struct{ i, depth int32 }
	stack := make([]frame, 0, len(t.Roots))
	for i := len(t.Roots) - 1; i >= 0; i-- {
		stack = append(stack, frame{t.Roots[i], 0})
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visit(int(f.i), int(f.depth))
		kids := t.Children(int(f.i))
		for k := len(kids) - 1; k >= 0; k-- {
			stack = append(stack, frame{kids[k], f.depth + 1})
		}
	}
}

// sortByTimestamp orders siblings by their entry time as pi does
// (new Date(timestamp).getTime(), a stable sort). A timestamp JavaScript
// cannot parse compares equal to everything, as NaN does in pi's comparator.
func (s *Session) sortByTimestamp(kids []int32) {
	if len(kids) < 2 {
		return
	}
	sort.SliceStable(kids, func(a, b int) bool {
		ea, eb := s.Entries[kids[a]], s.Entries[kids[b]]
		return ea.timeOK && eb.timeOK && ea.millis < eb.millis
	})
}
