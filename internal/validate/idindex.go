package validate

import (
	"strings"

	"github.com/pisess/pisess/internal/session"
)

// idIndex maps entry ids to ordinals, the first entry of an id winning.
// pi's ids are 8 lowercase hex digits: those are their own keys in
// session's IDTable (exact: no id is kept), any other id is in a map by
// its string.
type idIndex struct {
	hex   session.IDTable
	other map[string]int32
}

func newIDIndex() idIndex {
	return idIndex{hex: session.NewIDTable(1024), other: make(map[string]int32)}
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
func (x *idIndex) getHex(h uint32) (int32, bool) { return x.hex.Get(h, nil) }

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
func (x *idIndex) addHex(h uint32, ord int32) (int32, bool) { return x.hex.Add(h, ord, nil) }
