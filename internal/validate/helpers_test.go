package validate

import (
	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// The tests' ways into what validate's pass does in place.

// entryOf reads the entry on tape t (entry.read into a new entry).
func entryOf(t *session.Tape, line int, linear bool, d session.Detail) entry {
	var e entry
	e.read(t, line, linear, d)
	return e
}

// CheckTape checks the record on tape t, built from physical line line
// of a file of the given version (1, 2 or 3; other versions are
// unsupported_version, found elsewhere, and yield nil). The findings keep
// no reference into the line.
//
// A "session" record is checked as the header (whether it is the first
// record is the caller's business: misplaced_header). Entries are
// checked by their type, and message entries by message.role. An unknown
// entry type yields nil (unknown_entry_type is reported elsewhere); a
// missing or non-string type is a schema finding at /type. An unknown role,
// or hookMessage in a version-3 file, is a schema finding at /message/role.
//
// Every violation is one finding.Schema error pointing at the offending
// value (for a missing key: where the key should be), in a stable order.
func (s *Schemas) CheckTape(version int, line int, t *session.Tape) []finding.Finding {
	c, extra, ok := s.checkOf(version, pickOf(t))
	if !ok {
		return nil
	}
	return c.checkTape(line, t, extra)
}
