package validate

import (
	"fmt"
	"strconv"

	"github.com/pisess/pisess/internal/parse"
)

// entryTypes are the eleven entry types of a session file.
var entryTypes = map[string]bool{
	"message": true, "model_change": true, "thinking_level_change": true,
	"usage": true, "compaction": true, "branch_summary": true, "custom": true,
	"custom_message": true, "context_edit": true, "label": true, "session_info": true,
}

// IsEntryType reports whether t is one of the eleven entry types.
func IsEntryType(t string) bool { return entryTypes[t] }

// str returns m[key] when it is a string.
func str(m map[string]any, key string) (string, bool) {
	s, ok := m[key].(string)
	return s, ok
}

// entry is what the linkage checks need of one entry: a few facts read
// from its line by entryOf, never the line's content. Its strings may
// share the line's memory: the linker clones what it keeps.
type entry struct {
	line      int
	id        string
	hasID     bool
	parentID  string
	hasParent bool // parentId is a string (not null, not absent)
	linear    bool // version 1: the parent is the previous entry
	typ       string

	msg message // a message entry's message

	targetID    string // label, context_edit
	hasTargetID bool
	fromID      string // branch_summary
	hasFromID   bool
	summary     bool // branch_summary: summary is truthy

	firstKeptID    string // compaction (versions 2 and 3)
	hasFirstKeptID bool
	firstKeptIndex keptIndex // compaction (version 1)
	hasTail        bool      // compaction: retainedTail is an array
	tail           []message // its elements (the zero message for a non-object)

	repl replacement // context_edit
}

// message is what the checks need of an AgentMessage.
type message struct {
	present       bool // the message is an object
	role          string
	stopReason    string
	toolCallID    string
	hasToolCallID bool
	toolName      string
	calls         []toolCall // an assistant's toolCall blocks
}

// keptIndex is a version-1 compaction's firstKeptEntryIndex.
type keptIndex struct {
	present bool
	n       int64
	isInt   bool   // n holds the value: a JSON integer that fits 64 bits
	text    string // the value as fmt's %v prints the decoded value
}

// replacement is what the projection reads of a context edit's
// replacement: null, or an object with a non-null content; anything else
// is ignored, as pi would.
type replacement struct {
	kind  replacementKind
	calls []toolCall // the toolCall blocks of the content
}

type replacementKind uint8

const (
	replacementIgnored replacementKind = iota // absent, or not one pi applies
	replacementOmit                           // null: the message is dropped
	replacementContent                        // an object with a content
)

// toolCall is one toolCall block of an assistant message.
type toolCall struct {
	id, name string
}

// entryOf reads the facts of the entry on tape t. Only the keys the
// linkage checks look at are read, each as encoding/json would decode it
// (the last of duplicate keys counts).
func entryOf(t *parse.Tape, line int, linear bool) entry {
	e := entry{line: line, linear: linear}
	e.typ, _ = t.Str(t.Get(0, "type"))
	var hasID bool
	e.id, hasID = t.Str(t.Get(0, "id"))
	e.hasID = hasID && !linear
	if !linear {
		e.parentID, e.hasParent = t.Str(t.Get(0, "parentId"))
	}
	switch e.typ {
	case "message":
		e.msg = messageOf(t, t.Get(0, "message"))
	case "label", "context_edit":
		e.targetID, e.hasTargetID = t.Str(t.Get(0, "targetId"))
		if e.typ == "context_edit" {
			e.repl = replacementOf(t, t.Get(0, "replacement"))
		}
	case "branch_summary":
		e.fromID, e.hasFromID = t.Str(t.Get(0, "fromId"))
		e.summary = truthy(t, t.Get(0, "summary"))
	case "compaction":
		e.firstKeptID, e.hasFirstKeptID = t.Str(t.Get(0, "firstKeptEntryId"))
		if linear {
			e.firstKeptIndex = keptIndexOf(t, t.Get(0, "firstKeptEntryIndex"))
		}
		if tail := t.Get(0, "retainedTail"); t.Kind(tail) == parse.KindArray {
			e.hasTail = true
			e.tail = []message{}
			for m := tail + 1; m < t.Skip(tail); m = t.Skip(m) {
				e.tail = append(e.tail, messageOf(t, m))
			}
		}
	}
	return e
}

// messageOf reads the message at node n (the zero message when n is not
// an object).
func messageOf(t *parse.Tape, n int) message {
	if t.Kind(n) != parse.KindObject {
		return message{}
	}
	m := message{present: true}
	m.role, _ = t.Str(t.Get(n, "role"))
	m.stopReason, _ = t.Str(t.Get(n, "stopReason"))
	m.toolCallID, m.hasToolCallID = t.Str(t.Get(n, "toolCallId"))
	m.toolName, _ = t.Str(t.Get(n, "toolName"))
	if m.role == "assistant" {
		m.calls = toolCallsOf(t, t.Get(n, "content"))
	}
	return m
}

// toolCallsOf lists the toolCall blocks of a content array at node n.
func toolCallsOf(t *parse.Tape, n int) []toolCall {
	if t.Kind(n) != parse.KindArray {
		return nil
	}
	var calls []toolCall
	for b := n + 1; b < t.Skip(n); b = t.Skip(b) {
		if typ, _ := t.Str(t.Get(b, "type")); typ != "toolCall" {
			continue
		}
		id, _ := t.Str(t.Get(b, "id"))
		name, _ := t.Str(t.Get(b, "name"))
		calls = append(calls, toolCall{id: id, name: name})
	}
	return calls
}

// replacementOf reads a context edit's replacement at node n.
func replacementOf(t *parse.Tape, n int) replacement {
	switch t.Kind(n) {
	case parse.KindNull:
		return replacement{kind: replacementOmit}
	case parse.KindObject:
		content := t.Get(n, "content")
		if k := t.Kind(content); k == parse.KindNone || k == parse.KindNull {
			return replacement{}
		}
		return replacement{kind: replacementContent, calls: toolCallsOf(t, content)}
	}
	return replacement{}
}

// keptIndexOf reads firstKeptEntryIndex at node n.
func keptIndexOf(t *parse.Tape, n int) keptIndex {
	if n < 0 {
		return keptIndex{}
	}
	k := keptIndex{present: true, text: fmt.Sprint(t.Value(n))}
	var err error
	k.n, err = t.Int(n)
	k.isInt = err == nil
	return k
}

// truthy is JavaScript truthiness of the value at node n.
func truthy(t *parse.Tape, n int) bool {
	switch t.Kind(n) {
	case parse.KindNone, parse.KindNull, parse.KindFalse:
		return false
	case parse.KindString:
		return len(t.Text(n)) > 0
	case parse.KindNumber:
		f, err := strconv.ParseFloat(string(t.Text(n)), 64)
		return err == nil && f != 0
	}
	return true // true, objects and arrays
}
