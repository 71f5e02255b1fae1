package project

import "fmt"

// UnknownEntryError is returned for a leaf id that names no entry.
type UnknownEntryError struct{ ID string }

func (e *UnknownEntryError) Error() string { return fmt.Sprintf("no entry has id %q", e.ID) }

// CycleError is returned when following parentId from a leaf comes back to
// an entry already visited. pi itself loops forever on such a file.
type CycleError struct {
	Leaf string // the leaf the walk started from
	ID   string // the first entry reached twice
	Line int    // its physical line
}

func (e *CycleError) Error() string {
	return fmt.Sprintf("a parentId cycle: walking up from %q reaches %q (line %d) twice", e.Leaf, e.ID, e.Line)
}

// DefaultLeaf returns the last entry in file order, or nil when the session
// has no entries.
func (s *Session) DefaultLeaf() *Entry {
	if len(s.Entries) == 0 {
		return nil
	}
	return s.Entries[len(s.Entries)-1]
}

// Lookup returns the entry with the given id (the last one, if the id is
// duplicated, as pi's index does).
func (s *Session) Lookup(id string) (*Entry, bool) {
	s.lookup.Do(func() {
		if s.byID == nil {
			s.byID = tableOf(s.Entries)
		}
	})
	i := s.byID.get(s.Entries, id)
	if i < 0 || id == "" {
		return nil, false
	}
	return s.Entries[i], true
}

// Leaf resolves a --leaf argument: "" is the default leaf (nil for a session
// without entries); any other id must name an entry.
func (s *Session) Leaf(id string) (*Entry, error) {
	if id == "" {
		return s.DefaultLeaf(), nil
	}
	e, ok := s.Lookup(id)
	if !ok {
		return nil, &UnknownEntryError{ID: id}
	}
	return e, nil
}

// Parent returns e's parent entry, or nil for a root (parentId null,
// absent, or naming no entry).
func (s *Session) Parent(e *Entry) *Entry {
	if p := e.parent; p >= 0 {
		return s.Entries[p]
	}
	return nil
}

// Path returns the entries from the root down to leaf (nil leaf: empty
// path). It walks iteratively and returns a *CycleError instead of looping
// when the parent links form a cycle.
func (s *Session) Path(leaf *Entry) ([]*Entry, error) {
	if leaf == nil {
		return nil, nil
	}
	depth := 0 // counted first: a path can hold every entry of the session
	for i := leaf.Index; i >= 0; i = int(s.Entries[i].parent) {
		if depth == len(s.Entries) {
			return nil, s.cycleError(leaf)
		}
		depth++
	}
	path := make([]*Entry, depth)
	for i := leaf.Index; i >= 0; i = int(s.Entries[i].parent) {
		depth--
		path[depth] = s.Entries[i]
	}
	return path, nil
}

// cycleError finds the first entry that walking up from leaf reaches
// twice (there is one: the walk took more steps than there are entries).
func (s *Session) cycleError(leaf *Entry) error {
	seen := make([]bool, len(s.Entries))
	i := leaf.Index
	for !seen[i] {
		seen[i] = true
		i = int(s.Entries[i].parent)
	}
	e := s.Entries[i]
	return &CycleError{Leaf: leaf.ID(), ID: e.ID(), Line: e.Line}
}

// Leaves returns the entries that no entry names as its parent, in file
// order.
func (s *Session) Leaves() []*Entry {
	hasChild := make([]bool, len(s.Entries))
	for _, e := range s.Entries {
		if e.parent >= 0 {
			hasChild[e.parent] = true
		}
	}
	var leaves []*Entry
	for i, e := range s.Entries {
		if !hasChild[i] {
			leaves = append(leaves, e)
		}
	}
	return leaves
}

// Label returns the resolved label of the entry with the given id: the
// latest label entry for it in file order, unless that one cleared it.
// An entry without an id has no label.
func (s *Session) Label(id string) (string, bool) {
	if id == "" {
		return "", false
	}
	l, ok := s.labels[id]
	return l, ok
}

// ChildCounts returns how many entries name each entry as their parent,
// by entry index (an entry that names itself is a root, not its own child).
func (s *Session) ChildCounts() []int {
	n := make([]int, len(s.Entries))
	for i, e := range s.Entries {
		if p := int(e.parent); p >= 0 && p != i {
			n[p]++
		}
	}
	return n
}
