package migrate

import (
	"errors"
	"fmt"
	"math"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// Migration edits exactly the bytes of one key or value and copies all the
// others unchanged: it reads each record on its session.Tape and edits it
// with an session.Editor.

// unique returns the value node of member name of object obj, or -1. A key
// that occurs more than once is an error: which occurrence counts differs
// between JSON parsers, so an edit could not be made safely.
func unique(t *session.Tape, obj int, name string) (int, error) {
	found := -1
	for k, v := range t.Members(obj) {
		if t.KeyIs(k, name) {
			if found >= 0 {
				return -1, fmt.Errorf("key %q occurs more than once", name)
			}
			found = v
		}
	}
	return found, nil
}

// numberValue decodes value node v when it is a finite JSON number.
func numberValue(t *session.Tape, v int) (float64, bool) {
	f, ok := t.Float(v)
	return f, ok && !math.IsInf(f, 0)
}

// unreadable refuses a record whose tape cannot be built: nested deeper
// than session.MaxDepth (too_deep, as validate reports it), or bytes the
// classifier should have rejected.
func unreadable(line int, err error) error {
	if errors.Is(err, session.ErrTooDeep) {
		return refuse(safefile.RefusedCorrupt, finding.Errorf(finding.TooDeep, line, "%v", err))
	}
	return malformed(line, "", err)
}
