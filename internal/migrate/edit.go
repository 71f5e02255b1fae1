package migrate

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// edit replaces the bytes [start,end) of a line with text; start == end
// inserts.
type edit struct {
	start, end int
	text       string
}

// editor collects the edits of one object and applies them to its line.
type editor struct {
	edits []edit
}

func (e *editor) reset() { e.edits = e.edits[:0] }

func (e *editor) replace(start, end int, text string) {
	e.edits = append(e.edits, edit{start, end, text})
}

// replaceValue replaces the value of m.
func (e *editor) replaceValue(m member, text string) {
	e.replace(m.valStart, m.valEnd, text)
}

// removeMember deletes m from obj together with one separating comma, so
// the object stays valid JSON and its other bytes stay as they were.
func (e *editor) removeMember(obj *object, k int) {
	m := obj.members[k]
	switch {
	case k > 0: // `,"key":value` after the previous value
		e.replace(obj.members[k-1].valEnd, m.valEnd, "")
	case len(obj.members) > 1: // `"key":value,` up to the next key
		e.replace(m.keyStart, obj.members[1].keyStart, "")
	default:
		e.replace(m.keyStart, m.valEnd, "")
	}
}

// appendMembers inserts `"key":value` pairs (already encoded, in order)
// after the last member of obj that is kept, the way JavaScript adds new
// properties at the end of an object. removed is the member being deleted
// (-1: none).
func (e *editor) appendMembers(obj *object, removed int, pairs ...string) {
	if len(pairs) == 0 {
		return
	}
	at, comma := obj.open+1, false
	for k := len(obj.members) - 1; k >= 0; k-- {
		if k != removed {
			at, comma = obj.members[k].valEnd, true
			break
		}
	}
	text := strings.Join(pairs, ",")
	if comma {
		text = "," + text
	}
	e.replace(at, at, text)
}

// writeTo writes line with the edits applied to w, without building the
// edited copy (a line may be hundreds of megabytes). The edits must have
// been sorted and checked by sort.
func (e *editor) writeTo(w io.Writer, line []byte) error {
	pos := 0
	for _, ed := range e.edits {
		if _, err := w.Write(line[pos:ed.start]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, ed.text); err != nil {
			return err
		}
		pos = ed.end
	}
	_, err := w.Write(line[pos:])
	return err
}

// sort orders the edits and checks they do not overlap (an insertion may
// sit at the start of a removal).
func (e *editor) sort(n int) error {
	slices.SortStableFunc(e.edits, func(a, b edit) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end-a.start, b.end-b.start)) // insertions first
	})
	pos := 0
	for _, ed := range e.edits {
		if ed.start < pos || ed.end < ed.start || ed.end > n {
			return fmt.Errorf("internal error: overlapping edits at byte %d", ed.start)
		}
		pos = ed.end
	}
	return nil
}
