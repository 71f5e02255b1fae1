package session

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"
)

// Keys is a fixed set of object keys, numbered from 1, that a Tape can
// name as it builds (SetKeys): each key node gets its key's number, found
// once, so the readers that walk the same members after it (a schema
// check, an entry's typed view) match a key by a small number instead of
// comparing its bytes again each. A key not in the set is number 0.
//
// A Keys may extend another (NewKeys's base): it keeps the base's numbers
// and adds its own after them, so a reader that knows only the base's
// numbers reads a tape built with the larger set. A Keys is read-only
// once made and safe for concurrent use.
type Keys struct {
	base  *Keys
	names []string  // by number - 1
	slots []keySlot // linear probing from a key's hash
	shift uint      // slot of a hash: its top bits
}

// keySlot holds one key of a set: its first 16 bytes as two words
// (keyWords) and its length, which compare it whole unless it is
// longer, and its number (0: the slot is empty).
type keySlot struct {
	head, tail uint64
	size       uint32
	number     uint16
}

// maxKeys bounds a Keys: a node holds a key's number in 16 bits.
const maxKeys = 1<<16 - 1

// NewKeys returns the set of base's keys (base may be nil) followed by
// names, numbered in that order; a name already in the set keeps its
// first number.
func NewKeys(base *Keys, names ...string) *Keys {
	k := &Keys{base: base}
	if base != nil {
		k.names = append(k.names, base.names...)
	}
	seen := make(map[string]bool, len(k.names)+len(names))
	for _, n := range k.names {
		seen[n] = true
	}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			k.names = append(k.names, n)
		}
	}
	if len(k.names) > maxKeys {
		panic(fmt.Sprintf("session.NewKeys: %d keys, at most %d", len(k.names), maxKeys))
	}
	size := 16
	for size < 2*len(k.names) { // at most half full
		size *= 2
	}
	k.slots = make([]keySlot, size)
	k.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for i, n := range k.names {
		head, tail := keyWords(n)
		h := keyHash(head, len(n)) >> k.shift
		for k.slots[h].number != 0 {
			h = (h + 1) & uint64(size-1)
		}
		k.slots[h] = keySlot{head: head, tail: tail, size: uint32(len(n)), number: uint16(i + 1)}
	}
	return k
}

// Len returns how many keys the set has: its numbers are 1 to Len.
func (k *Keys) Len() int { return len(k.names) }

// Name returns the key numbered n (1 to Len).
func (k *Keys) Name(n int) string { return k.names[n-1] }

// Number returns the number of key, or 0 when it is not in the set.
func (k *Keys) Number(key string) int {
	head, tail := keyWords(key)
	return k.lookup(head, tail, key)
}

// lookup returns the number of key, whose keyWords are head and tail.
func (k *Keys) lookup(head, tail uint64, key string) int {
	mask := uint64(len(k.slots) - 1)
	for h := keyHash(head, len(key)) >> k.shift; ; h = (h + 1) & mask {
		s := &k.slots[h]
		if s.number == 0 {
			return 0
		}
		if s.head == head && s.tail == tail && int(s.size) == len(key) && (len(key) <= 16 || k.names[s.number-1][16:] == key[16:]) {
			return int(s.number)
		}
	}
}

// Extends reports whether k is base or extends it, so that base's numbers
// are k's.
func (k *Keys) Extends(base *Keys) bool {
	for ; k != nil; k = k.base {
		if k == base {
			return true
		}
	}
	return false
}

// keyWords are the first 16 bytes of a key as two little-endian words,
// zero past its end: most keys are that long at most, so comparing the
// words and the lengths compares them whole.
func keyWords(key string) (head, tail uint64) {
	for i := min(len(key), 16) - 1; i >= 8; i-- {
		tail = tail<<8 | uint64(key[i])
	}
	for i := min(len(key), 8) - 1; i >= 0; i-- {
		head = head<<8 | uint64(key[i])
	}
	return head, tail
}

// keyHash mixes a key's head and length; its top bits pick the slot.
func keyHash(head uint64, size int) uint64 {
	return (head ^ uint64(size)<<59) * 0x9e3779b97f4a7c15
}

// SetKeys makes the builds after it name the keys of k on their nodes
// (KeyNumber); nil names none, as a zero Tape does. The tape built
// before it keeps the keys it was built with.
func (t *Tape) SetKeys(k *Keys) { t.next = k }

// KeyNumber returns the number in keys of key node k (a string node that
// is a member's key): read off the node when the tape was built with keys
// or a set that extends it, else looked up by the key's bytes. 0 when
// the key is not in keys.
func (t *Tape) KeyNumber(keys *Keys, k int) int {
	if t.keys == keys { // inlined
		return int(t.nodes[k].key)
	}
	return t.keyNumberSlow(keys, k)
}

// Keys returns the keys the tape was built with (SetKeys), or nil: a
// reader that knows the numbers of a set the tape's extends (Extends)
// may read the tape's own numbers, the larger ones being keys it does
// not know.
func (t *Tape) Keys() *Keys { return t.keys }

func (t *Tape) keyNumberSlow(keys *Keys, k int) int {
	if t.keys.Extends(keys) {
		if n := int(t.nodes[k].key); n <= keys.Len() {
			return n
		}
		return 0
	}
	return keys.Number(t.key(k))
}

// key returns the value of string node k, shared with the input unless
// it has escapes.
func (t *Tape) key(k int) string {
	s, _ := t.Str(k)
	return s
}

// nameKey sets the number of key node k in the tape's Keys. The key's
// words are two loads where the input has 16 bytes from its start.
func (t *Tape) nameKey(k int) {
	n := &t.nodes[k]
	start, size := n.start, n.end-n.start
	if n.escaped || start+16 > len(t.raw) {
		n.key = uint16(t.keys.Number(t.key(k)))
		return
	}
	b := t.raw[start : start+16]
	head := binary.LittleEndian.Uint64(b) & (1<<(8*uint(size)) - 1) // a shift of 64 or more: all of it
	tail := binary.LittleEndian.Uint64(b[8:]) & (1<<(8*uint(max(size-8, 0))) - 1)
	if size > 16 {
		n.key = uint16(t.keys.lookup(head, tail, unsafe.String(&b[0], size)))
		return
	}
	// lookup, inlined for the usual key of at most 16 bytes: its words and
	// length compare it whole.
	keys := t.keys
	mask := uint64(len(keys.slots) - 1)
	for h := keyHash(head, size) >> keys.shift; ; h = (h + 1) & mask {
		s := &keys.slots[h]
		if s.number == 0 || s.head == head && s.tail == tail && int(s.size) == size {
			n.key = s.number
			return
		}
	}
}
