package validate

import (
	"hash/maphash"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// resultQuery is a toolResult whose call is looked up once the tree is
// known (checkToolResult).
type resultQuery struct {
	ord    int32
	pos    int     // the findings made before it: its own go there
	id     textRef // the call id
	name   textRef // the toolName
	entry  textRef // the result's entry id
	linear bool
}

// placedFinding is a finding made late that goes where pos findings were
// made before it (the findings placed before it not counted).
type placedFinding struct {
	pos int
	f   finding.Finding
}

// deferResult keeps the result of entry e for resolveResults.
func (k *linker) deferResult(e entry, ord int32) {
	pos := 0
	if k.made != nil {
		pos = k.made()
	}
	k.deferred = append(k.deferred, resultQuery{ord: ord, pos: pos, id: k.texts.add(e.Message.ToolCallID),
		name: k.intern(e.Message.ToolName), entry: k.texts.add(e.ID), linear: e.linear})
}

// resolveResults answers the deferred results in one walk of the tree
// (depth first, a stack of the calls on the path per call id: a result
// answers the newest call with its id on its ancestor chain, the one on
// top) and returns their findings in file order.
func (k *linker) resolveResults() []placedFinding {
	if len(k.deferred) == 0 {
		return nil
	}
	answers := k.walkResults()
	var placed []placedFinding
	for i, q := range k.deferred {
		f, bad := k.toolFinding(int(k.node(q.ord).line), k.texts.get(q.entry), k.texts.get(q.id), k.texts.get(q.name), q.linear, answers[i])
		if bad {
			placed = append(placed, placedFinding{pos: q.pos, f: f})
		}
	}
	k.deferred = nil
	return placed
}

// walkResults returns, per deferred result, the site of the call it
// answers, or -1.
func (k *linker) walkResults() []int32 {
	answers := make([]int32, len(k.deferred))
	queryAt := make(map[int32]int, len(k.deferred))
	stacks := make(map[uint64][]int32)
	for i, q := range k.deferred {
		answers[i] = -1
		queryAt[q.ord] = i
		stacks[maphash.String(k.seed, k.texts.get(q.id))] = nil // the ids asked for
	}
	first, kids := k.children()
	type frame struct{ ord, next int32 }
	var path []frame
	for root := int32(0); root < k.nodes.len(); root++ {
		if k.node(root).parent >= 0 {
			continue
		}
		path = append(path, frame{root, first[root]})
		k.enterSites(root, stacks, true)
		for len(path) > 0 {
			top := &path[len(path)-1]
			k.toolSteps++
			if i, ok := queryAt[top.ord]; ok && top.next == first[top.ord] {
				if s := stacks[maphash.String(k.seed, k.texts.get(k.deferred[i].id))]; len(s) > 0 {
					answers[i] = s[len(s)-1]
				}
			}
			if top.next == first[top.ord+1] {
				k.enterSites(top.ord, stacks, false)
				path = path[:len(path)-1]
				continue
			}
			child := kids[top.next]
			top.next++
			path = append(path, frame{child, first[child]})
			k.enterSites(child, stacks, true)
		}
	}
	return answers
}

// children returns the children of every node: those of node i are
// kids[first[i]:first[i+1]], in file order.
func (k *linker) children() (first, kids []int32) {
	n := k.nodes.len()
	first = make([]int32, n+1)
	for i := range n {
		if p := k.node(i).parent; p >= 0 {
			first[p+1]++
		}
	}
	for i := range n {
		first[i+1] += first[i]
	}
	kids = make([]int32, first[n])
	fill := make([]int32, n)
	copy(fill, first[:n])
	for i := range n {
		if p := k.node(i).parent; p >= 0 {
			kids[fill[p]] = i
			fill[p]++
		}
	}
	return first, kids
}

// enterSites pushes (or, leaving the node, pops) the calls of node ord
// whose ids were asked for, in call order: the newest is on top.
func (k *linker) enterSites(ord int32, stacks map[uint64][]int32, enter bool) {
	n := k.node(ord)
	if n.aux < 0 || session.RoleName(n.role) != "assistant" {
		return
	}
	for s := n.aux; s < k.sites.len() && k.sites.at(s).node == ord; s++ {
		h := maphash.String(k.seed, k.texts.get(k.sites.at(s).id))
		stack, asked := stacks[h]
		switch {
		case !asked:
		case enter:
			stacks[h] = append(stack, s)
		default:
			stacks[h] = stack[:len(stack)-1]
		}
	}
}
