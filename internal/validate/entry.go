package validate

import "github.com/pisess/pisess/internal/session"

// entry is what the linkage checks need of one entry: its typed view
// (session.Entry, never the line's content), where it is, and whether the
// file is linear. Its strings may share the line's memory: the linker
// clones what it keeps.
type entry struct {
	session.Entry
	line   int
	linear bool // version 1: the parent is the previous entry, ids are not the file's
}

// read sets e to the entry on tape t, in place. In a version-1 file
// (linear) the ids and parents are not the file's: migration gives them.
func (e *entry) read(t *session.Tape, line int, linear bool, d session.Detail) {
	e.Entry.Read(t, d)
	e.line, e.linear = line, linear
	if linear {
		e.HasID = false
		e.ParentID, e.HasParent = "", false
	}
}
