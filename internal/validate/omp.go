package validate

// The oh-my-pi dialect (docs/omp.md). omp 18 writes a fixed-width title
// slot on line 1 before the header, and entry types of its own; a file of
// omp is checked with the omp-*.json schemas and omp's list of entry types.
// Everything else (parsing, torn writes, ids and parents, references) is
// checked exactly as for pi.

import (
	"bufio"
	"io"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/parse"
)

// ompSchemas are the checks of omp files: the slot, the header and one per
// entry type (a message entry's check dispatches on its role itself).
type ompSchemas struct {
	title, header check
	entries       map[string]check
}

// compileOmp compiles the omp checks.
func (c *checkCompiler) compileOmp() (*ompSchemas, error) {
	types := parse.OmpEntryTypes()
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
func isEntryTypeOf(d parse.Dialect, t string) bool {
	if d == parse.Omp {
		return parse.IsOmpEntryType(t)
	}
	return IsEntryType(t)
}

// checkOmp checks one decoded record of an omp file (header or entry).
// An entry of an unknown type yields nil: unknown_entry_type is reported
// elsewhere.
func (s *Schemas) checkOmp(line int, v map[string]any) []finding.Finding {
	typ, typed := v["type"].(string)
	var c check
	entryID := ""
	switch {
	case typ == "session":
		c = s.omp.header
	case !typed:
		c = s.versions[CurrentVersion].untyped
		entryID, _ = v["id"].(string)
	default:
		var ok bool
		if c, ok = s.omp.entries[typ]; !ok {
			return nil
		}
		entryID, _ = v["id"].(string)
	}
	return report(c, line, v, entryID, nil)
}

// checkOmpTape is checkOmp for the entry on tape t: a valid entry is
// cleared on the tape without being decoded.
func (s *Schemas) checkOmpTape(line int, t *parse.Tape) []finding.Finding {
	typ, _ := t.Str(t.Get(0, "type"))
	c, ok := s.omp.entries[typ]
	if typ == "session" {
		c, ok = s.omp.header, true
	}
	if ok && c.quick.validAt(t, 0) {
		return nil
	}
	v, _ := t.Value(0).(map[string]any)
	return s.checkOmp(line, v)
}

// sniff reads the start of r to tell its dialect, and returns a reader
// that still yields every byte of r.
func sniff(r io.Reader) (parse.Dialect, io.Reader) {
	br := bufio.NewReaderSize(r, parse.SniffBytes)
	prefix, _ := br.Peek(parse.SniffBytes) // a short file: what there is
	return parse.SniffDialect(prefix), br
}

// titleSlot handles line 1 of an omp file when it is the title slot, and
// reports whether it was: the slot is no record (the header follows it),
// it must be exactly 256 bytes with its newline (omp rewrites it in place
// over the first 256 bytes of the file: a slot of another size would
// have omp overwrite the header or leave debris), and it must match
// omp-title.json.
func (p *pass) titleSlot(l *parse.Line) bool {
	if p.dialect != parse.Omp || l.Num != 1 || l.Class != parse.Object || len(l.Objects) != 1 || !parse.IsTitleSlot(l.Raw) {
		return false
	}
	if l.Size != parse.TitleSlotBytes || !l.Newline || l.CRLF {
		p.add(finding.Errorf(finding.Schema, l.Num,
			"omp's title slot must be exactly %d bytes with its \"\\n\" (it is %d): omp rewrites it in place and would overwrite the header or leave debris; `pisess repair` cannot resize it", parse.TitleSlotBytes, l.Size).WithPointer("/pad"))
	}
	if p.opts.Schemas != nil {
		fields, err := parse.Decode(l.Raw, false)
		if f, bad := decodeFinding(l.Num, err); bad {
			p.add(f)
			return true
		}
		for _, f := range report(p.opts.Schemas.omp.title, l.Num, fields, "", nil) {
			p.add(f)
		}
	}
	return true
}

// checkHeader checks the header on tape t with the dialect's schema.
func (p *pass) checkHeader(version, line int, t *parse.Tape) []finding.Finding {
	if p.dialect == parse.Omp {
		return p.opts.Schemas.checkOmpTape(line, t)
	}
	return p.opts.Schemas.CheckTape(version, line, t)
}

// checkEntry checks an entry on tape t with the dialect's schemas.
func (in *inspector) checkEntry(line int, t *parse.Tape) []finding.Finding {
	if in.dialect == parse.Omp {
		return in.opts.Schemas.checkOmpTape(line, t)
	}
	return in.opts.Schemas.CheckTape(in.version, line, t)
}

// ompReset is where omp's context starts on a path of ordinals: after its
// last reset_boundary (/clear) when that comes after the last compaction
// (a compaction after the boundary supersedes it). It returns the
// boundary's index on the path, or -1.
func (k *linker) ompReset(path []int32) int {
	reset, compaction := -1, -1
	for i, ord := range path {
		switch k.name(k.node(ord).typ) {
		case "reset_boundary":
			reset = i
		case "compaction":
			compaction = i
		}
	}
	if reset > compaction {
		return reset
	}
	return -1
}
