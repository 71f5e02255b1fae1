package audit

import (
	"encoding/binary"
	"iter"
	"math"
)

// What the audit keeps per entry is most of its memory on a big file, so
// it is kept compact (issue 26): the keys in fixed chunks (no doubling
// slice and no copy of it as it grows), the tree's shape as a child count
// a key in a table of 4-byte slots, and the charges as varints.

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

// at returns the key of index i.
func (l *keyList) at(i int) uint64 { return l.chunks[i/chunkLen][i%chunkLen] }

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

// childCounts counts the children of each entry key, saturating at 2
// (all that leaves and branch points need), in an open-addressed table of
// indexes into keys (the first entry with each key) beside a byte of the
// key's hash a slot: a probe reads the bytes, and the keys only where the
// byte matches, so that a new key costs one read of the table, not one of
// keys per slot it passes. A parent named before its entry is read waits
// in early.
type childCounts struct {
	keys     *keyList
	tags     []uint8 // 0 is empty, else tagOf the key in the slot
	slots    []int32 // index into keys of the slot's key
	used     int
	children []uint8 // by key index, for the first entry with each key
	early    map[uint64]uint8
}

func newChildCounts(keys *keyList) *childCounts {
	return &childCounts{keys: keys, tags: make([]uint8, 64), slots: make([]int32, 64), early: map[uint64]uint8{}}
}

// entry notes the entry of key index i.
func (s *childCounts) entry(i int) {
	s.children = append(s.children, 0)
	key := s.keys.at(i)
	k, found := s.probe(key)
	if found {
		return
	}
	s.tags[k], s.slots[k] = tagOf(key), int32(i)
	if s.used++; 4*s.used > 3*len(s.slots) {
		s.grow()
	}
	if n, ok := s.early[key]; ok {
		s.children[i] = n
		delete(s.early, key)
	}
}

// child notes an entry whose parent has key parent.
func (s *childCounts) child(parent uint64) {
	if k, found := s.probe(parent); found {
		i := s.slots[k]
		s.children[i] = min(s.children[i]+1, 2)
		return
	}
	s.early[parent] = min(s.early[parent]+1, 2)
}

// probe returns the slot of key, or the empty slot where it would go.
func (s *childCounts) probe(key uint64) (int, bool) {
	mask := len(s.slots) - 1
	tag := tagOf(key)
	for k := slotOf(key, mask); ; k = (k + 1) & mask {
		switch t := s.tags[k]; {
		case t == 0:
			return k, false
		case t == tag && s.keys.at(int(s.slots[k])) == key:
			return k, true
		}
	}
}

// grow doubles the table.
func (s *childCounts) grow() {
	tags, slots := s.tags, s.slots
	s.tags, s.slots = make([]uint8, 2*len(tags)), make([]int32, 2*len(slots))
	mask := len(s.slots) - 1
	for j, t := range tags {
		if t == 0 {
			continue
		}
		k := slotOf(s.keys.at(int(slots[j])), mask)
		for s.tags[k] != 0 {
			k = (k + 1) & mask
		}
		s.tags[k], s.slots[k] = t, slots[j]
	}
}

// slotOf is the first slot to probe for key: its bits mixed, so that
// made-up ids (00000001, 00000002...) spread as random ones do.
func slotOf(key uint64, mask int) int {
	return int((key*0x9e3779b97f4a7c15)>>32) & mask
}

// tagOf is the byte of a key's hash kept beside its slot: other bits than
// slotOf's, never 0.
func tagOf(key uint64) uint8 {
	return uint8((key*0x9e3779b97f4a7c15)>>57) | 0x80
}

// counts returns the entry keys with no child and with more than one.
func (s *childCounts) counts() (leaves, branches int) {
	for k, t := range s.tags {
		if t == 0 {
			continue
		}
		switch s.children[s.slots[k]] {
		case 0:
			leaves++
		case 2:
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
	n      int
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

// len is the number of charges.
func (l *chargeLog) len() int { return l.n }

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
