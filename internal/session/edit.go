// The Editor changes a JSON object laid on a Tape: every byte it is
// not asked to change (key order, duplicate keys, escapes, number literals,
// whitespace) stays as it was.
//
// An Editor collects edits by node (Replace a value, Set or Delete a
// member) and applies them only when the object is written: each edit
// becomes a patch, a span of the input replaced by new text, and WriteTo
// copies the input between the patches. Nothing is copied or re-encoded,
// so a record of hundreds of megabytes is written with a few small writes.
// Duplicate keys are treated as JSON.parse reads them: the last counts.

package session

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"slices"
)

// ErrOverlap is the error of edits that touch the same bytes: a value
// replaced inside another replaced or deleted one, or a member set in an
// object that is replaced.
var ErrOverlap = errors.New("edit: overlapping edits")

// ErrNotObject is the error of a Set or Delete on a node that is not an
// object.
var ErrNotObject = errors.New("edit: member edit of a node that is not an object")

// Editor holds the edits of one object. Its zero value is ready for Reset;
// it keeps its memory from one object to the next. The values given to
// Replace and Set are not copied: they must stay unchanged until the
// object is written.
type Editor struct {
	t        *Tape
	replaced []replacement
	members  []memberEdit
	patches  []patch
}

// replacement is a Replace: node's value becomes value.
type replacement struct {
	node  int
	value []byte
}

// memberEdit is the net effect of the Sets and Deletes of one key of one
// object: deleted, every member named key goes; then, when value is not
// nil, the member JSON.parse reads gets value (appended when there is
// none, or when it was deleted first, as JavaScript appends a property
// assigned after a delete).
type memberEdit struct {
	obj     int
	key     string
	value   []byte
	deleted bool
}

// patch replaces the input's bytes [start,end) with head and value;
// start == end inserts. head is what an appended member needs before its
// value: a comma when it follows another, its quoted key and colon.
type patch struct {
	start, end int
	head       []byte
	value      []byte
}

// Reset starts a new set of edits to the object on t (spans are those of
// t.Input()).
func (e *Editor) Reset(t *Tape) {
	e.t = t
	e.replaced = e.replaced[:0]
	e.members = e.members[:0]
	e.patches = e.patches[:0]
}

// Replace makes node n's value the raw JSON text value (n is a value
// node: object, array, string...). A second Replace of n wins.
func (e *Editor) Replace(n int, value []byte) {
	if i := slices.IndexFunc(e.replaced, func(r replacement) bool { return r.node == n }); i >= 0 {
		e.replaced[i].value = value
		return
	}
	e.replaced = append(e.replaced, replacement{n, value})
}

// Set sets member key of object node obj: the member JSON.parse reads (the
// last of duplicates) gets value, and earlier duplicates are left as
// written; absent, it is appended as obj's last member. value is raw JSON.
func (e *Editor) Set(obj int, key string, value []byte) {
	i := e.member(obj, key)
	switch {
	case i < 0:
		e.members = append(e.members, memberEdit{obj: obj, key: key, value: value})
	case e.members[i].deleted: // delete, then assign: the new member comes last
		e.members = append(slices.Delete(e.members, i, i+1), memberEdit{obj: obj, key: key, value: value, deleted: true})
	default:
		e.members[i].value = value
	}
}

// Delete removes every member named key from object obj, each with one
// separating comma.
func (e *Editor) Delete(obj int, key string) {
	if i := e.member(obj, key); i >= 0 {
		e.members[i].value, e.members[i].deleted = nil, true
		return
	}
	e.members = append(e.members, memberEdit{obj: obj, key: key, deleted: true})
}

// member returns the index of the edit of key in obj, or -1.
func (e *Editor) member(obj int, key string) int {
	return slices.IndexFunc(e.members, func(m memberEdit) bool { return m.obj == obj && m.key == key })
}

// Changed reports whether any edit is pending.
func (e *Editor) Changed() bool { return len(e.replaced)+len(e.members) > 0 }

// WriteTo writes the object with the edits applied to w, streaming (never
// builds a copy of a huge line); overlapping or nested edits are an error
// (ErrOverlap), nothing written.
func (e *Editor) WriteTo(w io.Writer) (int64, error) {
	if err := e.plan(); err != nil {
		return 0, err
	}
	return e.emit(w)
}

// Bytes returns the edited object (for small objects).
func (e *Editor) Bytes() ([]byte, error) {
	if err := e.plan(); err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(make([]byte, 0, e.size()))
	_, err := e.emit(b) // a bytes.Buffer does not fail
	return b.Bytes(), err
}

// plan turns the edits into patches in input order and checks that they
// do not overlap.
func (e *Editor) plan() error {
	e.patches = e.patches[:0]
	for _, r := range e.replaced {
		start, end := e.t.Span(r.node)
		e.patches = append(e.patches, patch{start: start, end: end, value: r.value})
	}
	for i, m := range e.members {
		if slices.IndexFunc(e.members[:i], func(p memberEdit) bool { return p.obj == m.obj }) >= 0 {
			continue // the object's edits were planned with its first
		}
		if err := e.planObject(m.obj); err != nil {
			return err
		}
	}
	// Insertions before the removal or replacement that starts where they do.
	slices.SortStableFunc(e.patches, func(a, b patch) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end-a.start, b.end-b.start))
	})
	pos := 0
	for _, p := range e.patches {
		if p.start < pos {
			e.patches = e.patches[:0]
			return ErrOverlap
		}
		pos = p.end
	}
	return nil
}

// planObject adds the patches of the member edits of object obj: the
// members deleted go with one comma each, the member JSON.parse reads of a
// key set gets its value, and keys set that obj lacks (or deleted and set
// again) are appended after its last member kept.
func (e *Editor) planObject(obj int) error {
	t := e.t
	if t.Kind(obj) != KindObject {
		e.patches = e.patches[:0]
		return ErrNotObject
	}
	start, _ := t.Span(obj)
	at := start + 1 // where appended members go: after the last member kept
	kept := false   // a member before the current one is kept
	prevEnd := 0    // the end of the previous member's value
	for k, v := range t.Members(obj) {
		vs, ve := t.Span(v)
		if e.deletes(obj, k) {
			e.patches = append(e.patches, e.removal(obj, k, v, kept, prevEnd))
			prevEnd = ve
			continue
		}
		for _, m := range e.members {
			if m.obj == obj && m.value != nil && !m.deleted && t.KeyIs(k, m.key) && t.Get(obj, m.key) == v {
				e.patches = append(e.patches, patch{start: vs, end: ve, value: m.value})
			}
		}
		kept, at, prevEnd = true, ve, ve
	}
	for _, m := range e.members {
		if m.obj != obj || m.value == nil || (!m.deleted && t.Get(obj, m.key) >= 0) {
			continue
		}
		var head []byte
		if kept {
			head = []byte{','}
		}
		head = append(AppendQuote(head, m.key), ':')
		e.patches = append(e.patches, patch{start: at, end: at, head: head, value: m.value})
		kept = true
	}
	return nil
}

// deletes reports whether an edit deletes member k of object obj.
func (e *Editor) deletes(obj, k int) bool {
	for _, m := range e.members {
		if m.obj == obj && m.deleted && e.t.KeyIs(k, m.key) {
			return true
		}
	}
	return false
}

// removal is the patch that deletes member k (value node v) of obj with
// one separating comma: the comma before it when a member before it is
// kept (`,"key":value` from the previous value's end), else the comma
// after it (`"key":value,` up to the next key), else none.
func (e *Editor) removal(obj, k, v int, keptBefore bool, prevEnd int) patch {
	t := e.t
	ks, _ := t.Span(k)
	_, ve := t.Span(v)
	if keptBefore {
		return patch{start: prevEnd, end: ve}
	}
	if next := t.Skip(v); next < t.Skip(obj) {
		nks, _ := t.Span(next)
		return patch{start: ks, end: nks}
	}
	return patch{start: ks, end: ve}
}

// size is the length of the edited object.
func (e *Editor) size() int {
	start, end := e.t.Span(0)
	n := end - start
	for _, p := range e.patches {
		n += len(p.head) + len(p.value) - (p.end - p.start)
	}
	return n
}

// emit writes the object with the planned patches.
func (e *Editor) emit(w io.Writer) (int64, error) {
	raw := e.t.Input()
	pos, end := e.t.Span(0)
	var n int64
	write := func(pieces ...[]byte) error {
		for _, b := range pieces {
			if len(b) > 0 {
				m, err := w.Write(b)
				if n += int64(m); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, p := range e.patches {
		if err := write(raw[pos:p.start], p.head, p.value); err != nil {
			return n, err
		}
		pos = p.end
	}
	return n, write(raw[pos:end])
}
