package project

import (
	"encoding/json"

	"github.com/pisess/pisess/internal/session"
)

// memberValue returns the last member named key of a raw object, or nil.
func memberValue(obj []byte, key string) json.RawMessage {
	t, ok := tapeOf(obj)
	if !ok {
		return nil
	}
	return copyRaw(t.Raw(t.Get(0, key)))
}

// fieldOf returns a top-level member of e's record, as pi sees it.
func fieldOf(e *Entry, name string) json.RawMessage {
	v, _ := e.Field(name)
	return v
}

// recordJSON returns e's record, migrated, as JSON.
func recordJSON(e *Entry) json.RawMessage {
	r, err := e.s.Read(e)
	if err != nil {
		return nil
	}
	return copyRaw(r.Tape.Input())
}

// keysOf lists the top-level keys of a raw object in order.
func keysOf(raw []byte) []string {
	t, ok := tapeOf(raw)
	if !ok {
		return nil
	}
	var keys []string
	for k := range t.Members(0) {
		key, _ := t.Str(k)
		keys = append(keys, key)
	}
	return keys
}

// messageBlocks reads the content blocks of a raw message.
func messageBlocks(m []byte) []contentBlock {
	t, ok := tapeOf(m)
	if !ok {
		return nil
	}
	return blocksOf(t, t.Get(0, "content"))
}

// entryRetainsTail reports whether a compaction entry has a retainedTail
// array.
func entryRetainsTail(e *Entry) bool {
	return session.Kind(firstKind(fieldOf(e, "retainedTail"))) == session.KindArray
}

func firstKind(raw []byte) session.Kind {
	if isArray(raw) {
		return session.KindArray
	}
	return session.KindNone
}
