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
		yield := session.Yields(i, e.Type())
		if yield == session.YieldsNothing {
			continue // an older compaction inside the kept range, a label, ...
		}
		r, err := rd.Read(e)
		if err != nil {
			return nil, err
		}
		msgs := entryMessages(r, yield)
		if edit := edits.of(r); edit != nil {
			er, err := s.Read(edit)
			if err != nil {
				return nil, err
			}
			msgs = applyEdit(er, msgs)
		}
		for _, m := range msgs {
			if err := each(m, e); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// contextEntries applies the compaction cut (session.ContextEntries, pi
// 1.6.0's buildContextEntries) to a path. It reads back the record of the
// last compaction only.
func (s *Session) contextEntries(path []*Entry) ([]*Entry, error) {
	var ix contextIndex
	if ci := session.LastOf(path, ix, "compaction"); ci >= 0 {
		c, err := s.Read(path[ci])
		if err != nil {
			return nil, err
		}
		ix = contextIndex{firstKept: c.Str("firstKeptEntryId"), retainedTail: hasRetainedTail(c)}
	}
	return session.ContextEntries(path, ix, false), nil
}

// contextIndex is a session's entries as the projection reads them
// (session.ContextIndex); the cut asks about one compaction, the last on
// the path, whose firstKeptEntryId and retainedTail it holds. pi cuts at
// the first path entry whose id equals C's firstKeptEntryId.
type contextIndex struct {
	firstKept    string
	retainedTail bool
}

func (contextIndex) Type(e *Entry) string { return e.Type() }
func (contextIndex) Role(e *Entry) string { return e.Role() }

func (ix contextIndex) KeptStart(_, e *Entry) bool {
	return ix.firstKept != "" && e.ID() == ix.firstKept
}

func (ix contextIndex) RetainedTail(*Entry) bool { return ix.retainedTail }

// hasRetainedTail reports whether a compaction is a self-contained
// checkpoint (retainedTail is an array, even an empty one).
func hasRetainedTail(r *Record) bool {
	return r.Tape.Kind(r.Member("retainedTail")) == session.KindArray
}

// entryMessages is pi 1.6.0's sessionEntryToContextMessages: the messages
// a context entry puts into the context, as session.Yields says. The
// compaction that opens the context gives its systemMessage (when truthy),
// its summary and then its retainedTail messages.
func entryMessages(r *Record, yield session.Yield) []json.RawMessage {
	if yield == session.YieldsCheckpoint {
		return checkpoint(r)
	}
	typ, m := r.Entry.Type(), r.Raw("message")
	if !session.HasMessage(typ, m != nil, session.JSTruthy(r.Raw("summary"))) {
		return nil // a message entry without one: pi throws; we skip it
	}
	switch typ {
	case "message":
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
		var w session.ObjectWriter
		w.Member("role", []byte(`"branchSummary"`))
		w.Member("summary", r.Raw("summary"))
		w.Member("fromId", r.Raw("fromId"))
		w.Member("timestamp", jsDateJSON(r.Raw("timestamp")))
		return []json.RawMessage{w.Bytes()}
	}
	return nil
}

// checkpoint is the messages of the compaction that opens the context.
func checkpoint(r *Record) []json.RawMessage {
	var msgs []json.RawMessage
	if sys := r.Raw("systemMessage"); session.JSTruthy(sys) {
		msgs = append(msgs, sys)
	}
	msgs = append(msgs, compactionSummary(r))
	return append(msgs, retainedTail(r)...)
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

// editIndex maps a target id (as jsKey) to the context edit that wins for
// it (session.LatestEdits).
type editIndex map[string]*Entry

// latestEdits indexes the context_edit entries among the context entries
// by their targetId (session.LatestEdits: the last one wins).
func (s *Session) latestEdits(entries []*Entry) (editIndex, error) {
	var err error
	edits := session.LatestEdits(entries, contextIndex{}, func(e *Entry) (string, bool) {
		r, rerr := s.Read(e)
		if rerr != nil {
			err = rerr
			return "", false
		}
		return jsKey(r.Tape.Raw(r.Member("targetId")))
	})
	return edits, err
}

// of returns the edit that applies to the entry on record r, or nil.
func (edits editIndex) of(r *Record) *Entry {
	if len(edits) == 0 {
		return nil
	}
	key, ok := jsKey(r.Tape.Raw(r.Member("id")))
	if !ok {
		return nil
	}
	return edits[key]
}

// applyEdit is pi 1.6.0's projectContextEntry: what the edit does to
// each message of its target is session.EditOn's; a replacement's content
// is replacement.content (a string becomes [{type:"text",text}] for
// assistant and toolResult; no content, e.g. a replacement that is not an
// object, removes the key).
func applyEdit(edit *Record, msgs []json.RawMessage) []json.RawMessage {
	t, repl := &edit.Tape, edit.Member("replacement")
	kind := session.ReplacementOf(t.Kind(repl))
	content := copyRaw(t.Raw(t.Get(repl, "content")))
	var out []json.RawMessage
	for _, m := range msgs {
		t, ok := tapeOf(m)
		role := ""
		if ok {
			role = t.StrOf(0, "role")
		}
		switch session.EditOn(kind, role) {
		case session.EditKeeps:
			out = append(out, m)
		case session.EditReplaces:
			out = append(out, editContent(t, content))
		}
	}
	return out
}

// editContent gives a message (on its tape) the content of an edit's
// replacement; a nil content removes the key (JSON of undefined).
func editContent(t *session.Tape, content json.RawMessage) json.RawMessage {
	switch t.StrOf(0, "role") {
	case "assistant", "toolResult":
		if s, ok := rawString(content); ok {
			content = json.RawMessage(`[{"type":"text","text":` + string(session.Quote(s)) + `}]`)
		}
	}
	return setMember(t, "content", content) // nil deletes it
}
