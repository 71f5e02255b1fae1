package audit

import (
	"path/filepath"
	"slices"
	"strings"
)

// lineages groups the records into lineages: a fork or clone is linked to
// the audited file its header's parentSession (or branchedFrom) names, and
// snapshot copies of one session (files whose headers carry the same
// session id) are linked to each other. A parent's name is only compared,
// never opened: first as an absolute path, then by base name, then by the
// session id in a pi file name (<time>_<sessionId>.jsonl) or a header; a
// fallback that matches more than one other file links nothing, unless
// those files are snapshots of one session (a backup copy of the
// directory). It returns each record's lineage root.
func lineages(recs []*Record) []int {
	idx := newPathIndex(recs)
	u := newUnion(len(recs))
	snapshot := map[string]int{} // header session id → first file with it
	for i, r := range recs {
		for _, p := range r.parents {
			if j := idx.resolve(p, i); j >= 0 {
				u.join(i, j)
			}
		}
		if r.SessionID == "" {
			continue
		}
		if j, ok := snapshot[r.SessionID]; ok {
			u.join(i, j)
		} else {
			snapshot[r.SessionID] = i
		}
	}
	roots := make([]int, len(recs))
	for i := range recs {
		roots[i] = u.find(i)
	}
	return roots
}

// pathIndex finds audited files by the names a header may use for them.
type pathIndex struct {
	abs  map[string]int
	base map[string][]int
	sid  map[string][]int
	ids  []string // each file's header session id
}

func newPathIndex(recs []*Record) *pathIndex {
	x := &pathIndex{abs: map[string]int{}, base: map[string][]int{}, sid: map[string][]int{}, ids: make([]string, len(recs))}
	for i, r := range recs {
		x.ids[i] = r.SessionID
		if a, err := filepath.Abs(r.Path); err == nil {
			x.abs[a] = i
		}
		b := baseName(r.Path)
		x.base[b] = append(x.base[b], i)
		for _, id := range slices.Compact([]string{sessionIDFromName(b), r.SessionID}) {
			if id != "" {
				x.sid[id] = append(x.sid[id], i)
			}
		}
	}
	return x
}

// resolve returns the file that p names, other than self, or -1.
func (x *pathIndex) resolve(p string, self int) int {
	if filepath.IsAbs(p) {
		if j, ok := x.abs[filepath.Clean(p)]; ok && j != self {
			return j
		}
	}
	b := baseName(p)
	if j := x.only(x.base[b], self); j >= 0 {
		return j
	}
	if id := sessionIDFromName(b); id != "" {
		return x.only(x.sid[id], self)
	}
	return -1
}

// only returns the one file in is other than self, or -1. Snapshots of
// one session (the same header id) are one lineage already, so any of them
// will do: it returns the first.
func (x *pathIndex) only(is []int, self int) int {
	found := -1
	for _, i := range is {
		switch {
		case i == self:
		case found < 0:
			found = i
		case x.ids[i] == "" || x.ids[i] != x.ids[found]:
			return -1
		}
	}
	return found
}

// baseName is the last element of a path written with / or \ separators
// (a header may carry a Windows path).
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// sessionIDFromName is the session id in a pi file name
// <time>_<sessionId>.jsonl, or "".
func sessionIDFromName(base string) string {
	stem, ok := strings.CutSuffix(base, ".jsonl")
	if i := strings.LastIndexByte(stem, '_'); ok && i >= 0 {
		return stem[i+1:]
	}
	return ""
}

// union is a union-find over record indexes.
type union struct{ parent []int }

func newUnion(n int) *union {
	u := &union{parent: make([]int, n)}
	for i := range u.parent {
		u.parent[i] = i
	}
	return u
}

func (u *union) find(i int) int {
	for u.parent[i] != i {
		u.parent[i] = u.parent[u.parent[i]]
		i = u.parent[i]
	}
	return i
}

// join merges two sets; the lower index becomes the root.
func (u *union) join(a, b int) {
	ra, rb := u.find(a), u.find(b)
	switch {
	case ra < rb:
		u.parent[rb] = ra
	case rb < ra:
		u.parent[ra] = rb
	}
}
