package fix

import (
	"errors"
	"io"
	"slices"

	"github.com/pisess/pisess/internal/parse"
)

// splicer is a stand-in for edit.Editor (the Tape editor, /work/EDIT_API.md)
// until that package is merged: replacements of whole values of an object
// laid on a Tape, written streaming. Same method set as edit.Editor's
// subset slim --rewrite uses.
type splicer struct {
	t     *parse.Tape
	edits []splice
}

type splice struct {
	start, end int
	value      []byte
}

var errOverlap = errors.New("overlapping edits")

func (e *splicer) Reset(t *parse.Tape) { e.t, e.edits = t, e.edits[:0] }

func (e *splicer) Replace(n int, value []byte) {
	start, end := e.t.Span(n)
	e.edits = append(e.edits, splice{start, end, value})
}

// Set replaces the value of member key of obj (the one JSON.parse reads),
// or appends the member when obj has none.
func (e *splicer) Set(obj int, key string, value []byte) {
	if v := e.t.Get(obj, key); v >= 0 {
		e.Replace(v, value)
		return
	}
	_, end := e.t.Span(obj)
	member := append(append(jsonString(key), ':'), value...)
	if e.t.Skip(obj) > obj+1 {
		member = append([]byte{','}, member...)
	}
	e.edits = append(e.edits, splice{end - 1, end - 1, member})
}

func (e *splicer) Changed() bool { return len(e.edits) > 0 }

func (e *splicer) WriteTo(w io.Writer) (int64, error) {
	slices.SortFunc(e.edits, func(a, b splice) int { return a.start - b.start })
	for i := 1; i < len(e.edits); i++ {
		if e.edits[i].start < e.edits[i-1].end {
			return 0, errOverlap
		}
	}
	in, at := e.t.Input(), 0
	var n int64
	for _, s := range e.edits {
		for _, piece := range [][]byte{in[at:s.start], s.value} {
			k, err := w.Write(piece)
			n += int64(k)
			if err != nil {
				return n, err
			}
		}
		at = s.end
	}
	k, err := w.Write(in[at:])
	return n + int64(k), err
}
