package project

import (
	"bytes"
	"encoding/json"
	"errors"
)

// errNotObject is returned when a raw value that must be an object is not.
var errNotObject = errors.New("not a JSON object")

// setMember returns a copy of the raw object obj with member key set to val.
// The other members keep their order and bytes; a key that is not there is
// appended at the end (where pi's JavaScript would add it).
func setMember(obj json.RawMessage, key string, val json.RawMessage) (json.RawMessage, error) {
	members, err := objectMembers(obj)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('{')
	found := false
	for i, m := range members {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(jsonString(m.key))
		out.WriteByte(':')
		if m.key == key {
			out.Write(val)
			found = true
		} else {
			out.Write(m.value)
		}
	}
	if !found {
		if len(members) > 0 {
			out.WriteByte(',')
		}
		out.Write(jsonString(key))
		out.WriteByte(':')
		out.Write(val)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

type member struct {
	key   string
	value json.RawMessage
}

// objectMembers lists the members of a raw object in order.
func objectMembers(obj json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		members = append(members, member{key, value})
	}
	return members, nil
}

// objectWriter writes a JSON object member by member, leaving out members
// whose value is absent (a nil RawMessage), as JSON.stringify leaves out
// undefined.
type objectWriter struct {
	buf bytes.Buffer
	n   int
}

func (w *objectWriter) member(key string, value json.RawMessage) {
	if value == nil {
		return
	}
	if w.n == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	w.n++
	w.buf.Write(jsonString(key))
	w.buf.WriteByte(':')
	w.buf.Write(value)
}

func (w *objectWriter) bytes() json.RawMessage {
	if w.n == 0 {
		return json.RawMessage("{}")
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes()
}

// deleteMember returns a copy of the raw object obj without member key
// (every occurrence); the other members keep their order and bytes.
func deleteMember(obj json.RawMessage, key string) (json.RawMessage, error) {
	members, err := objectMembers(obj)
	if err != nil {
		return nil, err
	}
	var w objectWriter
	for _, m := range members {
		if m.key != key {
			w.member(m.key, m.value)
		}
	}
	return w.bytes(), nil
}
