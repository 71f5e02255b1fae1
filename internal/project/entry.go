package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/pisess/pisess/internal/session"
)

// Entry is one record after the header, as the index keeps it: where it
// lies in the file and the few fields the tree, the path and the projection
// look at without reading the record again. The rest is read back through
// a Record when it is needed. An entry holds one pointer, to its session:
// its strings lie in the session's strStore, which holds none, so the
// collector has little to scan however many entries a session has.
type Entry struct {
	Index  int   // position among the session's entries, in file order
	Line   int   // 1-based physical line the entry came from
	Object int32 // which object of a line of concatenated objects (0 otherwise)

	parent int32 // index of the parent entry, -1 for a root
	size   int32 // bytes of the object in the file
	typ    uint8 // session.TypeCode of the type, 0 for none or another (s.otherTypes)
	role   uint8 // a message entry's role (after migration): its session.RoleCode, 0 for none or another
	timeOK bool
	elided elided // the strings the index does not keep
	s      *Session
	offset int64   // where the object starts in the file
	millis float64 // new Date(timestamp).getTime(), when timeOK
	strs   strRef  // id, parentId, timestamp and the description's length in s.strs
}

// elided are the strings of an entry that the index does not keep because
// they can be made again (64 bytes an entry with them, 72 without).
type elided uint8

const (
	isoTime      elided = 1 << iota // the timestamp is millis's ISO form
	parentBefore                    // the parentId is the id of the entry before
)

// The strings of an entry, in the order strStore.add takes them, and
// then the length of its description.
const (
	strID = iota
	strParentID
	strTimestamp
	strDescription
)

// ID returns the entry's id, "" when it has no string id.
func (e *Entry) ID() string { return e.s.strs.get(e.strs, strID) }

// ParentID returns the entry's parentId, "" for a root (parentId null,
// absent, empty or not a string).
func (e *Entry) ParentID() string {
	if e.elided&parentBefore != 0 {
		return e.s.Entries[e.Index-1].ID()
	}
	return e.s.strs.get(e.strs, strParentID)
}

// Timestamp returns the entry's ISO timestamp, "" when absent.
func (e *Entry) Timestamp() string {
	if e.elided&isoTime != 0 {
		b, _ := appendISO(make([]byte, 0, isoRoom), e.millis)
		return unsafeString(b)
	}
	return e.s.strs.get(e.strs, strTimestamp)
}

// AppendTimestamp appends the entry's ISO timestamp (Timestamp) to b: a
// view that shows every entry's time reuses one buffer instead of making
// the timestamps the index does not keep one string each.
func (e *Entry) AppendTimestamp(b []byte) []byte {
	if e.elided&isoTime != 0 {
		b, _ = appendISO(b, e.millis)
		return b
	}
	return append(b, e.s.strs.get(e.strs, strTimestamp)...)
}

// Type returns the entry's type, "" when it is not a string.
func (e *Entry) Type() string {
	if e.typ > 0 {
		return session.TypeName(e.typ)
	}
	if e.s == nil { // the index workers' entry (scanWorker.description)
		return ""
	}
	return e.s.otherTypes[e.Index]
}

// Role returns the message role of a message entry, or "".
func (e *Entry) Role() string {
	if e.role > 0 {
		return session.RoleName(e.role)
	}
	if e.s == nil {
		return ""
	}
	return e.s.otherRoles[e.Index]
}

// Record reads the entry back from its file (see Session.Read).
func (e *Entry) Record() (*Record, error) { return e.s.Read(e) }

// Field returns the raw JSON value of a top-level member of the entry, as
// pi sees it after migration. It reads the record back from the file.
func (e *Entry) Field(name string) (json.RawMessage, bool) {
	r, err := e.s.Read(e)
	if err != nil {
		return nil, false
	}
	v := r.Raw(name)
	return v, v != nil
}

// StringField returns a top-level member that is a JSON string, or "".
func (e *Entry) StringField(name string) string {
	r, err := e.s.Read(e)
	if err != nil {
		return ""
	}
	return r.Str(name)
}

// Message returns the AgentMessage of a message entry (role hookMessage
// already renamed to custom in version-1/2 files), or nil.
func (e *Entry) Message() json.RawMessage {
	if e.Type() != "message" {
		return nil
	}
	v, _ := e.Field("message")
	return v
}

// Record is the JSON object of one entry, read back from the file and
// migrated to version 3 as pi migrates it in memory, on a session.Tape
// (node 0 is the entry). Its bytes are its own.
type Record struct {
	Entry *Entry
	Tape  session.Tape
	own   bool // its bytes were read for it alone, and nothing writes them again
}

// Raw returns the raw value of the top-level member name, or nil when it
// is absent, for the caller to keep: a copy, but for a value longer than
// readWindow of a record that owns its bytes, which is shared (a long
// record is not held twice).
func (r *Record) Raw(name string) json.RawMessage {
	v := r.Tape.Raw(r.Tape.Get(0, name))
	if v == nil {
		return nil
	}
	if r.own && len(v) > readWindow {
		return v
	}
	return append(json.RawMessage(nil), v...)
}

// Str returns the top-level member name when it is a JSON string, else "".
func (r *Record) Str(name string) string {
	s, _ := r.Tape.Str(r.Tape.Get(0, name))
	return string([]byte(s)) // the record's buffer is not the caller's
}

// Member returns the node of the top-level member name (-1 when absent).
func (r *Record) Member(name string) int { return r.Tape.Get(0, name) }

// setMember returns the object on t with member key set to val, or
// deleted when val is nil (JSON of undefined), as session.Editor edits it:
// the member JSON.parse reads gets the value where it stands, an absent
// one is appended (where pi's JavaScript would add it), and every other
// byte is kept.
func setMember(t *session.Tape, key string, val []byte) []byte {
	var e session.Editor
	e.Reset(t)
	if val == nil {
		e.Delete(0, key)
	} else {
		e.Set(0, key, val)
	}
	b, _ := e.Bytes() // one member edit of an object cannot overlap
	return b
}

// tapeOf builds a tape over a raw JSON object; ok is false when raw is
// not one.
func tapeOf(raw []byte) (*session.Tape, bool) {
	t := new(session.Tape)
	if !isObject(raw) || t.Build(raw) != nil {
		return nil, false
	}
	return t, true
}

// rawString decodes a raw value that is a JSON string.
func rawString(raw []byte) (string, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : n-1]), true
	}
	var t session.Tape
	wrapped := make([]byte, 0, n+6)
	wrapped = append(append(append(wrapped, `{"s":`...), raw...), '}')
	if t.Build(wrapped) != nil {
		return "", false
	}
	return t.Str(t.Get(0, "s"))
}

func isObject(raw []byte) bool { return firstByte(raw) == '{' }
func isArray(raw []byte) bool  { return firstByte(raw) == '[' }
func isNull(raw []byte) bool   { return string(raw) == "null" }

func firstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// jsKey returns a key under which two raw JSON values are equal exactly
// when JavaScript finds them equal with === (and as Map keys): absent
// (undefined), null, booleans, strings and numbers by value. Objects and
// arrays are never equal to another parsed value: ok is false.
func jsKey(raw []byte) (key string, ok bool) {
	switch c := firstByte(raw); {
	case c == 0:
		return "u", true
	case c == '"':
		s, ok := rawString(raw)
		return "s" + s, ok
	case c == 'n', c == 't', c == 'f':
		return string(raw), true
	case c == '-' || (c >= '0' && c <= '9'):
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return "", false
		}
		if f == 0 {
			f = 0 // -0 === 0
		}
		return "n" + strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}
