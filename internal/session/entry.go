package session

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Entry is the typed view of one entry record, read off its Tape by
// Entry.Read: what the checks, the audit and the views look at of an
// entry, never its content. Each key is read as JSON.parse would read it
// (the last of duplicate keys counts); a value of the wrong kind reads as
// absent. Strings share the Tape's input: clone what outlives it.
type Entry struct {
	Type      string
	ID        string
	HasID     bool // id is a string
	ParentID  string
	HasParent bool // parentId is a string (not null, not absent)
	Timestamp string

	Message Message // a message entry's message

	TargetID    string // label, context_edit
	HasTargetID bool
	FromID      string // branch_summary
	HasFromID   bool
	Summary     bool // branch_summary: summary is truthy

	FirstKeptID    string // compaction (versions 2 and 3)
	HasFirstKeptID bool
	FirstKeptIndex KeptIndex // compaction (version 1)
	HasTail        bool      // compaction: retainedTail is an array
	Tail           []Message // its elements (the zero Message for a non-object)

	Replacement Replacement // context_edit

	// Figures, read with Detail Figures: what the audit counts.
	Usage    Usage  // usage, model_usage (omp), compaction and branch_summary entries
	Provider string // usage, model_usage, model_change
	Model    string // usage, model_usage: model; model_change: modelId (omp: model, "provider/id")
	// ModelRole is an omp model_change's role ("" when absent or null,
	// which omp reads as "default": role ?? "default"); pi's form
	// (provider, modelId) has none.
	ModelRole string
	Name      string // session_info: name; omp's title_change: title
	// At is the timestamp as time.RFC3339Nano reads it (the zero time when
	// absent or unreadable), parsed here, on the cores that read the
	// entries, rather than in file order where the audit keeps them.
	At time.Time
}

// SetsDefaultModel reports whether a model_change sets the model in use:
// pi's always does; omp's sets only its role's model (models[role]), and
// that is the one in use only for the default role (docs/omp.md).
func (e *Entry) SetsDefaultModel() bool {
	return e.ModelRole == "" || e.ModelRole == "default"
}

// Message is the typed view of an AgentMessage.
type Message struct {
	Present       bool // the message is an object
	Role          string
	StopReason    string
	ToolCallID    string
	HasToolCallID bool
	ToolName      string
	Calls         []ToolCall // an assistant's toolCall blocks

	// Figures (Detail Figures).
	Provider, Model string
	Usage           Usage
	// TaskUsage is details.usage of a toolResult of the tool "task": omp's
	// subagents' usage, which omp's own statistics count (docs/omp.md).
	TaskUsage Usage
	Millis    int64  // timestamp in Unix milliseconds, 0 when absent or not positive
	Text      string // a user message's first non-blank text, at most TextLimit bytes
}

// Usage is the typed view of a usage record.
type Usage struct {
	Present                              bool  // the usage is an object
	Input, Output, CacheRead, CacheWrite int64 // 0 when not a number
	TotalTokens                          int64
	HasTotalTokens                       bool
	Cost                                 float64 // cost.total
	HasCost                              bool    // cost.total is a finite number
}

// KeptIndex is a version-1 compaction's firstKeptEntryIndex.
type KeptIndex struct {
	Present bool
	N       int64
	IsInt   bool   // N holds the value: a whole number as JSON.parse reads it (7.0 is 7), in the int64 range
	Text    string // the value as fmt's %v prints it decoded, clipped (Clip)
}

// Replacement is what the projection reads of a context edit's
// replacement (EditOn says what it does): absent, null, or anything else,
// whose content (replacement.content, undefined for a value that is not an
// object) becomes the content of the messages it edits.
type Replacement struct {
	Kind  ReplacementKind
	Calls []ToolCall // the toolCall blocks of the content
}

// ReplacementKind says what a context edit does to its target.
type ReplacementKind uint8

// The kinds of replacement.
const (
	ReplacementAbsent  ReplacementKind = iota // no replacement: pi throws; the target stays as stored
	ReplacementOmit                           // null: the target's messages are dropped
	ReplacementContent                        // any other value: its content replaces theirs
)

// TextLimit bounds Message.Text: a first message is shown as one short
// line, never whole.
const TextLimit = 1024

// Detail says how much of an entry Entry.Read reads.
type Detail uint8

// The details.
const (
	Links   Detail = iota // what the linkage checks and rule 6 need
	Figures               // also usage, models, names and a user's first text
)

// The keys the readers of this file look at, by their number in
// EntryKeys: each member's key is matched once, as a number (by the Tape
// itself when it was built with EntryKeys or a set that extends it), not
// compared with every name it could be.
const (
	keyType = 1 + iota
	keyID
	keyParentID
	keyTimestamp
	keyMessage
	keyTargetID
	keyFromID
	keySummary
	keyFirstKeptID
	keyFirstKeptIndex
	keyRetainedTail
	keyReplacement
	keyUsage
	keyProvider
	keyModel
	keyModelID
	keyRole
	keyName
	keyTitle
	keyStopReason
	keyToolCallID
	keyToolName
	keyContent
	keyDetails
	keyText
	keyInput
	keyOutput
	keyCacheRead
	keyCacheWrite
	keyTotalTokens
	keyCost
	keyTotal
)

// entryKeyNames are the names of the key numbers, in their order.
var entryKeyNames = [...]string{
	"type", "id", "parentId", "timestamp", "message", "targetId", "fromId", "summary",
	"firstKeptEntryId", "firstKeptEntryIndex", "retainedTail", "replacement", "usage",
	"provider", "model", "modelId", "role", "name", "title", "stopReason", "toolCallId",
	"toolName", "content", "details", "text", "input", "output", "cacheRead", "cacheWrite",
	"totalTokens", "cost", "total",
}

var entryKeys = NewKeys(nil, entryKeyNames[:]...)

// EntryKeys is the set of keys Entry.Read reads. A Tape built with it (or
// with a set that extends it: session.NewKeys) hands Entry.Read its keys as
// numbers; any other tape is read the same, its keys looked up.
func EntryKeys() *Keys { return entryKeys }

// tape is the tape of the entry being read, with the set its keys are
// numbered in: the tape's own when it was built with EntryKeys or a set
// that extends it (a key's number is then one load; the numbers past
// EntryKeys' are keys no reader here asks for), else EntryKeys, each key
// looked up.
type tape struct {
	*Tape
	keys *Keys
}

func numbered(t *Tape) tape {
	if t.Keys().Extends(entryKeys) {
		return tape{t, t.Keys()}
	}
	return tape{t, entryKeys}
}

// key returns the number of member key node k: one of the key constants
// for the keys the readers look at.
func (t tape) key(k int) int { return t.KeyNumber(t.keys, k) }

// member returns the value node of the last member of object obj whose
// key is numbered key, or -1: Tape.Get by number.
func (t tape) member(obj, key int) int {
	if t.Kind(obj) != KindObject {
		return -1
	}
	found := -1
	for k, v := range t.Members(obj) {
		if t.key(k) == key {
			found = v
		}
	}
	return found
}

// members holds the value nodes of an object's members by their key
// numbers, each + 1 (0: none): membersOf fills it in one walk.
type members [keyTotal + 1]int

// membersOf returns the members of object obj (none when it is not an
// object), the last of duplicate keys counting, as in JSON.parse.
func (t tape) membersOf(obj int) (m members) {
	for k, v := range t.Members(obj) {
		if n := t.key(k); n < len(m) {
			m[n] = v + 1
		}
	}
	return m
}

// at returns the value node of the member named key, or -1.
func (m *members) at(key int) int { return m[key] - 1 }

// Read sets e to the entry on tape t (node 0), read in one walk over its
// members, in place: the callers keep entries where they lie.
func (e *Entry) Read(pt *Tape, d Detail) {
	*e = Entry{}
	t := numbered(pt)
	k := t.membersOf(0)
	e.Type, _ = t.Str(k.at(keyType))
	e.ID, e.HasID = t.Str(k.at(keyID))
	e.ParentID, e.HasParent = t.Str(k.at(keyParentID))
	e.Timestamp, _ = t.Str(k.at(keyTimestamp))
	switch e.Type {
	case "message":
		readMessage(&e.Message, t, k.at(keyMessage), d)
	case "label":
		e.TargetID, e.HasTargetID = t.Str(k.at(keyTargetID))
	case "context_edit":
		e.TargetID, e.HasTargetID = t.Str(k.at(keyTargetID))
		e.Replacement = readReplacement(t, k.at(keyReplacement))
	case "branch_summary":
		e.FromID, e.HasFromID = t.Str(k.at(keyFromID))
		e.Summary = JSTruthy(t.Raw(k.at(keySummary)))
	case "compaction":
		e.FirstKeptID, e.HasFirstKeptID = t.Str(k.at(keyFirstKeptID))
		e.FirstKeptIndex = readKeptIndex(t.Tape, k.at(keyFirstKeptIndex))
		if t.Kind(k.at(keyRetainedTail)) == KindArray {
			e.HasTail = true
			e.Tail = []Message{}
			for m := range t.Elements(k.at(keyRetainedTail)) {
				e.Tail = append(e.Tail, Message{})
				readMessage(&e.Tail[len(e.Tail)-1], t, m, Links)
			}
		}
	}
	if d == Figures {
		e.At = readTime(e.Timestamp)
		switch e.Type {
		case "usage", "model_usage": // model_usage: omp's call outside the transcript
			e.Provider, _ = t.Str(k.at(keyProvider))
			e.Model, _ = t.Str(k.at(keyModel))
			e.Usage = readUsage(t, k.at(keyUsage))
		case "model_change":
			e.Provider, _ = t.Str(k.at(keyProvider))
			e.Model, _ = t.Str(k.at(keyModelID))
			if k.at(keyModelID) < 0 && k.at(keyProvider) < 0 { // omp's form: model "provider/id"
				e.Model, _ = t.Str(k.at(keyModel))
				e.ModelRole = readRole(t.Tape, k.at(keyRole))
			}
		case "compaction", "branch_summary":
			e.Usage = readUsage(t, k.at(keyUsage))
		case "session_info":
			e.Name, _ = t.Str(k.at(keyName))
		case "title_change": // omp
			e.Name, _ = t.Str(k.at(keyTitle))
		}
	}
}

// readRole reads an omp model_change's role at node n as omp keys its
// models by it: "" when absent or null (role ?? "default"), a string as
// it is, any other value as its JSON text (never "default").
func readRole(t *Tape, n int) string {
	switch t.Kind(n) {
	case KindNone, KindNull:
		return ""
	case KindString:
		s, _ := t.Str(n)
		return s
	}
	return string(t.Raw(n))
}

// readMessage sets m to the message at node n (the zero Message when n is
// not an object).
func readMessage(m *Message, t tape, n int, d Detail) {
	if t.Kind(n) != KindObject {
		return
	}
	k := t.membersOf(n)
	m.Present = true
	m.Role, _ = t.Str(k.at(keyRole))
	m.StopReason, _ = t.Str(k.at(keyStopReason))
	m.ToolCallID, m.HasToolCallID = t.Str(k.at(keyToolCallID))
	m.ToolName, _ = t.Str(k.at(keyToolName))
	if m.Role == "assistant" {
		m.Calls = toolCalls(t, k.at(keyContent))
	}
	if d == Figures {
		m.Provider, _ = t.Str(k.at(keyProvider))
		m.Model, _ = t.Str(k.at(keyModel))
		m.Usage = readUsage(t, k.at(keyUsage))
		if ms, ok := integer(t.Tape, k.at(keyTimestamp)); ok && ms > 0 {
			m.Millis = ms
		}
		switch {
		case m.Role == "user":
			m.Text = firstText(t, k.at(keyContent))
		case m.Role == "toolResult" && m.ToolName == "task":
			m.TaskUsage = readUsage(t, t.member(k.at(keyDetails), keyUsage))
		}
	}
}

// toolCalls lists the toolCall blocks of a content array at node n.
func toolCalls(t tape, n int) []ToolCall {
	var calls []ToolCall
	for b := range t.Elements(n) {
		if t.Kind(b) != KindObject {
			continue
		}
		k := t.membersOf(b)
		if s, _ := t.Str(k.at(keyType)); s == "toolCall" {
			call := ToolCall{}
			call.ID, _ = t.Str(k.at(keyID))
			call.Name, _ = t.Str(k.at(keyName))
			calls = append(calls, call)
		}
	}
	return calls
}

// firstText returns a content's text: the string itself, or the first
// text block whose text is not blank; at most TextLimit bytes of it.
func firstText(t tape, content int) string {
	switch t.Kind(content) {
	case KindString:
		return t.StrPrefix(content, TextLimit)
	case KindArray:
		for b := range t.Elements(content) {
			if typ, _ := t.Str(t.member(b, keyType)); typ != "text" {
				continue
			}
			text := t.member(b, keyText)
			if t.Kind(text) == KindString && !blank(t.Tape, text) {
				return t.StrPrefix(text, TextLimit)
			}
		}
	}
	return ""
}

// blank reports whether string node n is only white space.
func blank(t *Tape, n int) bool {
	if strings.TrimSpace(t.StrPrefix(n, TextLimit)) != "" {
		return false
	}
	s, _ := t.Str(n) // rare: a long run of white space
	return strings.TrimSpace(s) == ""
}

// readReplacement reads a context edit's replacement at node n.
func readReplacement(t tape, n int) Replacement {
	r := Replacement{Kind: ReplacementOf(t.Kind(n))}
	if r.Kind == ReplacementContent {
		r.Calls = toolCalls(t, t.member(n, keyContent))
	}
	return r
}

// readKeptIndex reads firstKeptEntryIndex at node n as pi does: a
// number as JSON.parse reads it (pi takes entries[index], so 7.0 and 7e0
// are 7).
func readKeptIndex(t *Tape, n int) KeptIndex {
	if n < 0 {
		return KeptIndex{}
	}
	i, err := t.Int(n)
	if f, ok := finite(t, n); err != nil && ok && f == math.Trunc(f) && math.Abs(f) < math.MaxInt64 {
		i, err = int64(f), nil
	}
	return KeptIndex{Present: true, N: i, IsInt: err == nil, Text: Clip(fmt.Sprint(t.Value(n)))}
}

// readUsage reads the usage record at node n.
func readUsage(t tape, n int) Usage {
	if t.Kind(n) != KindObject {
		return Usage{}
	}
	u := Usage{Present: true}
	for key, v := range t.Members(n) {
		switch t.key(key) {
		case keyInput:
			u.Input, _ = integer(t.Tape, v)
		case keyOutput:
			u.Output, _ = integer(t.Tape, v)
		case keyCacheRead:
			u.CacheRead, _ = integer(t.Tape, v)
		case keyCacheWrite:
			u.CacheWrite, _ = integer(t.Tape, v)
		case keyTotalTokens:
			u.TotalTokens, u.HasTotalTokens = integer(t.Tape, v)
		case keyCost:
			u.Cost, u.HasCost = finite(t.Tape, t.member(v, keyTotal))
		}
	}
	return u
}

// integer reads a JSON number as an integer, a fraction rounded; ok is
// false for anything else and for numbers out of the int64 range.
func integer(t *Tape, n int) (int64, bool) {
	if t.Kind(n) != KindNumber {
		return 0, false
	}
	if i, err := t.Int(n); err == nil {
		return i, true
	}
	f, ok := finite(t, n)
	if !ok || f > math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(math.Round(f)), true
}

// finite reads a JSON number that a float64 holds (encoding/json's
// Number.Float64: out of range either way is not a number).
func finite(t *Tape, n int) (float64, bool) {
	f, ok := t.Float(n) // ±Inf out of range; never NaN
	if !ok || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
