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
	// (the leading compaction first, system messages of the kept range left
	// out), of every type.
	Entries []*Entry
	Settings
	// Messages equal what pi 1.6.0's buildSessionContext returns.
	Messages []json.RawMessage
	// Sources[i] is the entry that produced Messages[i] (a compaction for
	// its systemMessage, its summary and its retainedTail messages).
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
// buildSessionContext for a session without entries), as pi 1.6.0's
// buildSessionProjection does.
func (s *Session) Context(leaf *Entry) (*Context, error) {
	path, err := s.Path(leaf)
	if err != nil {
		return nil, err
	}
	c := &Context{Leaf: leaf, Path: path, Settings: SettingsOf(path)}
	c.Entries = contextEntries(path)
	edits := latestEdits(c.Entries)
	for i, e := range c.Entries {
		if i > 0 && e.Type == "compaction" {
			continue // an older compaction inside the kept range yields nothing
		}
		msgs := entryMessages(e)
		if edit := edits.of(e); edit != nil {
			msgs = applyEdit(edit, msgs)
		}
		for _, m := range msgs {
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

// contextEntries applies the compaction cut (pi 1.6.0's buildContextEntries):
// with no compaction on the path, the whole path; otherwise the last
// compaction C, then (unless C carries a retainedTail) the path entries from
// C's firstKeptEntryId up to C, leaving out system messages, then everything
// after C. (pi cuts at the first path entry whose id equals C's: C itself,
// since only the last entry of an id can be a parent.)
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
		kept := false
		for _, e := range path[:ci] {
			kept = kept || (firstKept != "" && e.ID == firstKept)
			if kept && e.Role() != "system" {
				out = append(out, e)
			}
		}
	}
	return append(out, path[ci+1:]...)
}

// hasRetainedTail reports whether a compaction is a self-contained
// checkpoint (retainedTail is an array, even an empty one).
func hasRetainedTail(e *Entry) bool {
	return isArray(e.fields["retainedTail"])
}

// entryMessages is pi 1.6.0's sessionEntryToContextMessages: the messages
// an entry puts into the context. A compaction gives its systemMessage
// (when truthy), its summary and then its retainedTail messages; the caller
// asks only the leading compaction.
func entryMessages(e *Entry) []json.RawMessage {
	switch e.Type {
	case "message":
		m, ok := e.fields["message"]
		if !ok {
			return nil // pi throws; we skip it
		}
		return []json.RawMessage{normalizeContent(m)}
	case "custom_message":
		content := e.fields["content"]
		if len(content) == 0 || isNull(content) {
			content = json.RawMessage("[]") // pi: entry.content ?? []
		}
		var w objectWriter
		w.member("role", json.RawMessage(`"custom"`))
		w.member("customType", e.fields["customType"])
		w.member("content", content)
		w.member("display", e.fields["display"])
		w.member("details", e.fields["details"])
		w.member("timestamp", jsDateJSON(e.fields["timestamp"]))
		return []json.RawMessage{w.bytes()}
	case "branch_summary":
		if !jsTruthy(e.fields["summary"]) {
			return nil
		}
		var w objectWriter
		w.member("role", json.RawMessage(`"branchSummary"`))
		w.member("summary", e.fields["summary"])
		w.member("fromId", e.fields["fromId"])
		w.member("timestamp", jsDateJSON(e.fields["timestamp"]))
		return []json.RawMessage{w.bytes()}
	case "compaction":
		var msgs []json.RawMessage
		if sys := e.fields["systemMessage"]; jsTruthy(sys) {
			msgs = append(msgs, sys)
		}
		msgs = append(msgs, compactionSummary(e))
		return append(msgs, retainedTail(e)...)
	}
	return nil
}

// normalizeContent is pi 1.6.0's repair of a message whose content is null
// or absent: "" for a system message, [] for user, assistant and toolResult
// messages. Other messages are returned as stored.
func normalizeContent(m json.RawMessage) json.RawMessage {
	h, ok := headOf(m)
	if !ok || (len(h.Content) > 0 && !isNull(h.Content)) {
		return m
	}
	var empty json.RawMessage
	switch h.Role {
	case "system":
		empty = json.RawMessage(`""`)
	case "user", "assistant", "toolResult":
		empty = json.RawMessage(`[]`)
	default:
		return m
	}
	if edited, err := setMember(m, "content", empty); err == nil {
		return edited
	}
	return m
}

// compactionSummary is the message a leading compaction puts after its
// systemMessage.
func compactionSummary(e *Entry) json.RawMessage {
	var w objectWriter
	w.member("role", json.RawMessage(`"compactionSummary"`))
	w.member("summary", e.fields["summary"])
	w.member("tokensBefore", e.fields["tokensBefore"])
	w.member("timestamp", jsDateJSON(e.fields["timestamp"]))
	return w.bytes()
}

// retainedTail returns a compaction's retainedTail messages (pi 1.6.0 does
// not know the key), content normalised as for message entries.
func retainedTail(e *Entry) []json.RawMessage {
	var tail []json.RawMessage
	if raw := e.fields["retainedTail"]; !isArray(raw) || json.Unmarshal(raw, &tail) != nil {
		return nil
	}
	for i, m := range tail {
		tail[i] = normalizeContent(m)
	}
	return tail
}

// editIndex maps a target id (as jsKey) to the latest context_edit entry
// that names it.
type editIndex map[string]*Entry

// latestEdits indexes the context_edit entries among the context entries:
// per target the last one wins, whatever its replacement (an edit before
// the compaction cut is gone with it).
func latestEdits(entries []*Entry) editIndex {
	edits := editIndex{}
	for _, e := range entries {
		if e.Type != "context_edit" {
			continue
		}
		if key, ok := jsKey(e.fields["targetId"]); ok {
			edits[key] = e
		}
	}
	return edits
}

// of returns the edit that applies to entry e, or nil.
func (edits editIndex) of(e *Entry) *Entry {
	if len(edits) == 0 {
		return nil
	}
	key, ok := jsKey(e.fields["id"])
	if !ok {
		return nil
	}
	return edits[key]
}

// applyEdit is pi 1.6.0's projectContextEntry: replacement null drops every
// message of the entry, whatever its kind; otherwise each user, assistant,
// toolResult and custom message gets replacement.content as its content (a
// string becomes [{type:"text",text}] for assistant and toolResult; no
// content, e.g. a replacement that is not an object, removes the key) and
// other messages stay. An edit without a replacement leaves the messages as
// they are (pi throws on it).
func applyEdit(edit *Entry, msgs []json.RawMessage) []json.RawMessage {
	repl, ok := edit.fields["replacement"]
	if !ok {
		return msgs
	}
	if isNull(repl) {
		return nil
	}
	var content json.RawMessage
	if isObject(repl) {
		content = memberValue(repl, "content")
	}
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		out[i] = editContent(m, content)
	}
	return out
}

// editContent replaces the content of one message if its role is editable;
// a nil content removes the key (JSON of undefined).
func editContent(m, content json.RawMessage) json.RawMessage {
	h, ok := headOf(m)
	if !ok {
		return m
	}
	switch h.Role {
	case "user", "custom":
	case "assistant", "toolResult":
		if s, ok := rawString(content); ok {
			content = json.RawMessage(`[{"type":"text","text":` + string(jsonString(s)) + `}]`)
		}
	default:
		return m
	}
	var edited json.RawMessage
	var err error
	if content == nil {
		edited, err = deleteMember(m, "content")
	} else {
		edited, err = setMember(m, "content", content)
	}
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
