package project

// The oh-my-pi dialect (docs/omp.md). An omp file is pi's tree with a
// 256-byte title slot on line 1 (no record: the index skips it and the
// header is line 2) and entry types of its own. Its context is built as
// omp 18's buildSessionContext (src/session/session-context.ts) builds it,
// not as pi's: settings per model role, /clear, omp's compaction summary,
// error turns and dangling tool calls dropped. The conformance test
// (omp_conformance_test.go) holds this to omp's own code.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/pisess/pisess/internal/session"
)

// titleSlotFacts are the facts of omp's title slot: no record, but the
// index keeps its bytes.
func titleSlotFacts(l scanLine, raw []byte) facts {
	return facts{line: l.num, titleSlot: true, offset: l.offset, size: int32(len(raw)), header: bytes.Clone(raw)}
}

// sniffDialect tells the dialect of a file without a title slot from its
// first lines, as validate does (session.SniffDialect: omp's entry types and
// fields, for files of older omp).
func (s *Session) sniffDialect() error {
	if s.Dialect != "" {
		return nil
	}
	prefix := make([]byte, session.SniffBytes)
	n, err := s.src.ReadAt(prefix, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	s.Dialect = session.SniffDialect(prefix[:n])
	return nil
}

// RoleModel is one of omp's model roles: "default", "smol", "slow", ...
// and the model a model_change set for it ("provider/id", raw JSON).
type RoleModel struct {
	Role  string
	Model json.RawMessage
}

// ModelNames returns omp's models as role → "provider/id" strings.
func (s Settings) ModelNames() map[string]string {
	out := make(map[string]string, len(s.Models))
	for _, m := range s.Models {
		out[m.Role] = jsTemplate(m.Model)
	}
	return out
}

// The custom_message types omp leaves out of the model context
// (messages.ts), and the one it gives a message without a type.
const (
	prewalkPlanType     = "prewalk-plan"
	vibeModeContextType = "vibe-mode-context"
	defaultCustomType   = "custom-message"
)

// ompPath is omp's walk from leaf to the root: it stops at the first id it
// meets again instead of failing on a parent cycle.
func (s *Session) ompPath(leaf *Entry) []*Entry {
	if leaf == nil {
		return nil
	}
	var up []*Entry
	seen := map[string]bool{}
	for e := leaf; e != nil && !seen[e.ID()]; e = s.Parent(e) {
		seen[e.ID()] = true
		up = append(up, e)
	}
	for l, r := 0, len(up)-1; l < r; l, r = l+1, r-1 {
		up[l], up[r] = up[r], up[l]
	}
	return up
}

// ompSettings folds omp's settings over a path: thinkingLevel is the last
// thinking_level_change's (null is "off"); each model_change with a model
// sets models[role ?? "default"]; an assistant message sets the default
// only while no explicit default model_change has been seen. It reads back
// only the model_change records, the last thinking_level_change and, when
// no model_change set the default, the last assistant message.
func (s *Session) ompSettings(path []*Entry) (Settings, error) {
	st := Settings{ThinkingLevel: json.RawMessage(`"off"`)}
	models := map[string]json.RawMessage{}
	first := map[string]int{} // where each role was first set, for the order
	explicit, lastThinking, lastAssistant := false, -1, -1
	for i, e := range path {
		switch {
		case e.Type() == "thinking_level_change":
			lastThinking = i
		case e.Role() == "assistant":
			lastAssistant = i
			if _, ok := first["default"]; !ok && !explicit {
				first["default"] = i
			}
		case e.Type() == "model_change":
			r, err := s.Read(e)
			if err != nil {
				return st, err
			}
			model := r.Raw("model")
			if !session.JSTruthy(model) {
				continue
			}
			role := "default"
			if raw := r.Raw("role"); raw != nil && !isNull(raw) {
				role = jsTemplate(raw)
			}
			models[role] = model
			explicit = explicit || role == "default"
			if _, ok := first[role]; !ok {
				first[role] = i
			}
		}
	}
	if lastThinking >= 0 {
		r, err := s.Read(path[lastThinking])
		if err != nil {
			return st, err
		}
		if level := r.Raw("thinkingLevel"); level != nil && !isNull(level) {
			st.ThinkingLevel = level
		}
	}
	if !explicit && lastAssistant >= 0 {
		r, err := s.Read(path[lastAssistant])
		if err != nil {
			return st, err
		}
		t, msg := &r.Tape, r.Member("message")
		inferred := jsTemplate(t.Raw(t.Get(msg, "provider"))) + "/" + jsTemplate(t.Raw(t.Get(msg, "model")))
		models["default"] = session.Quote(inferred)
	}
	for role, model := range models {
		st.Models = append(st.Models, RoleModel{Role: role, Model: model})
	}
	sortRoles(st.Models, first)
	if def, ok := models["default"]; ok {
		st.Model = splitModel(def)
	}
	return st, nil
}

// sortRoles puts the roles in the order they were first set (the order of
// omp's models object), default first on a tie.
func sortRoles(models []RoleModel, first map[string]int) {
	for i := 1; i < len(models); i++ {
		for j := i; j > 0 && first[models[j].Role] < first[models[j-1].Role]; j-- {
			models[j], models[j-1] = models[j-1], models[j]
		}
	}
}

// splitModel reads omp's "provider/id" as pisess's model: the provider up
// to the first "/" (omp's parseModelString), the id after it; a string
// without a provider is all id.
func splitModel(raw json.RawMessage) *Model {
	s, ok := rawString(raw)
	if !ok {
		return &Model{ModelID: raw}
	}
	if i := strings.IndexByte(s, '/'); i > 0 {
		return &Model{Provider: session.Quote(s[:i]), ModelID: session.Quote(s[i+1:])}
	}
	return &Model{ModelID: raw}
}

// jsTemplate is how a JavaScript template literal prints a raw JSON value
// (absent is "undefined").
func jsTemplate(raw []byte) string {
	switch c := firstByte(raw); {
	case c == 0:
		return "undefined"
	case c == '"':
		s, _ := rawString(raw)
		return s
	case c == '{':
		return "[object Object]"
	case c == '-' || (c >= '0' && c <= '9'):
		return jsNumber(string(raw))
	}
	return string(raw)
}

// ompMessage is a message of an omp context and the entry behind it.
type ompMessage struct {
	raw json.RawMessage
	src *Entry
}

// ompContext builds the model context of leaf as omp 18's
// buildSessionContext does (not in transcript mode). See docs/omp.md for
// what it leaves out (snapcompact frames, provider payloads other than
// OpenAI's, context notes, context rollover).
func (s *Session) ompContext(leaf *Entry) (*Context, error) {
	path := s.ompPath(leaf)
	c := &Context{Leaf: leaf, Path: path}
	var err error
	if c.Settings, err = s.ompSettings(path); err != nil {
		return nil, err
	}
	var ix contextIndex // the shared cut's types (context.go); omp cuts at a compaction its own way
	reset, compaction := session.OmpReset(path, ix), session.LastOf(path, ix, "compaction")
	b := &ompBuilder{s: s, rd: s.Records()}
	switch {
	case reset >= 0:
		c.Reset = path[reset]
		err = b.appendAll(path[reset+1:])
	case compaction >= 0:
		err = b.compacted(path, compaction)
	default:
		err = b.appendAll(path)
	}
	if err != nil {
		return nil, err
	}
	c.Entries = b.entries
	msgs := applyOmpRule(b.msgs)
	for _, m := range msgs {
		c.Messages = append(c.Messages, m.raw)
		c.Sources = append(c.Sources, m.src)
	}
	c.Unpaired = CheckToolPairs(c.Messages, c.Sources)
	return c, nil
}

// ompBuilder gathers the messages of an omp context in order.
type ompBuilder struct {
	s       *Session
	rd      *RecordReader
	msgs    []ompMessage
	entries []*Entry // the context entries, as Context.Entries
}

func (b *ompBuilder) push(raw json.RawMessage, src *Entry) {
	b.msgs = append(b.msgs, ompMessage{raw: raw, src: src})
}

func (b *ompBuilder) appendAll(entries []*Entry) error {
	for _, e := range entries {
		if err := b.append(e); err != nil {
			return err
		}
	}
	return nil
}

// append is omp's appendMessage: the message an entry puts into the
// context, if any.
func (b *ompBuilder) append(e *Entry) error {
	b.entries = append(b.entries, e)
	switch e.Type() {
	case "message", "custom_message", "branch_summary":
	default:
		return nil
	}
	r, err := b.rd.Read(e)
	if err != nil {
		return err
	}
	switch e.Type() {
	case "message":
		m := r.Raw("message")
		if !isObject(m) {
			return nil // omp throws on it; we skip it
		}
		if e.Role() == "assistant" && (retryRecovery(m) || isEmptyErrorTurn(m)) {
			return nil
		}
		b.push(m, e)
	case "custom_message":
		if m := ompCustomMessage(r); m != nil {
			b.push(m, e)
		}
	case "branch_summary":
		if session.JSTruthy(r.Raw("summary")) {
			var w session.ObjectWriter
			w.Member("role", []byte(`"branchSummary"`))
			w.Member("summary", r.Raw("summary"))
			w.Member("fromId", r.Raw("fromId"))
			w.Member("timestamp", jsDateJSON(r.Raw("timestamp")))
			b.push(w.Bytes(), e)
		}
	}
	return nil
}

// compacted is omp's context after the latest compaction (path[ci]): its
// summary, the kept entries from firstKeptEntryId up to it (none when an
// OpenAI remote compaction replays them, but those after
// providerReplayThroughEntryId), then everything after it.
func (b *ompBuilder) compacted(path []*Entry, ci int) error {
	comp := path[ci]
	r, err := b.s.Read(comp)
	if err != nil {
		return err
	}
	remote := openAIRemotePayload(r)
	b.entries = append(b.entries, comp)
	b.push(ompCompactionSummary(r, remote), comp)
	kept := -1
	if remote == nil {
		kept = indexOfID(path[:ci], r.Str("firstKeptEntryId"), r.Member("firstKeptEntryId") >= 0)
	} else if through := r.Member("providerReplayThroughEntryId"); session.JSTruthy(r.Tape.Raw(through)) {
		if i := indexOfID(path[:ci], r.Str("providerReplayThroughEntryId"), true); i >= 0 {
			kept = i + 1
		}
	}
	if kept >= 0 {
		if err := b.appendAll(path[kept:ci]); err != nil {
			return err
		}
	}
	return b.appendAll(path[ci+1:])
}

// indexOfID is the index of the first entry with the given id, -1 if none.
func indexOfID(entries []*Entry, id string, present bool) int {
	if !present {
		return -1
	}
	for i, e := range entries {
		if e.ID() == id {
			return i
		}
	}
	return -1
}

// ompCompactionSummary is omp's createCompactionSummaryMessage for the
// latest compaction.
func ompCompactionSummary(r *Record, providerPayload json.RawMessage) json.RawMessage {
	var w session.ObjectWriter
	w.Member("role", []byte(`"compactionSummary"`))
	w.Member("summary", r.Raw("summary"))
	w.Member("shortSummary", r.Raw("shortSummary"))
	w.Member("tokensBefore", r.Raw("tokensBefore"))
	w.Member("tokensAfter", r.Raw("tokensAfter"))
	w.Member("method", r.Raw("method"))
	w.Member("providerPayload", providerPayload)
	w.Member("warning", r.Raw("warning"))
	w.Member("timestamp", jsDateJSON(r.Raw("timestamp")))
	return w.Bytes()
}

// openAIRemotePayload is omp's getOpenAiRemoteCompactionPayload: the
// replacement history of an OpenAI remote compaction, or nil.
func openAIRemotePayload(r *Record) json.RawMessage {
	t := &r.Tape
	cand := t.Get(r.Member("preserveData"), "openaiRemoteCompaction")
	if t.Kind(cand) != session.KindObject {
		return nil
	}
	provider, ok := t.Str(t.Get(cand, "provider"))
	history := t.Get(cand, "replacementHistory")
	if !ok || provider == "" || t.Kind(history) != session.KindArray {
		return nil
	}
	for el := range t.Elements(history) {
		if t.Kind(el) != session.KindObject {
			return nil
		}
	}
	var w session.ObjectWriter
	w.Member("type", []byte(`"openaiResponsesHistory"`))
	w.Member("provider", session.Quote(provider))
	w.Member("items", copyRaw(t.Raw(history)))
	return w.Bytes()
}

// ompCustomMessage is omp's customMessageEntryMessage, nil when omp leaves
// the entry out: the prewalk-plan and vibe-mode-context types, and content
// that is neither a string nor an array.
func ompCustomMessage(r *Record) json.RawMessage {
	switch r.Str("customType") {
	case prewalkPlanType, vibeModeContextType:
		return nil
	}
	content := r.Raw("content")
	if !isArray(content) && firstByte(content) != '"' {
		return nil
	}
	customType := r.Raw("customType")
	if s, ok := rawString(customType); !ok || s == "" {
		customType = session.Quote(defaultCustomType)
	}
	display := r.Raw("display")
	if k := r.Tape.Kind(r.Member("display")); k != session.KindTrue && k != session.KindFalse {
		display = json.RawMessage("false")
	}
	var attribution json.RawMessage
	if raw := r.Raw("attribution"); raw != nil {
		attribution = json.RawMessage(`"agent"`)
		if s, ok := rawString(raw); ok && s == "user" {
			attribution = json.RawMessage(`"user"`)
		}
	}
	var w session.ObjectWriter
	w.Member("role", []byte(`"custom"`))
	w.Member("customType", customType)
	w.Member("content", content)
	w.Member("display", display)
	w.Member("details", r.Raw("details"))
	w.Member("attribution", attribution)
	w.Member("timestamp", jsDateJSON(r.Raw("timestamp")))
	return w.Bytes()
}

// retryRecovery reports whether an assistant message is marked as a retry
// recovery turn (truthy retryRecovery).
func retryRecovery(m json.RawMessage) bool {
	t, ok := tapeOf(m)
	return ok && session.JSTruthy(t.Raw(t.Get(0, "retryRecovery")))
}

// isEmptyErrorTurn is omp's isEmptyErrorTurn: an assistant turn that
// stopped with "error" and has no content worth keeping (blank text and
// thinking, fallback blocks).
func isEmptyErrorTurn(m json.RawMessage) bool {
	t, ok := tapeOf(m)
	if !ok || t.StrOf(0, "stopReason") != "error" {
		return false
	}
	content := t.Get(0, "content")
	if t.Kind(content) != session.KindArray {
		return false
	}
	for el := range t.Elements(content) {
		if blockHasContent(t, el) {
			return false
		}
	}
	return true
}

// blockHasContent is one case of isEmptyErrorTurn's test.
func blockHasContent(t *session.Tape, el int) bool {
	nonBlank := func(key string) bool {
		s, ok := t.Str(t.Get(el, key))
		return !ok || session.JSTrim(s) != "" // a missing string makes omp throw: keep the turn
	}
	switch t.StrOf(el, "type") {
	case "text":
		return nonBlank("text")
	case "thinking":
		if s, ok := t.Str(t.Get(el, "thinkingSignature")); ok && session.JSTrim(s) != "" {
			return true
		}
		return nonBlank("thinking")
	case "redactedThinking":
		return nonBlank("data")
	case "fallback":
		return false
	}
	return true
}

// applyOmpRule is omp's last two steps (session.OmpKept): the turns omp
// keeps, a toolCall block no toolResult of the context answers taken out
// of its assistant turn with the turn's redactedThinking blocks, and the
// turn's thinking blocks stripped of their thinkingSignature.
func applyOmpRule(msgs []ompMessage) []ompMessage {
	turns := make([]session.ToolTurn, len(msgs))
	for i, m := range msgs {
		turns[i] = ompTurnOf(m.raw)
	}
	kept, answered := session.OmpKept(turns)
	out := make([]ompMessage, 0, len(kept))
	for _, i := range kept {
		m := msgs[i]
		if calls := turns[i].Calls; len(session.AnsweredCalls(calls, answered)) < len(calls) {
			m.raw = stripCalls(m.raw, calls, answered)
		}
		out = append(out, m)
	}
	return out
}

// Call ids that are no JavaScript Set key (an object or an array) match
// nothing: calls get unansweredID and their index, results resultNoID.
const (
	unansweredID = "!call"
	resultNoID   = "!result"
)

// ompTurnOf is what the omp rule reads of a message, its ids as
// JavaScript Set keys (jsKey) as omp compares them.
func ompTurnOf(raw json.RawMessage) session.ToolTurn {
	t, ok := tapeOf(raw)
	if !ok {
		return session.ToolTurn{}
	}
	turn := session.ToolTurn{Role: t.StrOf(0, "role"), StopReason: t.StrOf(0, "stopReason"), CustomType: t.StrOf(0, "customType")}
	switch turn.Role {
	case "toolResult":
		turn.ToolCallID = resultNoID
		if key, ok := jsKey(t.Raw(t.Get(0, "toolCallId"))); ok {
			turn.ToolCallID = key
		}
	case "assistant":
		turn.OnlyCalls = true
		for el := range t.Elements(t.Get(0, "content")) {
			switch t.StrOf(el, "type") {
			case "toolCall":
				id, ok := jsKey(t.Raw(t.Get(el, "id")))
				if !ok {
					id = unansweredID + strconv.Itoa(len(turn.Calls))
				}
				turn.Calls = append(turn.Calls, session.ToolCall{ID: id})
			case "redactedThinking":
			default:
				turn.OnlyCalls = false
			}
		}
	}
	return turn
}

// stripCalls rewrites an assistant message that lost some of its calls
// (its toolCall blocks in order, as ompTurnOf lists them).
func stripCalls(raw json.RawMessage, calls []session.ToolCall, answered map[string]bool) json.RawMessage {
	t, _ := tapeOf(raw) // an assistant message: an object
	content, call := t.Get(0, "content"), 0
	var blocks [][]byte
	for el := range t.Elements(content) {
		typ := t.StrOf(el, "type")
		if typ == "toolCall" {
			call++
			if !answered[calls[call-1].ID] {
				continue
			}
		}
		if typ == "redactedThinking" {
			continue
		}
		block := t.Raw(el)
		if typ == "thinking" && session.JSTruthy(t.Raw(t.Get(el, "thinkingSignature"))) {
			var bt session.Tape
			_ = bt.Build(block) // an element of t: an object
			block = setMember(&bt, "thinkingSignature", nil)
		}
		blocks = append(blocks, block)
	}
	arr := append([]byte{'['}, bytes.Join(blocks, []byte{','})...)
	return setMember(t, "content", append(arr, ']'))
}
