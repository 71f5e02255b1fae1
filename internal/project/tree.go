package project

import "sort"

// Node is one entry in the tree.
type Node struct {
	Entry    *Entry
	Label    string // resolved label ("" when none)
	HasLabel bool
	Children []*Node // sorted by entry timestamp, oldest first (stable)
}

// Tree is pi's getTree view of a session.
type Tree struct {
	// Roots are the entries whose parentId is null, absent, names no entry
	// or names the entry itself, in file order.
	Roots []*Node
	// Detached are the entries no root reaches: they sit on a parentId cycle
	// or below one. pi's getTree drops them silently; we list them.
	Detached []*Entry
}

// Tree builds the tree without recursion, so arbitrarily deep chains are
// safe.
func (s *Session) Tree() *Tree {
	nodes := make([]Node, len(s.Entries))
	t := &Tree{}
	// The children of all nodes share one array, each node a slice of it
	// (capacity capped, so an append never spills into the next node's).
	counts := s.ChildCounts()
	all := make([]*Node, len(s.Entries))
	next := 0
	for i := range nodes {
		nodes[i].Children = all[next : next : next+counts[i]]
		next += counts[i]
	}
	for i, e := range s.Entries {
		n := &nodes[i]
		n.Entry = e
		if e.ID != "" {
			n.Label, n.HasLabel = s.labels[e.ID]
		}
		if p := int(e.parent); p < 0 || p == i {
			t.Roots = append(t.Roots, n)
		} else {
			nodes[p].Children = append(nodes[p].Children, n)
		}
	}
	reached := make([]bool, len(nodes))
	t.Walk(func(n *Node, _ int) {
		reached[n.Entry.Index] = true
		sortByTimestamp(n.Children)
	})
	for i, e := range s.Entries {
		if !reached[i] {
			t.Detached = append(t.Detached, e)
		}
	}
	return t
}

// Walk visits every node reachable from the roots in depth-first pre-order
// (each node before its children, children in order), iteratively. depth is
// 0 for a root.
func (t *Tree) Walk(visit func(n *Node, depth int)) {
	type frame struct {
		n     *Node
		depth int
	}
	stack := make([]frame, 0, len(t.Roots))
	for i := len(t.Roots) - 1; i >= 0; i-- {
		stack = append(stack, frame{t.Roots[i], 0})
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visit(f.n, f.depth)
		for i := len(f.n.Children) - 1; i >= 0; i-- {
			stack = append(stack, frame{f.n.Children[i], f.depth + 1})
		}
	}
}

// sortByTimestamp orders siblings by their entry time as pi does
// (new Date(timestamp).getTime(), a stable sort). A timestamp JavaScript
// cannot parse compares equal to everything, as NaN does in pi's comparator.
func sortByTimestamp(nodes []*Node) {
	if len(nodes) < 2 {
		return
	}
	sort.SliceStable(nodes, func(a, b int) bool {
		ea, eb := nodes[a].Entry, nodes[b].Entry
		return ea.timeOK && eb.timeOK && ea.millis < eb.millis
	})
}
