package session

import (
	"fmt"
	"math"
	"strings"

	"github.com/pisess/pisess/internal/parse"
)

// Entry is the typed view of one entry record, read off its Tape by
// ReadEntry: what the checks, the audit and the views look at of an
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
// replacement: null, or an object with a non-null content; anything else
// is ignored, as pi ignores it.
type Replacement struct {
	Kind  ReplacementKind
	Calls []ToolCall // the toolCall blocks of the content
}

// ReplacementKind says what a context edit does to its target.
type ReplacementKind uint8

// The kinds of replacement.
const (
	ReplacementIgnored ReplacementKind = iota // absent, or not one pi applies
	ReplacementOmit                           // null: the message is dropped
	ReplacementContent                        // an object with a content
)

// TextLimit bounds Message.Text: a first message is shown as one short
// line, never whole.
const TextLimit = 1024

// Detail says how much of an entry ReadEntry reads.
type Detail uint8

// The details.
const (
	Links   Detail = iota // what the linkage checks and rule 6 need
	Figures               // also usage, models, names and a user's first text
)

// entryKeys are the nodes of the top-level members ReadEntry looks at.
type entryKeys struct {
	typ, id, parentID, timestamp, message, targetID, fromID, summary int
	firstKeptID, firstKeptIndex, retainedTail, replacement, usage    int
	provider, model, modelID, role, name, title                      int
}

// ReadEntry reads the entry on tape t (node 0) in one walk over its
// members.
func ReadEntry(t *parse.Tape, d Detail) Entry {
	k := entryKeys{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	for key, v := range t.Members(0) {
		switch keyOf(t, key) {
		case "type":
			k.typ = v
		case "id":
			k.id = v
		case "parentId":
			k.parentID = v
		case "timestamp":
			k.timestamp = v
		case "message":
			k.message = v
		case "targetId":
			k.targetID = v
		case "fromId":
			k.fromID = v
		case "summary":
			k.summary = v
		case "firstKeptEntryId":
			k.firstKeptID = v
		case "firstKeptEntryIndex":
			k.firstKeptIndex = v
		case "retainedTail":
			k.retainedTail = v
		case "replacement":
			k.replacement = v
		case "usage":
			k.usage = v
		case "provider":
			k.provider = v
		case "model":
			k.model = v
		case "modelId":
			k.modelID = v
		case "role":
			k.role = v
		case "name":
			k.name = v
		case "title":
			k.title = v
		}
	}
	e := Entry{}
	e.Type, _ = t.Str(k.typ)
	e.ID, e.HasID = t.Str(k.id)
	e.ParentID, e.HasParent = t.Str(k.parentID)
	e.Timestamp, _ = t.Str(k.timestamp)
	switch e.Type {
	case "message":
		e.Message = readMessage(t, k.message, d)
	case "label":
		e.TargetID, e.HasTargetID = t.Str(k.targetID)
	case "context_edit":
		e.TargetID, e.HasTargetID = t.Str(k.targetID)
		e.Replacement = readReplacement(t, k.replacement)
	case "branch_summary":
		e.FromID, e.HasFromID = t.Str(k.fromID)
		e.Summary = truthy(t, k.summary)
	case "compaction":
		e.FirstKeptID, e.HasFirstKeptID = t.Str(k.firstKeptID)
		e.FirstKeptIndex = readKeptIndex(t, k.firstKeptIndex)
		if t.Kind(k.retainedTail) == parse.KindArray {
			e.HasTail = true
			e.Tail = []Message{}
			for m := range t.Elements(k.retainedTail) {
				e.Tail = append(e.Tail, readMessage(t, m, Links))
			}
		}
	}
	if d == Figures {
		switch e.Type {
		case "usage", "model_usage": // model_usage: omp's call outside the transcript
			e.Provider, _ = t.Str(k.provider)
			e.Model, _ = t.Str(k.model)
			e.Usage = readUsage(t, k.usage)
		case "model_change":
			e.Provider, _ = t.Str(k.provider)
			e.Model, _ = t.Str(k.modelID)
			if k.modelID < 0 && k.provider < 0 { // omp's form: model "provider/id"
				e.Model, _ = t.Str(k.model)
				e.ModelRole = readRole(t, k.role)
			}
		case "compaction", "branch_summary":
			e.Usage = readUsage(t, k.usage)
		case "session_info":
			e.Name, _ = t.Str(k.name)
		case "title_change": // omp
			e.Name, _ = t.Str(k.title)
		}
	}
	return e
}

// readRole reads an omp model_change's role at node n as omp keys its
// models by it: "" when absent or null (role ?? "default"), a string as
// it is, any other value as its JSON text (never "default").
func readRole(t *parse.Tape, n int) string {
	switch t.Kind(n) {
	case parse.KindNone, parse.KindNull:
		return ""
	case parse.KindString:
		s, _ := t.Str(n)
		return s
	}
	return string(t.Raw(n))
}

// keyOf returns the key of member key node k; an unescaped key shares the
// input.
func keyOf(t *parse.Tape, k int) string {
	s, _ := t.Str(k)
	return s
}

// readMessage reads the message at node n (the zero Message when n is not
// an object).
func readMessage(t *parse.Tape, n int, d Detail) Message {
	if t.Kind(n) != parse.KindObject {
		return Message{}
	}
	var role, stop, callID, toolName, content, provider, model, usage, at, details = -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
	for key, v := range t.Members(n) {
		switch keyOf(t, key) {
		case "role":
			role = v
		case "stopReason":
			stop = v
		case "toolCallId":
			callID = v
		case "toolName":
			toolName = v
		case "content":
			content = v
		case "provider":
			provider = v
		case "model":
			model = v
		case "usage":
			usage = v
		case "timestamp":
			at = v
		case "details":
			details = v
		}
	}
	m := Message{Present: true}
	m.Role, _ = t.Str(role)
	m.StopReason, _ = t.Str(stop)
	m.ToolCallID, m.HasToolCallID = t.Str(callID)
	m.ToolName, _ = t.Str(toolName)
	if m.Role == "assistant" {
		m.Calls = toolCalls(t, content)
	}
	if d == Figures {
		m.Provider, _ = t.Str(provider)
		m.Model, _ = t.Str(model)
		m.Usage = readUsage(t, usage)
		if ms, ok := integer(t, at); ok && ms > 0 {
			m.Millis = ms
		}
		switch {
		case m.Role == "user":
			m.Text = firstText(t, content)
		case m.Role == "toolResult" && m.ToolName == "task":
			m.TaskUsage = readUsage(t, t.Get(details, "usage"))
		}
	}
	return m
}

// toolCalls lists the toolCall blocks of a content array at node n.
func toolCalls(t *parse.Tape, n int) []ToolCall {
	var calls []ToolCall
	for b := range t.Elements(n) {
		if t.StrOf(b, "type") == "toolCall" {
			calls = append(calls, ToolCall{ID: t.StrOf(b, "id"), Name: t.StrOf(b, "name")})
		}
	}
	return calls
}

// firstText returns a content's text: the string itself, or the first
// text block whose text is not blank; at most TextLimit bytes of it.
func firstText(t *parse.Tape, content int) string {
	switch t.Kind(content) {
	case parse.KindString:
		return t.StrPrefix(content, TextLimit)
	case parse.KindArray:
		for b := range t.Elements(content) {
			if t.StrOf(b, "type") != "text" {
				continue
			}
			text := t.Get(b, "text")
			if t.Kind(text) == parse.KindString && !blank(t, text) {
				return t.StrPrefix(text, TextLimit)
			}
		}
	}
	return ""
}

// blank reports whether string node n is only white space.
func blank(t *parse.Tape, n int) bool {
	if strings.TrimSpace(t.StrPrefix(n, TextLimit)) != "" {
		return false
	}
	s, _ := t.Str(n) // rare: a long run of white space
	return strings.TrimSpace(s) == ""
}

// readReplacement reads a context edit's replacement at node n.
func readReplacement(t *parse.Tape, n int) Replacement {
	switch t.Kind(n) {
	case parse.KindNull:
		return Replacement{Kind: ReplacementOmit}
	case parse.KindObject:
		content := t.Get(n, "content")
		if k := t.Kind(content); k == parse.KindNone || k == parse.KindNull {
			return Replacement{}
		}
		return Replacement{Kind: ReplacementContent, Calls: toolCalls(t, content)}
	}
	return Replacement{}
}

// readKeptIndex reads firstKeptEntryIndex at node n as pi does: a
// number as JSON.parse reads it (pi takes entries[index], so 7.0 and 7e0
// are 7).
func readKeptIndex(t *parse.Tape, n int) KeptIndex {
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
func readUsage(t *parse.Tape, n int) Usage {
	if t.Kind(n) != parse.KindObject {
		return Usage{}
	}
	u := Usage{Present: true}
	for key, v := range t.Members(n) {
		switch keyOf(t, key) {
		case "input":
			u.Input, _ = integer(t, v)
		case "output":
			u.Output, _ = integer(t, v)
		case "cacheRead":
			u.CacheRead, _ = integer(t, v)
		case "cacheWrite":
			u.CacheWrite, _ = integer(t, v)
		case "totalTokens":
			u.TotalTokens, u.HasTotalTokens = integer(t, v)
		case "cost":
			u.Cost, u.HasCost = finite(t, t.Get(v, "total"))
		}
	}
	return u
}

// integer reads a JSON number as an integer, a fraction rounded; ok is
// false for anything else and for numbers out of the int64 range.
func integer(t *parse.Tape, n int) (int64, bool) {
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
func finite(t *parse.Tape, n int) (float64, bool) {
	f, ok := t.Float(n) // ±Inf out of range; never NaN
	if !ok || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// truthy is JavaScript truthiness of the value at node n.
func truthy(t *parse.Tape, n int) bool { return JSTruthy(t.Raw(n)) }
