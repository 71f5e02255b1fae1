package migrate

import (
	"errors"
	"fmt"
	"math"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/parse"
)

// Migration edits exactly the bytes of one key or value and copies all the
// others unchanged. It finds those bytes on the record's parse.Tape: the
// span of each member's key and value in the line.

// member is one key/value pair of an object: [keyStart,keyEnd) is the key
// with its quotes, [valStart,valEnd) the value, as byte offsets into the
// line; key and value are their nodes on the tape.
type member struct {
	keyStart, keyEnd int
	valStart, valEnd int
	key, value       int
}

// object is the layout of one JSON object: the offsets of its braces and its
// members in order.
type object struct {
	open, close int // offsets of '{' and '}'
	members     []member
}

// locate builds the tape of the object at line[span[0]:span[1]] (a span
// the classifier accepted) and lays out its members. The error is
// parse.ErrTooDeep past parse.MaxDepth.
func locate(t *parse.Tape, line []byte, span [2]int, members []member) (object, error) {
	if err := t.Build(line[span[0]:span[1]]); err != nil {
		return object{}, err
	}
	return layout(t, 0, span[0], members), nil
}

// layout lays out object node n of tape t, whose input starts at byte off
// of the line.
func layout(t *parse.Tape, n, off int, members []member) object {
	start, end := t.Span(n)
	obj := object{open: off + start, close: off + end - 1, members: members[:0]}
	for k, v := range t.Members(n) {
		ks, ke := t.Span(k)
		vs, ve := t.Span(v)
		obj.members = append(obj.members, member{keyStart: off + ks, keyEnd: off + ke, valStart: off + vs, valEnd: off + ve, key: k, value: v})
	}
	return obj
}

// index returns the position in o.members of the member named name, or -1.
// A key that occurs more than once is an error: which occurrence counts
// differs between JSON parsers, so an edit could not be made safely.
func (o *object) index(t *parse.Tape, name string) (int, error) {
	found := -1
	for k, m := range o.members {
		if t.KeyIs(m.key, name) {
			if found >= 0 {
				return -1, fmt.Errorf("key %q occurs more than once", name)
			}
			found = k
		}
	}
	return found, nil
}

// numberValue decodes the value of m when it is a finite JSON number.
func numberValue(t *parse.Tape, m member) (float64, bool) {
	f, ok := t.Float(m.value)
	return f, ok && !math.IsInf(f, 0)
}

// unreadable refuses a record whose tape cannot be built: nested deeper
// than parse.MaxDepth (too_deep, as validate reports it), or bytes the
// classifier should have rejected.
func unreadable(line int, err error) error {
	if errors.Is(err, parse.ErrTooDeep) {
		return refuse(RefusedCorrupt, finding.Errorf(finding.TooDeep, line, "%v", err))
	}
	return malformed(line, "", err)
}
