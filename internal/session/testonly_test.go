package session

// Clone returns a copy of the tape that owns a copy of its input, for a
// caller that keeps a tape whose input will be reused. Only the tests
// call it.
func (t *Tape) Clone() Tape {
	return Tape{raw: append([]byte(nil), t.raw...), nodes: append([]node(nil), t.nodes...), keys: t.keys, next: t.next}
}
