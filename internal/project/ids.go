package project

import (
	"hash/maphash"

	"github.com/pisess/pisess/internal/session"
)

// idTable finds entries by id: session's IDTable keyed by the top half of
// each id's hash, the entries themselves holding the ids, so that a probe
// reads an entry only when its key matches. A map[string]int would cost
// several times as much for a session of a few hundred thousand entries.
type idTable struct {
	seed maphash.Seed
	tab  session.IDTable
}

func newIDTable() *idTable {
	return &idTable{seed: maphash.MakeSeed(), tab: session.NewIDTable(1024)}
}

// put records entry i under its id; a later entry with the same id
// replaces the earlier one (pi's byId keeps the last), and put reports
// that it did.
func (t *idTable) put(entries []*Entry, i int) (replaced bool) {
	return t.putHashed(entries, i, t.hash(entries[i].ID()))
}

// putHashed is put with the hash of the entry's id.
func (t *idTable) putHashed(entries []*Entry, i int, h uint64) (replaced bool) {
	id := entries[i].ID()
	return t.tab.Put(key(h), int32(i), func(ord int32) bool { return entries[ord].ID() == id })
}

// get returns the index of the last entry with id, or -1.
func (t *idTable) get(entries []*Entry, id string) int {
	return t.getHashed(entries, id, t.hash(id))
}

// getHashed is get with the hash of id.
func (t *idTable) getHashed(entries []*Entry, id string, h uint64) int {
	ord, found := t.tab.Get(key(h), func(ord int32) bool { return entries[ord].ID() == id })
	if !found {
		return -1
	}
	return int(ord)
}

// hash is the hash of id the table works with.
func (t *idTable) hash(id string) uint64 { return maphash.String(t.seed, id) }

// key is the table's key of an id's hash: its top half.
func key(h uint64) uint32 { return uint32(h >> 32) }

// warm reads the slot an id of hash h goes to first (begin, load.go).
func (t *idTable) warm(h uint64) uint64 { return t.tab.Warm(key(h)) }

// reserve makes room for about n ids at once, so that a large session's
// table is not rebuilt at every doubling on the way.
func (t *idTable) reserve(n int) { t.tab.Reserve(n) }

// tableOf is the table of entries (after the index, for Lookup).
func tableOf(entries []*Entry) *idTable {
	t := newIDTable()
	t.reserve(len(entries))
	for i, e := range entries {
		if e.ID() != "" {
			t.put(entries, i)
		}
	}
	return t
}
