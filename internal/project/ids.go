package project

import "hash/maphash"

// idTable finds entries by id: an open-addressing hash table of entry
// indices (8 bytes a slot, at most three quarters full), the entries themselves
// holding the ids. A slot holds the top half of its id's hash beside the
// index, so that a probe reads an entry only when that matches, and a
// probe costs one cache miss. A map[string]int would cost several times
// as much for a session of a few hundred thousand entries.
type idTable struct {
	seed  maphash.Seed
	slots []uint64 // the hash's top 32 bits, then entry index + 1; 0 is empty
	n     int
}

func newIDTable() *idTable {
	return &idTable{seed: maphash.MakeSeed(), slots: make([]uint64, 1024)}
}

// put records entry i under its id; a later entry with the same id
// replaces the earlier one (pi's byId keeps the last), and put reports
// that it did. Entries are put in index order.
func (t *idTable) put(entries []*Entry, i int) (replaced bool) {
	return t.putHashed(entries, i, t.hash(entries[i].ID()))
}

// putHashed is put with the hash of the entry's id.
func (t *idTable) putHashed(entries []*Entry, i int, h uint64) (replaced bool) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow(entries[:i])
	}
	id := entries[i].ID()
	k, tag := t.slot(h)
	for ; ; k = (k + 1) & (len(t.slots) - 1) {
		switch s := t.slots[k]; {
		case s == 0:
			t.slots[k] = tag | uint64(i+1)
			t.n++
			return false
		case s&^0xffffffff == tag && entries[uint32(s)-1].ID() == id:
			t.slots[k] = tag | uint64(i+1)
			return true
		}
	}
}

// get returns the index of the last entry with id, or -1.
func (t *idTable) get(entries []*Entry, id string) int {
	return t.getHashed(entries, id, t.hash(id))
}

// getHashed is get with the hash of id.
func (t *idTable) getHashed(entries []*Entry, id string, h uint64) int {
	k, tag := t.slot(h)
	for ; ; k = (k + 1) & (len(t.slots) - 1) {
		switch s := t.slots[k]; {
		case s == 0:
			return -1
		case s&^0xffffffff == tag && entries[uint32(s)-1].ID() == id:
			return int(uint32(s) - 1)
		}
	}
}

// hash is the hash of id the table works with.
func (t *idTable) hash(id string) uint64 { return maphash.String(t.seed, id) }

// slot returns the first slot to probe for an id of hash h, and its tag
// (the hash's top half, in place).
func (t *idTable) slot(h uint64) (int, uint64) {
	return int(h & uint64(len(t.slots)-1)), h &^ 0xffffffff
}

// grow doubles the table and puts back every entry put so far: the
// entries in index order (they lie in memory in that order), so the last
// of each id wins again.
func (t *idTable) grow(entries []*Entry) { t.resize(entries, 2*len(t.slots)) }

// reserve makes room for about n ids at once, so that a large session's
// table is not rebuilt at every doubling on the way.
func (t *idTable) reserve(entries []*Entry, n int) {
	if size := slotsFor(n, len(t.slots)); size > len(t.slots) {
		t.resize(entries, size)
	}
}

// slotsFor is the number of slots, a power of two and at least size, that
// holds n ids.
func slotsFor(n, size int) int {
	for 3*size < 4*n {
		size *= 2
	}
	return size
}

// tableOf is the table of entries (after the index, for Lookup).
func tableOf(entries []*Entry) *idTable {
	t := newIDTable()
	t.resize(entries, slotsFor(len(entries), len(t.slots)))
	return t
}

// resize makes the table n slots (a power of two) and puts back every
// entry.
func (t *idTable) resize(entries []*Entry, n int) {
	t.slots, t.n = make([]uint64, n), 0
	for i, e := range entries {
		if e.ID() != "" {
			t.put(entries, i)
		}
	}
}
