package validate

import (
	"strings"

	"github.com/pisess/pisess/internal/session"
)

// idIndex maps entry ids to ordinals. pi's ids are 8 lowercase hex
// digits: those are kept as 32-bit keys in an open-addressed table (one
// 8-byte slot an id, at most 3/4 full), any other id in a map by its
// string. A Go map of the keys cost a hash and several memory reads per
// lookup, two or three lookups an entry (issue 28).
type idIndex struct {
	slots []uint64 // the key in the top half, ordinal + 1 in the bottom; 0 is empty
	n     int
	other map[string]int32
}

func newIDIndex() idIndex {
	return idIndex{slots: make([]uint64, 1024), other: make(map[string]int32)}
}

// get returns the ordinal of the entry with id.
func (x *idIndex) get(id string) (int32, bool) {
	if h, ok := session.HexID(id); ok {
		return x.getHex(h)
	}
	ord, found := x.other[id]
	return ord, found
}

// getHex is get for a hex id read as h.
func (x *idIndex) getHex(h uint32) (int32, bool) {
	mask := len(x.slots) - 1
	for k := hexSlot(h, mask); ; k = (k + 1) & mask {
		switch s := x.slots[k]; {
		case s == 0:
			return -1, false
		case uint32(s>>32) == h:
			return int32(uint32(s)) - 1, true
		}
	}
}

// add records ord under id unless the id is known already; then it
// returns the earlier ordinal and true.
func (x *idIndex) add(id string, ord int32) (int32, bool) {
	if h, ok := session.HexID(id); ok {
		return x.addHex(h, ord)
	}
	if prev, dup := x.other[id]; dup {
		return prev, true
	}
	x.other[strings.Clone(id)] = ord
	return -1, false
}

// addHex is add for a hex id read as h.
func (x *idIndex) addHex(h uint32, ord int32) (int32, bool) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.grow()
	}
	mask := len(x.slots) - 1
	for k := hexSlot(h, mask); ; k = (k + 1) & mask {
		switch s := x.slots[k]; {
		case s == 0:
			x.slots[k] = uint64(h)<<32 | uint64(uint32(ord+1))
			x.n++
			return -1, false
		case uint32(s>>32) == h:
			return int32(uint32(s)) - 1, true
		}
	}
}

// hexSlot is the first slot to probe for key h: its bits mixed, so that
// made-up ids (00000001, 00000002...) spread as pi's random ones do.
func hexSlot(h uint32, mask int) int {
	return int((uint64(h)*0x9e3779b97f4a7c15)>>32) & mask
}

// grow doubles the table.
func (x *idIndex) grow() {
	old := x.slots
	x.slots = make([]uint64, 2*len(old))
	mask := len(x.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		k := hexSlot(uint32(s>>32), mask)
		for x.slots[k] != 0 {
			k = (k + 1) & mask
		}
		x.slots[k] = s
	}
}
