package session

import "unsafe"

// InPlace applies the edits in the memory of the tape's input and returns
// the edited object, for a caller whose buffer has room after the object
// (its capacity): a long record gains a few members without being copied.
// The input's bytes, up to its capacity, are the caller's to overwrite,
// and the tape no longer describes them. ok is false, nothing changed,
// when the edits fail (Bytes says why), the room is short, an edit
// shortens the object before another (what follows would have to move
// back over what is still to be read), or a value lies in the input's
// memory: then Bytes makes a copy.
func (e *Editor) InPlace() (obj []byte, ok bool) {
	if e.plan() != nil {
		return nil, false
	}
	raw := e.t.Input()
	buf := raw[:cap(raw)]
	start, end := e.t.Span(0)
	size := e.size()
	if start+size > len(buf) {
		return nil, false
	}
	shift := 0 // how far the bytes between patches move right
	for _, p := range e.patches {
		if shift < 0 || overlaps(buf, p.value) {
			return nil, false
		}
		shift += len(p.head) + len(p.value) - (p.end - p.start)
	}
	// From the end back, each piece moves right (or stays) over bytes that
	// were moved already or are replaced: what is still to move stays put.
	out, tail := start+size, end
	for i := len(e.patches) - 1; i >= 0; i-- {
		p := &e.patches[i]
		out -= tail - p.end
		copy(buf[out:], buf[p.end:tail])
		out -= len(p.value)
		copy(buf[out:], p.value)
		out -= len(p.head)
		copy(buf[out:], p.head)
		tail = p.start
	}
	return buf[start : start+size], true
}

// overlaps reports whether a and b share memory.
func overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a0 < b0+uintptr(len(b)) && b0 < a0+uintptr(len(a))
}
