package project

import "hash/maphash"

// idTable finds entries by id: an open-addressing hash table of entry
// indices (4 bytes a slot, at most half full), the entries themselves
// holding the ids. A map[string]int would cost ten times as much for a
// session of a few hundred thousand entries.
type idTable struct {
	seed  maphash.Seed
	slots []int32 // entry index + 1; 0 is empty
	n     int
}

func newIDTable() *idTable { return &idTable{seed: maphash.MakeSeed(), slots: make([]int32, 1024)} }

// put records entry i under its id; a later entry with the same id
// replaces the earlier one (pi's byId keeps the last).
func (t *idTable) put(entries []*Entry, i int) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow(entries)
	}
	id := entries[i].ID
	for k := t.slot(id); ; k = (k + 1) & (len(t.slots) - 1) {
		switch s := t.slots[k]; {
		case s == 0:
			t.slots[k] = int32(i + 1)
			t.n++
			return
		case entries[s-1].ID == id:
			t.slots[k] = int32(i + 1)
			return
		}
	}
}

// get returns the index of the last entry with id, or -1.
func (t *idTable) get(entries []*Entry, id string) int {
	for k := t.slot(id); ; k = (k + 1) & (len(t.slots) - 1) {
		switch s := t.slots[k]; {
		case s == 0:
			return -1
		case entries[s-1].ID == id:
			return int(s - 1)
		}
	}
}

func (t *idTable) slot(id string) int {
	return int(maphash.String(t.seed, id) & uint64(len(t.slots)-1))
}

// grow doubles the table and puts every entry back.
func (t *idTable) grow(entries []*Entry) {
	old := t.slots
	t.slots, t.n = make([]int32, 2*len(old)), 0
	for _, s := range old {
		if s != 0 {
			t.put(entries, int(s-1))
		}
	}
}
