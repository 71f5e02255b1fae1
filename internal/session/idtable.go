package session

// IDTable maps entry ids to ordinals for validate's linker and project's
// index: open addressing, 8 bytes a slot (a 32-bit key in the top half,
// the ordinal + 1 in the bottom; 0 is empty), at most three quarters
// full, so that a probe costs one cache miss. A Go map of the ids cost a
// hash and several memory reads a lookup, two or three lookups an entry
// (issue 28). The key is the id itself when it is pi's 8 hex digits
// (HexID: exact, validate) or 32 bits of its hash (a tag: the caller
// confirms a match against its entries, project).
type IDTable struct {
	slots []uint64
	n     int
}

// NewIDTable returns a table of size slots, a power of two.
func NewIDTable(size int) IDTable { return IDTable{slots: make([]uint64, size)} }

// Same confirms that the entry of an ordinal found under a key has the id
// looked for; nil when the keys are exact.
type Same func(ord int32) bool

// Slot returns the first slot to probe for key: its bits mixed, so that
// made-up ids (00000001, 00000002...) spread as pi's random ones do.
func (t *IDTable) Slot(key uint32) int {
	return int((uint64(key)*0x9e3779b97f4a7c15)>>32) & (len(t.slots) - 1)
}

// Warm reads the first slot of key (and returns it, for the caller to keep
// the read): a batch's reads made all at once overlap their cache misses.
func (t *IDTable) Warm(key uint32) uint64 { return t.slots[t.Slot(key)] }

// Get returns the ordinal under key that same confirms.
func (t *IDTable) Get(key uint32, same Same) (int32, bool) {
	_, ord, found := t.find(key, same)
	return ord, found
}

// Add puts ord under key unless an ordinal that same confirms is there
// already; then it returns that one and true (the first wins).
func (t *IDTable) Add(key uint32, ord int32, same Same) (int32, bool) {
	t.reserveOne()
	k, prev, found := t.find(key, same)
	if found {
		return prev, true
	}
	t.slots[k] = uint64(key)<<32 | uint64(uint32(ord+1))
	t.n++
	return -1, false
}

// Put puts ord under key, in place of an ordinal that same confirms (the
// last wins), and reports whether it replaced one.
func (t *IDTable) Put(key uint32, ord int32, same Same) (replaced bool) {
	t.reserveOne()
	k, _, found := t.find(key, same)
	if !found {
		t.n++
	}
	t.slots[k] = uint64(key)<<32 | uint64(uint32(ord+1))
	return found
}

// find probes for key: the slot and ordinal that same confirms, or the
// empty slot the key would take.
func (t *IDTable) find(key uint32, same Same) (int, int32, bool) {
	mask := len(t.slots) - 1
	for k := t.Slot(key); ; k = (k + 1) & mask {
		switch s := t.slots[k]; {
		case s == 0:
			return k, -1, false
		case uint32(s>>32) == key:
			if ord := int32(uint32(s)) - 1; same == nil || same(ord) {
				return k, ord, true
			}
		}
	}
}

// Reserve makes room for about n keys at once, so that a large session's
// table is not rebuilt at every doubling on the way.
func (t *IDTable) Reserve(n int) {
	size := len(t.slots)
	for 3*size < 4*n {
		size *= 2
	}
	if size > len(t.slots) {
		t.resize(size)
	}
}

func (t *IDTable) reserveOne() {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.resize(2 * len(t.slots))
	}
}

// resize makes the table size slots and puts back every key, in slot
// order: a key's ordinals keep their order along its probe run.
func (t *IDTable) resize(size int) {
	old := t.slots
	t.slots = make([]uint64, size)
	mask := size - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		k := t.Slot(uint32(s >> 32))
		for t.slots[k] != 0 {
			k = (k + 1) & mask
		}
		t.slots[k] = s
	}
}

// Len returns the number of keys put, Slots the table's size.
func (t *IDTable) Len() int   { return t.n }
func (t *IDTable) Slots() int { return len(t.slots) }
