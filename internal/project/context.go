package project

import (
	"encoding/json"

	"github.com/pisess/pisess/internal/session"
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
	// Models is omp's model per role (omp.go), default first; nil in pi
	// files. Model is then the default's, split at its first "/".
	Models []RoleModel
}

// ThinkingLevelName returns the thinking level as a string.
func (s Settings) ThinkingLevelName() string {
	name, _ := rawString(s.ThinkingLevel)
	return name
}

// settingsOf folds the settings over a path: thinkingLevel starts "off" and
// each thinking_level_change overrides it; the model starts null and each
// model_change and each assistant message overrides it. Only the last of
// each counts, so it reads the path backwards and reads back only the two
// records that decide.
func (s *Session) settingsOf(path []*Entry) (Settings, error) {
	st := Settings{ThinkingLevel: json.RawMessage(`"off"`)}
	thinking, model := false, false
	for i := len(path) - 1; i >= 0 && !(thinking && model); i-- {
		e := path[i]
		switch {
		case e.Type() == "thinking_level_change" && !thinking:
			r, err := s.Read(e)
			if err != nil {
				return st, err
			}
			st.ThinkingLevel, thinking = r.Raw("thinkingLevel"), true
		case e.Type() == "model_change" && !model:
			r, err := s.Read(e)
			if err != nil {
				return st, err
			}
			st.Model, model = &Model{Provider: r.Raw("provider"), ModelID: r.Raw("modelId")}, true
		case e.Role() == "assistant" && !model:
			r, err := s.Read(e)
			if err != nil {
				return st, err
			}
			t, msg := &r.Tape, r.Member("message")
			st.Model, model = &Model{Provider: copyRaw(t.Raw(t.Get(msg, "provider"))), ModelID: copyRaw(t.Raw(t.Get(msg, "model")))}, true
		}
	}
	return st, nil
}

func copyRaw(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
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
	// Reset is, in an omp file, the /clear (reset_boundary) the context
	// starts after; nil otherwise.
	Reset *Entry
}

// EntryIDs returns the id of the entry behind each message.
func (c *Context) EntryIDs() []string {
	ids := make([]string, len(c.Sources))
	for i, e := range c.Sources {
		ids[i] = e.ID()
	}
	return ids
}

// Context projects the context of leaf (nil leaf: empty context, as pi's
// buildSessionContext for a session without entries), as pi 1.6.0's
// buildSessionProjection does. It reads back only the records of the
// context entries and the few that decide the settings and the cut.
func (s *Session) Context(leaf *Entry) (*Context, error) {
	if s.Dialect == session.Omp {
		return s.ompContext(leaf) // omp's own builder (omp.go)
	}
	var msgs []json.RawMessage
	var sources []*Entry
	c, err := s.EachMessage(leaf, func(m json.RawMessage, e *Entry) error {
		msgs, sources = append(msgs, m), append(sources, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.Messages, c.Sources = msgs, sources
	c.Unpaired = CheckToolPairs(c.Messages, c.Sources)
	return c, nil
}

// EachMessage projects the context of leaf as Context does, but hands
// each message to each, with the entry that produced it, as it is read,
// instead of keeping them: its memory is one record, not the context
// (an oh-my-pi session's context is built whole first). The Context it
// returns has no Messages, Sources or Unpaired. An error of each stops the
// walk and is returned.
func (s *Session) EachMessage(leaf *Entry, each func(m json.RawMessage, src *Entry) error) (*Context, error) {
	if s.Dialect == session.Omp {
		c, err := s.ompContext(leaf)
		if err != nil {
			return nil, err
		}
		for i, m := range c.Messages {
			if err := each(m, c.Sources[i]); err != nil {
				return nil, err
			}
		}
		c.Messages, c.Sources, c.Unpaired = nil, nil, nil
		return c, nil
	}
	path, err := s.Path(leaf)
	if err != nil {
		return nil, err
	}
	c := &Context{Leaf: leaf, Path: path}
	if c.Settings, err = s.settingsOf(path); err != nil {
		return nil, err
	}
	if c.Entries, err = s.contextEntries(path); err != nil {
		return nil, err
	}
	edits, err := s.latestEdits(c.Entries)
	if err != nil {
		return nil, err
	}
	rd := s.Records()
	for i, e := range c.Entries {
		if i > 0 && e.Type() == "compaction" {
			continue // an older compaction inside the kept range yields nothing
		}
		r, err := rd.Read(e)
		if err != nil {
			return nil, err
		}
		msgs := entryMessages(r)
		if edit := edits.of(r); edit != nil {
			msgs = applyEdit(edit, msgs)
		}
		for _, m := range msgs {
			if err := each(m, e); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// contextEntries applies the compaction cut (pi 1.6.0's buildContextEntries):
// with no compaction on the path, the whole path; otherwise the last
// compaction C, then (unless C carries a retainedTail) the path entries from
// C's firstKeptEntryId up to C, leaving out system messages, then everything
// after C. (pi cuts at the first path entry whose id equals C's: C itself,
// since only the last entry of an id can be a parent.)
func (s *Session) contextEntries(path []*Entry) ([]*Entry, error) {
	ci := -1
	for i, e := range path {
		if e.Type() == "compaction" {
			ci = i
		}
	}
	if ci < 0 {
		return path, nil
	}
	c, err := s.Read(path[ci])
	if err != nil {
		return nil, err
	}
	out := []*Entry{path[ci]}
	if !hasRetainedTail(c) {
		firstKept := c.Str("firstKeptEntryId")
		kept := false
		for _, e := range path[:ci] {
			kept = kept || (firstKept != "" && e.ID() == firstKept)
			if kept && e.Role() != "system" {
				out = append(out, e)
			}
		}
	}
	return append(out, path[ci+1:]...), nil
}

// hasRetainedTail reports whether a compaction is a self-contained
// checkpoint (retainedTail is an array, even an empty one).
func hasRetainedTail(r *Record) bool {
	return r.Tape.Kind(r.Member("retainedTail")) == session.KindArray
}

// entryMessages is pi 1.6.0's sessionEntryToContextMessages: the messages
// an entry puts into the context. A compaction gives its systemMessage
// (when truthy), its summary and then its retainedTail messages; the caller
// asks only the leading compaction.
func entryMessages(r *Record) []json.RawMessage {
	switch r.Entry.Type() {
	case "message":
		m := r.Raw("message")
		if m == nil {
			return nil // pi throws; we skip it
		}
		return []json.RawMessage{normalizeContent(m)}
	case "custom_message":
		content := r.Raw("content")
		if content == nil || isNull(content) {
			content = json.RawMessage("[]") // pi: entry.content ?? []
		}
		var w session.ObjectWriter
		w.Member("role", []byte(`"custom"`))
		w.Member("customType", r.Raw("customType"))
		w.Member("content", content)
		w.Member("display", r.Raw("display"))
		w.Member("details", r.Raw("details"))
		w.Member("timestamp", jsDateJSON(r.Raw("timestamp")))
		return []json.RawMessage{w.Bytes()}
	case "branch_summary":
		if !session.JSTruthy(r.Raw("summary")) {
			return nil
		}
		var w session.ObjectWriter
		w.Member("role", []byte(`"branchSummary"`))
		w.Member("summary", r.Raw("summary"))
		w.Member("fromId", r.Raw("fromId"))
		w.Member("timestamp", jsDateJSON(r.Raw("timestamp")))
		return []json.RawMessage{w.Bytes()}
	case "compaction":
		var msgs []json.RawMessage
		if sys := r.Raw("systemMessage"); session.JSTruthy(sys) {
			msgs = append(msgs, sys)
		}
		msgs = append(msgs, compactionSummary(r))
		return append(msgs, retainedTail(r)...)
	}
	return nil
}

// normalizeContent is pi 1.6.0's repair of a message whose content is null
// or absent: "" for a system message, [] for user, assistant and toolResult
// messages. Other messages are returned as stored.
func normalizeContent(m json.RawMessage) json.RawMessage {
	t, ok := tapeOf(m)
	if !ok {
		return m
	}
	if content := t.Get(0, "content"); content >= 0 && t.Kind(content) != session.KindNull {
		return m
	}
	switch t.StrOf(0, "role") {
	case "system":
		return setMember(t, "content", []byte(`""`))
	case "user", "assistant", "toolResult":
		return setMember(t, "content", []byte(`[]`))
	}
	return m
}

// compactionSummary is the message a leading compaction puts after its
// systemMessage.
func compactionSummary(r *Record) json.RawMessage {
	var w session.ObjectWriter
	w.Member("role", []byte(`"compactionSummary"`))
	w.Member("summary", r.Raw("summary"))
	w.Member("tokensBefore", r.Raw("tokensBefore"))
	w.Member("timestamp", jsDateJSON(r.Raw("timestamp")))
	return w.Bytes()
}

// retainedTail returns a compaction's retainedTail messages (pi 1.6.0 does
// not know the key), content normalised as for message entries.
func retainedTail(r *Record) []json.RawMessage {
	var tail []json.RawMessage
	for el := range r.Tape.Elements(r.Member("retainedTail")) {
		tail = append(tail, normalizeContent(copyRaw(r.Tape.Raw(el))))
	}
	return tail
}

// editIndex maps a target id (as jsKey) to the latest context_edit record
// that names it.
type editIndex map[string]*Record

// latestEdits indexes the context_edit entries among the context entries:
// per target the last one wins, whatever its replacement (an edit before
// the compaction cut is gone with it).
func (s *Session) latestEdits(entries []*Entry) (editIndex, error) {
	edits := editIndex{}
	for _, e := range entries {
		if e.Type() != "context_edit" {
			continue
		}
		r, err := s.Read(e)
		if err != nil {
			return nil, err
		}
		if key, ok := jsKey(r.Tape.Raw(r.Member("targetId"))); ok {
			edits[key] = r
		}
	}
	return edits, nil
}

// of returns the edit that applies to the entry on record r, or nil.
func (edits editIndex) of(r *Record) *Record {
	if len(edits) == 0 {
		return nil
	}
	key, ok := jsKey(r.Tape.Raw(r.Member("id")))
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
func applyEdit(edit *Record, msgs []json.RawMessage) []json.RawMessage {
	t, repl := &edit.Tape, edit.Member("replacement")
	switch t.Kind(repl) {
	case session.KindNone:
		return msgs
	case session.KindNull:
		return nil
	}
	content := copyRaw(t.Raw(t.Get(repl, "content")))
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		out[i] = editContent(m, content)
	}
	return out
}

// editContent replaces the content of one message if its role is editable;
// a nil content removes the key (JSON of undefined).
func editContent(m, content json.RawMessage) json.RawMessage {
	t, ok := tapeOf(m)
	if !ok {
		return m
	}
	switch t.StrOf(0, "role") {
	case "user", "custom":
	case "assistant", "toolResult":
		if s, ok := rawString(content); ok {
			content = json.RawMessage(`[{"type":"text","text":` + string(session.Quote(s)) + `}]`)
		}
	default:
		return m
	}
	return setMember(t, "content", content) // nil deletes it
}
