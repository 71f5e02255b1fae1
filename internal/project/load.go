package project

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/parse"
)

// CurrentVersion is the session format version pi writes.
const CurrentVersion = 3

// Header is the session header (line 1).
type Header struct {
	Line      int    // physical line of the header (1 in a valid file)
	ID        string // session id
	Version   int    // as found in the file: 1 (absent), 2 or 3
	Timestamp string
	Cwd       string

	fields map[string]json.RawMessage
}

// Field returns the raw JSON value of a header member.
func (h *Header) Field(name string) (json.RawMessage, bool) {
	v, ok := h.fields[name]
	return v, ok
}

// HeaderError says why a file cannot be read as a session at all. Code is
// the finding code validate uses for the same problem.
type HeaderError struct {
	Code finding.Code
	Line int
	Msg  string
}

func (e *HeaderError) Error() string { return e.Msg }

// Session is a loaded session: its header and its entries in file order.
type Session struct {
	Header  Header
	Entries []*Entry
	Skipped []int // physical lines that held no object (blank, torn or corrupt)

	byID   map[string]int    // id -> index of the last entry with that id (pi's byId)
	parent []int             // index of each entry's parent, -1 for a root
	labels map[string]string // resolved label per target id
}

// LoadFile opens and loads the session file at path.
func LoadFile(path string, limits parse.Limits) (*Session, error) {
	f, err := parse.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f, limits)
}

// Load reads a session. Errors are I/O errors (including
// parse.ErrFileTooLarge) and *HeaderError.
func Load(r io.Reader, limits parse.Limits) (*Session, error) {
	rd := parse.NewReader(r, limits)
	var ld loader
	for rd.Next() {
		l := rd.Line()
		if l.Class != parse.Object && l.Class != parse.Concatenated {
			ld.s.Skipped = append(ld.s.Skipped, l.Num)
			continue
		}
		for k := range l.Objects {
			if err := ld.add(l.Num, k, l.Object(k)); err != nil {
				return nil, err
			}
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	return ld.finish()
}

// loader accumulates records while reading.
type loader struct {
	s        Session
	sawFirst bool
	// records maps a v1 record index (header = 0, every parsed object counts)
	// to its entry, nil for session records; only kept for version-1 files.
	records []*Entry
	ids     *migrate.IDs
	prevID  string
}

// add takes the k-th object of physical line num.
func (ld *loader) add(num, k int, obj []byte) error {
	fields, ok := fieldsOf(obj)
	if !ok {
		ld.s.Skipped = append(ld.s.Skipped, num)
		return nil
	}
	typ, _ := rawString(fields["type"])
	if !ld.sawFirst {
		ld.sawFirst = true
		return ld.header(num, typ, fields)
	}
	if ld.s.Header.Version == 1 {
		ld.records = append(ld.records, nil)
	}
	if typ == "session" { // a misplaced header: pi filters it out of the entries
		return nil
	}
	e := &Entry{Index: len(ld.s.Entries), Line: num, Object: k, Type: typ, fields: fields}
	ld.migrate(e)
	ld.s.Entries = append(ld.s.Entries, e)
	return nil
}

// header takes the first record, which must be the session header.
func (ld *loader) header(num int, typ string, fields map[string]json.RawMessage) error {
	if typ != "session" {
		code, msg := finding.NotASession, "the first record is not a session header (not a pi session file)"
		if _, ok := fields["kind"]; ok {
			code, msg = finding.UnsupportedVersion, "the first record is not a version 1-3 session header (a newer pi format?)"
		}
		return &HeaderError{Code: code, Line: num, Msg: msg}
	}
	version, err := headerVersion(fields["version"])
	if err != nil {
		return &HeaderError{Code: finding.UnsupportedVersion, Line: num, Msg: err.Error()}
	}
	h := Header{Line: num, Version: version, fields: fields}
	h.ID, _ = rawString(fields["id"])
	h.Timestamp, _ = rawString(fields["timestamp"])
	h.Cwd, _ = rawString(fields["cwd"])
	ld.s.Header = h
	if version == 1 {
		ld.records = []*Entry{nil}
		ld.ids = migrate.NewIDs(h.ID)
	}
	return nil
}

// headerVersion reads the header's version: absent (or null) is 1.
func headerVersion(raw json.RawMessage) (int, error) {
	if len(raw) == 0 || isNull(raw) {
		return 1, nil
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil || (v != 1 && v != 2 && v != 3) {
		return 0, fmt.Errorf("unsupported session version %s (pisess reads versions 1 to 3)", raw)
	}
	return int(v), nil
}

// migrate applies section 8 to one entry in memory, then reads its id and
// parentId.
func (ld *loader) migrate(e *Entry) {
	if ld.s.Header.Version == 1 {
		ld.records[len(ld.records)-1] = e
		ld.migrateV1(e)
	}
	if ld.s.Header.Version < 3 {
		renameHookMessage(e)
	}
	e.ID, _ = rawString(e.fields["id"])
	e.ParentID, _ = rawString(e.fields["parentId"])
	e.Timestamp, _ = rawString(e.fields["timestamp"])
	e.decodeMessageHead()
}

// migrateV1 gives a version-1 entry a deterministic id, links it to the
// previous entry and turns a compaction's firstKeptEntryIndex into
// firstKeptEntryId, as pi's migrateV1ToV2 does.
func (ld *loader) migrateV1(e *Entry) {
	id := ld.ids.For(e.Line)
	e.fields["id"] = jsonString(id)
	if ld.prevID == "" {
		e.fields["parentId"] = json.RawMessage("null")
	} else {
		e.fields["parentId"] = jsonString(ld.prevID)
	}
	ld.prevID = id
	if e.Type != "compaction" {
		return
	}
	raw, ok := e.fields["firstKeptEntryIndex"]
	if !ok {
		return
	}
	delete(e.fields, "firstKeptEntryIndex")
	var index float64
	if json.Unmarshal(raw, &index) != nil || index != float64(int(index)) {
		return
	}
	// pi looks the index up while it is still assigning ids: an entry at or
	// before the compaction has one, a later entry does not yet.
	i := int(index)
	if i >= 0 && i < len(ld.records) && ld.records[i] != nil {
		e.fields["firstKeptEntryId"] = ld.records[i].fields["id"]
	}
}

// renameHookMessage is pi's migrateV2ToV3: role hookMessage becomes custom.
func renameHookMessage(e *Entry) {
	msg, ok := e.fields["message"]
	if e.Type != "message" || !ok || !isObject(msg) {
		return
	}
	if role, _ := rawString(memberValue(msg, "role")); role != "hookMessage" {
		return
	}
	if edited, err := setMember(msg, "role", jsonString("custom")); err == nil {
		e.fields["message"] = edited
	}
}

// finish indexes the entries once every line is read.
func (ld *loader) finish() (*Session, error) {
	if !ld.sawFirst {
		return nil, &HeaderError{Code: finding.MissingHeader, Line: 1, Msg: "the file holds no session header (empty, or no line is a JSON object)"}
	}
	s := &ld.s
	s.byID = make(map[string]int, len(s.Entries))
	for i, e := range s.Entries {
		if e.ID != "" {
			s.byID[e.ID] = i
		}
	}
	s.parent = make([]int, len(s.Entries))
	for i, e := range s.Entries {
		s.parent[i] = -1
		if p, ok := s.byID[e.ParentID]; ok && e.ParentID != "" {
			s.parent[i] = p
		}
	}
	s.labels = resolveLabels(s.Entries)
	return s, nil
}

// resolveLabels applies label entries in file order: a non-empty label sets
// the target's label, an absent or empty one clears it.
func resolveLabels(entries []*Entry) map[string]string {
	labels := map[string]string{}
	for _, e := range entries {
		if e.Type != "label" {
			continue
		}
		target, ok := rawString(e.fields["targetId"])
		if !ok {
			continue
		}
		if label, _ := rawString(e.fields["label"]); label != "" {
			labels[target] = label
		} else {
			delete(labels, target)
		}
	}
	return labels
}
