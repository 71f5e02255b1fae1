package project

import (
	"encoding/json"

	"github.com/pisess/pisess/internal/session"
)

// Rule 6 lives in internal/session, below validate and project; these
// names keep project's callers as they were.
type (
	UnpairedKind = session.UnpairedKind
	Unpaired     = session.Unpaired
	ToolCall     = session.ToolCall
	ToolTurn     = session.ToolTurn
)

// The rule-6 problems (see session).
const (
	CallWithoutResult = session.CallWithoutResult
	ResultWithoutCall = session.ResultWithoutCall
	UnansweredCall    = session.UnansweredCall
)

// CheckToolPairs checks rule 6 on projected messages (see session.PairTools).
// sources[i] is the entry behind msgs[i] (nil entries are allowed).
func CheckToolPairs(msgs []json.RawMessage, sources []*Entry) []Unpaired {
	return session.PairTools(turnsOf(msgs, sources))
}

// turnsOf builds the rule-6 turns of projected messages. A message that is
// not an object pairs with nothing and closes nothing.
func turnsOf(msgs []json.RawMessage, sources []*Entry) []ToolTurn {
	turns := make([]ToolTurn, len(msgs))
	for i, raw := range msgs {
		t, ok := tapeOf(raw)
		if !ok {
			continue
		}
		turns[i] = ToolTurn{Role: t.StrOf(0, "role"), StopReason: t.StrOf(0, "stopReason"),
			ToolCallID: t.StrOf(0, "toolCallId"), ToolName: t.StrOf(0, "toolName")}
		if turns[i].Role == "assistant" {
			turns[i].Calls = toolCalls(t, t.Get(0, "content"))
		}
		if i < len(sources) && sources[i] != nil {
			turns[i].EntryID, turns[i].Line = sources[i].ID(), sources[i].Line
		}
	}
	return turns
}

// toolCalls lists the toolCall blocks of an assistant content.
func toolCalls(t *session.Tape, content int) []ToolCall {
	var calls []ToolCall
	for _, b := range blocksOf(t, content) {
		if b.Type != "toolCall" {
			continue
		}
		name := ""
		if b.Name != nil {
			name = *b.Name
		}
		calls = append(calls, ToolCall{ID: b.ID, Name: name})
	}
	return calls
}
