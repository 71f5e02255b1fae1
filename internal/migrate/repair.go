package migrate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// RepairOptions select what Repair may fix beyond the always-safe repairs.
type RepairOptions struct {
	// ZeroTail cuts a run of NUL bytes after the last newline (zero_fill).
	ZeroTail bool
	Limits   session.Limits
}

// Fix is one repair made (or, in a dry run, that would be made).
type Fix struct {
	Line    int          `json:"line"` // physical line in the input
	Code    finding.Code `json:"code"` // the finding repaired
	Message string       `json:"message"`
}

// RepairResult describes one repair.
type RepairResult struct {
	Changed  bool // the output differs from the input
	Lines    int  // physical lines read
	LinesOut int  // physical lines written
	Fixes    []Fix
}

// Repair copies the session read from in to out, making only the repairs
// that need no guessing (cli.md, `repair`):
//
//   - a tolerated partial tail (torn last line) is dropped, so the file ends
//     with the newline of the last complete line;
//   - a torn line (a torn write that later lines continued after, as pi
//     1.6.0 does when it resumes a torn file) is removed with its newline,
//     unless a later entry names the torn entry's id (parentId, targetId,
//     fromId) and no complete entry before it has that id: that is refused,
//     since removing the line would not give those entries their parent
//     back; so is a torn line before any record;
//   - a UTF-8 byte order mark before line 1 is removed;
//   - a missing final newline is added;
//   - a line of concatenated complete objects becomes one line per object
//     (whitespace between the objects is dropped); on the last line, a torn
//     object after them is dropped;
//   - with ZeroTail, a run of NUL bytes at the end of the file is cut; on
//     the last line, complete objects before it are kept, one per line,
//     and a torn object is dropped.
//
// Every line kept is copied byte for byte with its own terminator (CRLF
// stays CRLF). A terminator Repair adds is the one of the line it completes
// when it has one, else "\r\n" if the previous line ended so, else "\n".
// Blank lines are kept. Any other corruption (invalid_json, invalid_utf8,
// trailing_data, not_object, line_too_long, zero_fill without ZeroTail,
// file_too_large) is refused with a *safefile.Error carrying the finding; so is a
// file in which no complete object would remain. Repair does not look at
// what the objects mean: the caller verifies the result.
func Repair(in io.Reader, out io.Writer, opts RepairOptions) (RepairResult, error) {
	var res RepairResult
	bw := bufio.NewWriterSize(out, 64<<10)
	rd := session.NewReader(in, opts.Limits)
	prevCRLF, objects := false, 0
	torn := tornEntries{ids: map[string]int{}, limits: opts.Limits}
	if rs, ok := in.(io.ReadSeeker); ok {
		torn.src = rs
	}
	for rd.Next() {
		l := rd.Line()
		res.Lines = l.Num
		if l.BOM {
			res.Fixes = append(res.Fixes, Fix{l.Num, finding.BOM, "removed the UTF-8 byte order mark (3 bytes) at the start of the file"})
		}
		if err := torn.check(l, objects); err != nil {
			return RepairResult{}, err
		}
		fix, err := repairLine(bw, l, prevCRLF, opts, &res)
		if err != nil {
			return RepairResult{}, err
		}
		if fix != nil {
			res.Fixes = append(res.Fixes, *fix)
		}
		if l.Class == session.Object || l.Class == session.Concatenated || l.Code == finding.ZeroFill {
			objects += len(l.Objects)
		}
		prevCRLF = l.CRLF
	}
	if err := readError(rd.Err(), res.Lines+1); err != nil {
		return RepairResult{}, err
	}
	if objects == 0 {
		return RepairResult{}, refuse(safefile.RefusedCorrupt, finding.Errorf(finding.MissingHeader, 1,
			"no complete record would remain: nothing to repair into a session"))
	}
	if err := bw.Flush(); err != nil {
		return RepairResult{}, &safefile.Error{Code: safefile.WriteFailed, Err: err}
	}
	res.Changed = len(res.Fixes) > 0
	return res, nil
}

// repairLine writes the repaired form of one line and returns the fix made,
// if any.
func repairLine(w *bufio.Writer, l *session.Line, prevCRLF bool, opts RepairOptions, res *RepairResult) (*Fix, error) {
	term := terminator(l, prevCRLF)
	switch l.Class {
	case session.Blank:
		res.LinesOut++
		return nil, writeRaw(w, l.Raw, ownTerminator(l))
	case session.Object:
		res.LinesOut++
		if l.Newline {
			return nil, writeRaw(w, l.Raw, term)
		}
		return &Fix{l.Num, finding.MissingFinalNewline, "added the missing final newline"},
			writeRaw(w, l.Raw, term)
	case session.PartialTail:
		return &Fix{l.Num, finding.PartialTail, plural(len(l.Raw), "dropped the torn last line (%d byte%s)")}, nil
	case session.TornLine:
		return &Fix{l.Num, finding.TornLine, plural(len(l.Raw), "removed the torn line (%d byte%s and its newline)")}, nil
	case session.Concatenated:
		if err := writeObjects(w, l, term, res); err != nil {
			return nil, err
		}
		if l.Verdict.Offset > 0 { // a torn object after the complete ones, at the end
			return &Fix{l.Num, finding.ConcatenatedObjects, fmt.Sprintf("%s, and dropped the torn object after %s (%d bytes)",
				plural(len(l.Objects), "kept %d complete object%s, one per line"), them(len(l.Objects)), len(l.Raw)-l.Verdict.Offset)}, nil
		}
		return &Fix{l.Num, finding.ConcatenatedObjects, plural(len(l.Objects), "split the line into %d line%s, one per object")}, nil
	}
	if l.Code == finding.ZeroFill && opts.ZeroTail {
		if l.Verdict.Offset > 0 { // complete objects or a torn one before the NULs
			return zeroTailFix(w, l, term, res)
		}
		return &Fix{l.Num, finding.ZeroFill, plural(int(l.Size), "cut the trailing run of %d NUL byte%s")}, nil
	}
	return nil, lineRefusal(l)
}

// writeObjects writes each complete object of line l on a line of its own.
func writeObjects(w *bufio.Writer, l *session.Line, term string, res *RepairResult) error {
	for k := range l.Objects {
		res.LinesOut++
		if err := writeRaw(w, l.Object(k), term); err != nil {
			return err
		}
	}
	return nil
}

// zeroTailFix repairs a last line that ends in NULs after complete objects
// (kept, one per line) or a torn one (dropped).
func zeroTailFix(w *bufio.Writer, l *session.Line, term string, res *RepairResult) (*Fix, error) {
	if err := writeObjects(w, l, term, res); err != nil {
		return nil, err
	}
	msg := plural(len(l.Raw)-l.Verdict.Offset, "cut the trailing run of %d NUL byte%s")
	kept := 0
	if k := len(l.Objects); k > 0 {
		kept = l.Objects[k-1][1]
		msg += plural(k, ", kept %d complete object%s before it")
	}
	if torn := len(bytes.TrimSpace(l.Raw[kept:l.Verdict.Offset])); torn > 0 {
		msg += plural(torn, ", dropped the torn object before it (%d byte%s)")
	}
	return &Fix{l.Num, finding.ZeroFill, msg}, nil
}

// them words "it" or "them" for k objects.
func them(k int) string {
	if k == 1 {
		return "it"
	}
	return "them"
}

// terminator is the line terminator Repair writes after (part of) line l:
// its own, or the one a missing final newline gets.
func terminator(l *session.Line, prevCRLF bool) string {
	if l.CRLF || (!l.Newline && prevCRLF) {
		return "\r\n"
	}
	return "\n"
}

// plural formats a message with one %d and one %s for an "s" suffix.
func plural(n int, format string) string {
	s := "s"
	if n == 1 {
		s = ""
	}
	return fmt.Sprintf(format, n, s)
}

// tornEntries maps the ids of torn lines to their lines, so that Repair can
// refuse to remove a torn line later entries depend on; a torn id a
// complete entry before it has is not noted (that entry is the parent).
// The complete entries' ids are read once a torn line with an id is met
// (a second read, when the input can seek; else it is noted), then kept.
type tornEntries struct {
	ids    map[string]int      // torn id -> its line
	known  map[string]struct{} // ids of the complete entries so far; nil until needed
	src    io.ReadSeeker       // the input, for the second read; nil if it cannot seek
	limits session.Limits
}

// referenceKeys are the keys by which an entry names another one, where
// naming a missing entry is an error (a compaction's firstKeptEntryId is
// only a warning, and does not stop a repair).
var referenceKeys = []string{"parentId", "targetId", "fromId"}

// check notes a torn line's id, refuses a torn line before any record
// (records is the count so far), and refuses an entry that names a torn
// entry.
func (t *tornEntries) check(l *session.Line, records int) error {
	switch l.Class {
	case session.TornLine:
		if records == 0 {
			return refuse(safefile.RefusedCorrupt, tornHeader(l))
		}
		id, ok := session.PrefixString(l.Raw, "id")
		if !ok || len(t.ids) >= 4096 {
			return nil
		}
		earlier, err := t.earlier(l, id)
		if err != nil {
			return err
		}
		if _, seen := t.ids[id]; !seen && !earlier {
			t.ids[id] = l.Num
		}
	case session.Object, session.Concatenated:
		for k := range l.Objects {
			if len(t.ids) > 0 {
				if err := t.checkObject(l, k); err != nil {
					return err
				}
			}
			t.note(l.Object(k))
		}
	}
	return nil
}

// earlier reports whether a complete entry before the torn line l has the
// id. The first time, it reads the ids of the lines before l again (the
// input's position is restored); after that, note keeps them.
func (t *tornEntries) earlier(l *session.Line, id string) (bool, error) {
	if t.known == nil {
		if t.src == nil {
			return false, nil
		}
		known, err := readIDs(t.src, l.Offset, t.limits)
		if err != nil {
			return false, err
		}
		t.known = known
	}
	_, ok := t.known[id]
	return ok, nil
}

// note records the id of a complete entry, once the ids are kept.
func (t *tornEntries) note(obj []byte) {
	if t.known == nil {
		return
	}
	if id, ok := session.PrefixString(obj, "id"); ok {
		t.known[id] = struct{}{}
	}
}

// readIDs returns the ids of the complete entries in the first n bytes of
// src, and seeks src back to where it was.
func readIDs(src io.ReadSeeker, n int64, limits session.Limits) (map[string]struct{}, error) {
	pos, err := src.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = src.Seek(0, io.SeekStart)
	}
	if err != nil {
		return nil, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	ids := tornEntries{known: map[string]struct{}{}}
	rd := session.NewReader(io.LimitReader(src, n), limits)
	for rd.Next() {
		if l := rd.Line(); l.Class == session.Object || l.Class == session.Concatenated {
			for k := range l.Objects {
				ids.note(l.Object(k))
			}
		}
	}
	if err = rd.Err(); err == nil {
		_, err = src.Seek(pos, io.SeekStart)
	}
	if err != nil {
		return nil, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	return ids.known, nil
}

// checkObject refuses object k of line l when it names a torn entry. An
// object that carries a torn entry's id (the write retried in full) gives
// later entries that id back: it is torn no more.
func (t *tornEntries) checkObject(l *session.Line, k int) error {
	var tape session.Tape // only after a torn line: rare
	if err := tape.Build(l.Object(k)); err != nil {
		return nil // not this check's business; validate reports it
	}
	defer t.loaded(&tape)
	for _, key := range referenceKeys {
		v, err := unique(&tape, 0, key)
		if err != nil || v < 0 {
			continue
		}
		id, ok := tape.Str(v)
		line, torn := t.ids[id]
		if !ok || !torn {
			continue
		}
		code := finding.DanglingReference
		if key == "parentId" {
			code = finding.MissingParent
		}
		return refuse(safefile.RefusedCorrupt, finding.Errorf(code, l.Num,
			"%s %q names the entry torn on line %d: pi never loads it, and removing the torn line would not give this entry its %s back; the file is left as it is",
			key, id, line, strings.TrimSuffix(key, "Id")).WithPointer("/"+key))
	}
	return nil
}

// loaded forgets the torn id that the complete entry on tape carries.
func (t *tornEntries) loaded(tape *session.Tape) {
	if v, err := unique(tape, 0, "id"); err == nil {
		if id, ok := tape.Str(v); ok {
			delete(t.ids, id)
		}
	}
}
