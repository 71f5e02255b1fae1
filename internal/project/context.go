package project

import (
	"encoding/json"
)

// Model is the active model. The values are the raw JSON pi copies from the
// entry (strings in any valid file); a nil value is absent, as pi's
// undefined.
type Model struct {
	Provider json.RawMessage `json:"provider,omitempty"`
	ModelID  json.RawMessage `json:"modelId,omitempty"`
}

// Names returns the provider and model id as strings ("" when not strings).
func (m *Model) Names() (provider, modelID string) {
	provider, _ = rawString(m.Provider)
	modelID, _ = rawString(m.ModelID)
	return provider, modelID
}

// Settings are the model and thinking level in force at the end of a path.
type Settings struct {
	Model         *Model          // nil until a model_change or assistant message
	ThinkingLevel json.RawMessage // raw JSON, "off" until a thinking_level_change; nil if one had none
}

// ThinkingLevelName returns the thinking level as a string.
func (s Settings) ThinkingLevelName() string {
	name, _ := rawString(s.ThinkingLevel)
	return name
}

// SettingsOf folds the settings over a path: thinkingLevel starts "off" and
// each thinking_level_change overrides it; the model starts null and each
// model_change and each assistant message overrides it.
func SettingsOf(path []*Entry) Settings {
	st := Settings{ThinkingLevel: json.RawMessage(`"off"`)}
	for _, e := range path {
		switch {
		case e.Type == "thinking_level_change":
			st.ThinkingLevel = e.fields["thinkingLevel"]
		case e.Type == "model_change":
			st.Model = &Model{Provider: e.fields["provider"], ModelID: e.fields["modelId"]}
		case e.msg != nil && e.msg.Role == "assistant":
			st.Model = &Model{Provider: nonEmpty(e.msg.Provider), ModelID: nonEmpty(e.msg.Model)}
		}
	}
	return st
}

func nonEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	return raw
}

// Context is the model context projected for one leaf (session-format.md
// section 7).
type Context struct {
	Leaf *Entry   // nil for a session without entries
	Path []*Entry // root to leaf
	// Entries are the context entries: the path after the compaction cut
	// (the leading compaction first), of every type.
	Entries []*Entry
	Settings
	// Messages equal what pi's buildSessionContext returns.
	Messages []json.RawMessage
	// Sources[i] is the entry that produced Messages[i] (a compaction for
	// its summary and its retainedTail messages).
	Sources []*Entry
	// Unpaired lists the rule-6 problems of Messages.
	Unpaired []Unpaired
}

// EntryIDs returns the id of the entry behind each message.
func (c *Context) EntryIDs() []string {
	ids := make([]string, len(c.Sources))
	for i, e := range c.Sources {
		ids[i] = e.ID
	}
	return ids
}

// Context projects the context of leaf (nil leaf: empty context, as pi's
// buildSessionContext for a session without entries).
func (s *Session) Context(leaf *Entry) (*Context, error) {
	path, err := s.Path(leaf)
	if err != nil {
		return nil, err
	}
	c := &Context{Leaf: leaf, Path: path, Settings: SettingsOf(path)}
	c.Entries = contextEntries(path)
	edits := lastEdits(c.Entries)
	for i, e := range c.Entries {
		if i == 0 && e.Type == "compaction" {
			c.add(e, compactionSummary(e))
			c.addTail(e)
			continue
		}
		if m := entryMessage(e); m != nil {
			if edit, ok := edits[e.ID]; ok && e.ID != "" {
				if m = edit.apply(e, m); m == nil {
					continue
				}
			}
			c.add(e, m)
		}
	}
	c.Unpaired = CheckToolPairs(c.Messages, c.Sources)
	return c, nil
}

func (c *Context) add(e *Entry, m json.RawMessage) {
	c.Messages = append(c.Messages, m)
	c.Sources = append(c.Sources, e)
}

// addTail appends a compaction's retainedTail messages.
func (c *Context) addTail(e *Entry) {
	var tail []json.RawMessage
	if raw, ok := e.fields["retainedTail"]; !ok || !isArray(raw) || json.Unmarshal(raw, &tail) != nil {
		return
	}
	for _, m := range tail {
		c.add(e, m)
	}
}

// contextEntries applies the compaction cut: with no compaction on the path,
// the whole path; otherwise the last compaction C, then (unless C carries a
// retainedTail) the path entries from C's firstKeptEntryId up to C, then
// everything after C.
func contextEntries(path []*Entry) []*Entry {
	ci := -1
	for i, e := range path {
		if e.Type == "compaction" {
			ci = i
		}
	}
	if ci < 0 {
		return path
	}
	c := path[ci]
	out := []*Entry{c}
	if !hasRetainedTail(c) {
		firstKept, _ := rawString(c.fields["firstKeptEntryId"])
		kept := -1
		for i := 0; i < ci && firstKept != ""; i++ {
			if path[i].ID == firstKept {
				kept = i
				break
			}
		}
		if kept >= 0 {
			out = append(out, path[kept:ci]...)
		}
	}
	return append(out, path[ci+1:]...)
}

// hasRetainedTail reports whether a compaction is a self-contained
// checkpoint (retainedTail is an array, even an empty one).
func hasRetainedTail(e *Entry) bool {
	return isArray(e.fields["retainedTail"])
}

// entryMessage is pi's appendMessage: the message an entry puts into the
// context, or nil. Compactions are handled by the caller.
func entryMessage(e *Entry) json.RawMessage {
	switch e.Type {
	case "message":
		return e.fields["message"] // absent: pi would throw; we skip it
	case "custom_message":
		var w objectWriter
		w.member("role", json.RawMessage(`"custom"`))
		w.member("customType", e.fields["customType"])
		w.member("content", e.fields["content"])
		w.member("display", e.fields["display"])
		w.member("details", e.fields["details"])
		w.member("timestamp", jsDateJSON(e.fields["timestamp"]))
		return w.bytes()
	case "branch_summary":
		if !jsTruthy(e.fields["summary"]) {
			return nil
		}
		var w objectWriter
		w.member("role", json.RawMessage(`"branchSummary"`))
		w.member("summary", e.fields["summary"])
		w.member("fromId", e.fields["fromId"])
		w.member("timestamp", jsDateJSON(e.fields["timestamp"]))
		return w.bytes()
	}
	return nil
}

// compactionSummary is the message a leading compaction puts first.
func compactionSummary(e *Entry) json.RawMessage {
	var w objectWriter
	w.member("role", json.RawMessage(`"compactionSummary"`))
	w.member("summary", e.fields["summary"])
	w.member("tokensBefore", e.fields["tokensBefore"])
	w.member("timestamp", jsDateJSON(e.fields["timestamp"]))
	return w.bytes()
}

// contextEdit is a well-formed context_edit: replacement null (omit) or
// {content} (replace the content).
type contextEdit struct {
	omit    bool
	content json.RawMessage
}

// lastEdits returns, per target id, the last well-formed context_edit among
// the context entries. An edit without a replacement key, or whose
// replacement is neither null nor an object with content, is ignored.
func lastEdits(entries []*Entry) map[string]contextEdit {
	edits := map[string]contextEdit{}
	for _, e := range entries {
		if e.Type != "context_edit" {
			continue
		}
		target, ok := rawString(e.fields["targetId"])
		repl, has := e.fields["replacement"]
		if !ok || !has {
			continue
		}
		if isNull(repl) {
			edits[target] = contextEdit{omit: true}
			continue
		}
		var r struct {
			Content json.RawMessage `json:"content"`
		}
		if !isObject(repl) || json.Unmarshal(repl, &r) != nil || r.Content == nil {
			continue
		}
		edits[target] = contextEdit{content: r.Content}
	}
	return edits
}

// apply edits the message m of entry e; nil means the message is omitted.
// Only custom_message entries and user/assistant/toolResult messages are
// editable: others are left alone (validate reports the edit).
func (ed contextEdit) apply(e *Entry, m json.RawMessage) json.RawMessage {
	role := "custom"
	if e.Type == "message" {
		role = e.Role()
		if role != "user" && role != "assistant" && role != "toolResult" {
			return m
		}
	} else if e.Type != "custom_message" {
		return m
	}
	if ed.omit {
		return nil
	}
	content := ed.content
	if s, ok := rawString(content); ok && (role == "assistant" || role == "toolResult") {
		content = json.RawMessage(`[{"type":"text","text":` + string(jsonString(s)) + `}]`)
	}
	edited, err := setMember(m, "content", content)
	if err != nil {
		return m
	}
	return edited
}

// jsTruthy is JavaScript truthiness of a raw JSON value (absent =
// undefined).
func jsTruthy(raw json.RawMessage) bool {
	switch firstByte(raw) {
	case 0, 'n', 'f':
		return false
	case '"':
		s, _ := rawString(raw)
		return s != ""
	case '[', '{', 't':
		return true
	}
	var f float64
	return json.Unmarshal(raw, &f) == nil && f != 0
}
