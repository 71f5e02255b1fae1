package project

import "encoding/binary"

// strStore holds the strings of the index (each entry's id, parentId and
// timestamp, and the length of its description, which lies in the
// session's descriptions) in blocks of bytes. The blocks hold no
// pointers, so the collector never scans them, and an entry refers to its
// strings with one strRef instead of a string header each.
type strStore struct{ blocks [][]byte }

// strRef is where an entry's strings lie: the block, and the offset in it.
type strRef uint64

// storeBlock is the size of a block (a larger record gets one of its own).
const storeBlock = 1 << 20

// add stores the strings of one entry, in the order of strID and the
// constants after it, and the length of its description, and returns where
// they lie.
func (st *strStore) add(id, parentID, timestamp string, descLen int) strRef {
	n := len(id) + len(parentID) + len(timestamp) + 4*binary.MaxVarintLen64
	if k := len(st.blocks); k == 0 || cap(st.blocks[k-1])-len(st.blocks[k-1]) < n {
		st.blocks = append(st.blocks, make([]byte, 0, max(storeBlock, n)))
	}
	k := len(st.blocks) - 1
	b := st.blocks[k]
	at := ref(k, int32(len(b)))
	for _, s := range [...]string{id, parentID, timestamp} {
		b = append(binary.AppendUvarint(b, uint64(len(s))), s...)
	}
	st.blocks[k] = binary.AppendUvarint(b, uint64(descLen))
	return at
}

// adopt takes block, packed as add packs, as a block of its own and
// returns its number: an entry packed at offset off in it lies at
// ref(k, off).
func (st *strStore) adopt(block []byte) int {
	st.blocks = append(st.blocks, block)
	return len(st.blocks) - 1
}

// ref is where the strings packed at offset off of block k lie.
func ref(k int, off int32) strRef { return strRef(uint64(k)<<32 | uint64(off)) }

// get returns string k (strID, strParentID or strTimestamp) of the entry
// at ref. It shares the store.
func (st *strStore) get(ref strRef, k int) string {
	b := st.blocks[ref>>32][uint32(ref):]
	for ; ; k-- {
		n, w := binary.Uvarint(b)
		if k == 0 {
			return unsafeString(b[w : w+int(n)])
		}
		b = b[w+int(n):]
	}
}

// descLen returns the length of the description of the entry at ref.
func (st *strStore) descLen(ref strRef) int {
	b := st.blocks[ref>>32][uint32(ref):]
	for range strDescription {
		n, w := binary.Uvarint(b)
		b = b[w+int(n):]
	}
	n, _ := binary.Uvarint(b)
	return int(n)
}
