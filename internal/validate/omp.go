package validate

// The oh-my-pi dialect (docs/omp.md). omp 18 writes a fixed-width title
// slot on line 1 before the header, and entry types of its own; a file of
// omp is checked with the omp-*.json schemas and omp's list of entry types.
// Everything else (parsing, torn writes, ids and parents, references) is
// checked exactly as for pi.

import (
	"bufio"
	"io"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// ompSchemas are the checks of omp files: the slot, the header and one per
// entry type (a message entry's check dispatches on its role itself).
type ompSchemas struct {
	title, header check
	entries       map[string]check
}

// compileOmp compiles the omp checks.
func (c *checkCompiler) compileOmp() (*ompSchemas, error) {
	types := session.OmpEntryTypes()
	s := &ompSchemas{entries: make(map[string]check, len(types))}
	var err error
	if s.title, err = c.compile("omp-title.json", ""); err != nil {
		return nil, err
	}
	if s.header, err = c.compile("omp-header.json", ""); err != nil {
		return nil, err
	}
	for _, t := range types {
		if s.entries[t], err = c.compile("omp-entry-"+t+".json", ""); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// isEntryTypeOf reports whether t is an entry type of the dialect.
func isEntryTypeOf(d session.Dialect, t string) bool {
	if d == session.Omp {
		return session.IsOmpEntryType(t)
	}
	return session.IsEntryType(t)
}

// sniff reads the start of r to tell its dialect, and returns a reader
// that still yields every byte of r.
func sniff(r io.Reader) (session.Dialect, io.Reader) {
	br := bufio.NewReaderSize(r, session.SniffBytes)
	prefix, _ := br.Peek(session.SniffBytes) // a short file: what there is
	return session.SniffDialect(prefix), br
}

// titleSlot handles line 1 of an omp file when it is the title slot, and
// reports whether it was: the slot is no record (the header follows it),
// it must be exactly 256 bytes with its newline (omp rewrites it in place
// over the first 256 bytes of the file: a slot of another size would
// have omp overwrite the header or leave debris), and it must match
// omp-title.json.
func (p *pass) titleSlot(l *session.Line) bool {
	if p.rep.Dialect != session.Omp || l.Num != 1 || l.Class != session.Object || len(l.Objects) != 1 || !session.IsTitleSlot(l.Raw) {
		return false
	}
	if l.Size != session.TitleSlotBytes || !l.Newline || l.CRLF {
		p.add(finding.Errorf(finding.Schema, l.Num,
			"omp's title slot must be exactly %d bytes with its \"\\n\" (it is %d): omp rewrites it in place and would overwrite the header or leave debris; `pisess repair` cannot resize it", session.TitleSlotBytes, l.Size).WithPointer("/pad"))
	}
	var t session.Tape
	err := t.Build(l.Raw)
	if err == nil && p.opts.Observer != nil {
		p.slotTitle, p.hasSlot = strings.Clone(t.StrOf(0, "title")), true // t shares the line
	}
	if p.opts.Schemas != nil {
		if f, bad := decodeFinding(l.Num, err); bad {
			p.add(f)
			return true
		}
		p.rep.Findings = append(p.rep.Findings, p.opts.Schemas.omp.title.checkTape(l.Num, &t, nil)...)
	}
	return true
}

// checkIn checks the record on tape t, line line of a file of the given
// version, with the schemas of dialect d. In an omp file, an entry of an
// unknown type yields nil: unknown_entry_type is reported elsewhere.
func (s *Schemas) checkIn(d session.Dialect, version, line int, t *session.Tape) []finding.Finding {
	return s.checkPicked(d, version, line, t, pickOf(t))
}

// checkEntry is checkIn for an entry e read off tape t already: its type
// and role, which pick the check, are not looked up again.
func (s *Schemas) checkEntry(d session.Dialect, version, line int, t *session.Tape, e *session.Entry) []finding.Finding {
	return s.checkPicked(d, version, line, t, pickOfEntry(t, e))
}

// checkPicked is checkIn for the record's pick p.
func (s *Schemas) checkPicked(d session.Dialect, version, line int, t *session.Tape, p pick) []finding.Finding {
	if d != session.Omp {
		c, extra, ok := s.checkOf(version, p)
		if !ok {
			return nil
		}
		return c.checkTape(line, t, extra)
	}
	c, ok := s.omp.entries[p.typ]
	switch {
	case p.typ == "session":
		c, ok = s.omp.header, true
	case !p.typed:
		c, ok = s.versions[CurrentVersion].untyped, true
	}
	if !ok {
		return nil
	}
	return c.checkTape(line, t, nil)
}
