package audit

import (
	"encoding/binary"
	"iter"
	"math"

	"github.com/pisess/pisess/internal/session"
)

// What the audit keeps per entry is most of its memory on a big file, so
// it is kept compact (issue 26): the keys in fixed chunks (no doubling
// slice and no copy of it as it grows), the tree's shape as a byte an
// entry, and the charges as varints.

// chunkLen is the length of a full chunk of keys.
const chunkLen = 4096

// keyList is an append-only list of entry keys, in chunks of chunkLen.
type keyList struct {
	chunks [][]uint64
	n      int
}

// add appends key and returns its index.
func (l *keyList) add(key uint64) int {
	if l.n%chunkLen == 0 {
		size := chunkLen
		if l.n == 0 {
			size = 64 // most files are small
		}
		l.chunks = append(l.chunks, make([]uint64, 0, size))
	}
	last := &l.chunks[len(l.chunks)-1]
	*last = append(*last, key)
	l.n++
	return l.n - 1
}

// len is the number of keys.
func (l *keyList) len() int { return l.n }

// all yields the keys with their indexes, in order.
func (l *keyList) all() iter.Seq2[int, uint64] {
	return func(yield func(int, uint64) bool) {
		i := 0
		for _, c := range l.chunks {
			for _, key := range c {
				if !yield(i, key) {
					return
				}
				i++
			}
		}
	}
}

// childCounts counts the children of each entry id, saturating at 2 (all
// that leaves and branch points need), by the ordinal of the first entry
// with the id: validate's linkage checks resolve the ids (session.Link),
// so no table of them is kept here. A parent named before its entry is
// read waits in early, by its key, until the entry comes.
type childCounts struct {
	byOrd []uint8 // by ordinal: isNode | the children, 0 to 2
	early map[uint64]uint8
}

// isNode marks the first entry with an id: what leaves and branch points
// count.
const isNode = 1 << 7

func newChildCounts() *childCounts { return &childCounts{early: map[uint64]uint8{}} }

// entry notes an entry with a non-empty id, placed by link, whose parent
// id is parent (has: a string).
func (s *childCounts) entry(id string, link session.Link, parent string, has bool) {
	for int(link.Ord) >= len(s.byOrd) {
		s.byOrd = append(s.byOrd, 0)
	}
	if link.First == link.Ord {
		s.byOrd[link.Ord] |= isNode
		if len(s.early) > 0 {
			key := keyOf(id)
			if n, ok := s.early[key]; ok {
				s.byOrd[link.Ord] |= n
				delete(s.early, key)
			}
		}
	}
	switch {
	case !has:
	case link.Parent >= 0:
		c := &s.byOrd[link.Parent]
		*c = *c&isNode | min(*c&^isNode+1, 2)
	default:
		key := keyOf(parent)
		s.early[key] = min(s.early[key]+1, 2)
	}
}

// counts returns the entries with no child and with more than one.
func (s *childCounts) counts() (leaves, branches int) {
	for _, c := range s.byOrd {
		switch {
		case c&isNode == 0:
		case c == isNode:
			leaves++
		case c == isNode|2:
			branches++
		}
	}
	return leaves, branches
}

// chargeLog holds charges in order, each as a few varints (about a third
// of the struct's 72 bytes), in chunks of chargeChunk bytes. Entries and
// times are written as the difference from the charge before.
type chargeLog struct {
	chunks [][]byte
	n      int // charges (len, for the tests)
	// the last charge's entry and time, which the next is written against
	entry int32
	at    int64
}

// chargeChunk is the size of a full chunk; maxCharge the longest charge.
const (
	chargeChunk = 64 << 10
	maxCharge   = 1 + 2*binary.MaxVarintLen32 + 6*binary.MaxVarintLen64 + 8
)

// charge flags.
const (
	chargeHasTime = 1 << 2 // the price takes the two low bits
)

// add appends ch.
func (l *chargeLog) add(ch charge) {
	if n := len(l.chunks); n == 0 || cap(l.chunks[n-1])-len(l.chunks[n-1]) < maxCharge {
		size := chargeChunk
		if n == 0 {
			size = 1 << 10
		}
		l.chunks = append(l.chunks, make([]byte, 0, size))
	}
	b := l.chunks[len(l.chunks)-1]
	flags := byte(ch.price)
	if ch.at != noTime {
		flags |= chargeHasTime
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, int64(ch.entry)-int64(l.entry))
	b = binary.AppendVarint(b, int64(ch.model))
	if ch.at != noTime {
		b = binary.AppendVarint(b, ch.at-l.at)
		l.at = ch.at
	}
	for _, v := range [...]int64{ch.tokens.Input, ch.tokens.Output, ch.tokens.CacheRead, ch.tokens.CacheWrite, ch.tokens.Total} {
		b = binary.AppendVarint(b, v)
	}
	if ch.price == costKnown {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ch.cost))
	}
	l.chunks[len(l.chunks)-1] = b
	l.entry = ch.entry
	l.n++
}

// all yields the charges in order.
func (l *chargeLog) all() iter.Seq[charge] {
	return func(yield func(charge) bool) {
		var entry int32
		var at int64
		for _, b := range l.chunks {
			for len(b) > 0 {
				var ch charge
				ch, b = decodeCharge(b, &entry, &at)
				if !yield(ch) {
					return
				}
			}
		}
	}
}

// decodeCharge reads one charge off b, given the entry and time of the
// charge before (updated), and returns the rest of b.
func decodeCharge(b []byte, entry *int32, at *int64) (charge, []byte) {
	ch := charge{price: pricing(b[0] & 3), at: noTime}
	flags := b[0]
	b = b[1:]
	next := func() int64 {
		v, n := binary.Varint(b)
		b = b[n:]
		return v
	}
	*entry += int32(next())
	ch.entry = *entry
	ch.model = int32(next())
	if flags&chargeHasTime != 0 {
		*at += next()
		ch.at = *at
	}
	ch.tokens = Tokens{Input: next(), Output: next(), CacheRead: next(), CacheWrite: next(), Total: next()}
	if ch.price == costKnown {
		ch.cost = math.Float64frombits(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	return ch, b
}
