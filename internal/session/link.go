package session

// Link is where validate's linkage checks placed an entry in the tree of
// its file, for an observer of the validation pass (audit): ordinals
// count the entries validate links, from 0, in file order.
type Link struct {
	Ord int32 // the entry's ordinal
	// First is the ordinal of the first entry with the entry's id: Ord
	// unless the id is a duplicate; -1 for an entry without an id.
	First int32
	// Parent is the ordinal of the first entry with the id the entry's
	// parentId names, when that entry came before it or is the entry
	// itself (a self-parent); else -1: a root, or a parent read later or
	// never. In a version-1 file it is the entry before.
	Parent int32
}
