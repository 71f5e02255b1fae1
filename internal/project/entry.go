package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// Entry is one record after the header, as pi sees it after migrating the
// file to version 3 in memory.
type Entry struct {
	Index     int    // position among the session's entries, in file order
	Line      int    // 1-based physical line the entry came from
	Object    int    // which object of a line of concatenated objects (0 otherwise)
	ID        string // "" when the entry has no string id
	ParentID  string // "" for a root: parentId null, absent, empty or not a string
	Type      string // "" when type is not a string
	Timestamp string // the entry's ISO timestamp ("" when absent)

	fields map[string]json.RawMessage // top-level members, migration applied
	msg    *messageHead               // message entries with an object message
}

// messageHead is what the projection needs to know about a message without
// decoding its content.
type messageHead struct {
	Role       string          `json:"role"`
	Provider   json.RawMessage `json:"provider"`
	Model      json.RawMessage `json:"model"`
	StopReason string          `json:"stopReason"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Content    json.RawMessage `json:"content"`
}

// contentBlock is one block of a message's content array.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Thinking  *string         `json:"thinking"`
	ID        string          `json:"id"`
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Field returns the raw JSON value of a top-level member of the entry.
func (e *Entry) Field(name string) (json.RawMessage, bool) {
	v, ok := e.fields[name]
	return v, ok
}

// StringField returns a top-level member that is a JSON string, or "".
func (e *Entry) StringField(name string) string {
	s, _ := rawString(e.fields[name])
	return s
}

// Message returns the AgentMessage of a message entry (role hookMessage
// already renamed to custom in version-1/2 files), or nil.
func (e *Entry) Message() json.RawMessage {
	if e.Type != "message" {
		return nil
	}
	return e.fields["message"]
}

// Role returns the message role of a message entry, or "".
func (e *Entry) Role() string {
	if e.msg == nil {
		return ""
	}
	return e.msg.Role
}

// decodeMessageHead fills e.msg for message entries.
func (e *Entry) decodeMessageHead() {
	if e.Type != "message" {
		return
	}
	if h, ok := headOf(e.fields["message"]); ok {
		e.msg = &h
	}
}

// headOf reads the head of a raw message object (exact key names, as
// JavaScript reads them).
func headOf(raw json.RawMessage) (messageHead, bool) {
	var h messageHead
	if !isObject(raw) {
		return h, false
	}
	members, ok := splitMembers(raw)
	if !ok {
		return h, json.Unmarshal(raw, &h) == nil
	}
	for _, m := range members {
		switch m.key {
		case "role":
			h.Role, _ = rawString(m.value)
		case "provider":
			h.Provider = m.value
		case "model":
			h.Model = m.value
		case "stopReason":
			h.StopReason, _ = rawString(m.value)
		case "toolCallId":
			h.ToolCallID, _ = rawString(m.value)
		case "toolName":
			h.ToolName, _ = rawString(m.value)
		case "content":
			h.Content = m.value
		}
	}
	return h, true
}

// decodeBlocks decodes a content value that is an array of blocks; a string
// or anything else gives no blocks. Elements that are not objects give
// empty blocks.
func decodeBlocks(content json.RawMessage) []contentBlock {
	if !isArray(content) {
		return nil
	}
	elems, ok := splitElements(content)
	if !ok {
		var blocks []contentBlock
		if json.Unmarshal(content, &blocks) != nil {
			return nil
		}
		return blocks
	}
	blocks := make([]contentBlock, len(elems))
	for i, el := range elems {
		blocks[i] = blockOf(el)
	}
	return blocks
}

func blockOf(raw json.RawMessage) contentBlock {
	var b contentBlock
	members, ok := splitMembers(raw)
	if !ok {
		_ = json.Unmarshal(raw, &b)
		return b
	}
	str := func(v json.RawMessage) *string {
		if s, ok := rawString(v); ok {
			return &s
		}
		return nil
	}
	for _, m := range members {
		switch m.key {
		case "type":
			b.Type, _ = rawString(m.value)
		case "text":
			b.Text = str(m.value)
		case "thinking":
			b.Thinking = str(m.value)
		case "id":
			b.ID, _ = rawString(m.value)
		case "name":
			b.Name = str(m.value)
		case "arguments":
			b.Arguments = m.value
		}
	}
	return b
}

// rawString decodes a raw value that is a JSON string.
func rawString(raw json.RawMessage) (string, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : n-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func isObject(raw json.RawMessage) bool { return firstByte(raw) == '{' }
func isArray(raw json.RawMessage) bool  { return firstByte(raw) == '[' }
func isNull(raw json.RawMessage) bool   { return string(raw) == "null" }

func firstByte(raw json.RawMessage) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// jsonString encodes s as a JSON string (without HTML escaping, like
// JSON.stringify).
func jsonString(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// jsKey returns a key under which two raw JSON values are equal exactly
// when JavaScript finds them equal with === (and as Map keys): absent
// (undefined), null, booleans, strings and numbers by value. Objects and
// arrays are never equal to another parsed value: ok is false.
func jsKey(raw json.RawMessage) (key string, ok bool) {
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
