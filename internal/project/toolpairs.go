package project

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/pisess/pisess/internal/parse"
)

// UnpairedKind says which half of a tool call/result pair is missing.
type UnpairedKind string

// The rule-6 problems.
const (
	// CallWithoutResult: an assistant tool call that no toolResult answers
	// before the next non-toolResult message.
	CallWithoutResult UnpairedKind = "call_without_result"
	// ResultWithoutCall: a toolResult that answers no open call of the
	// assistant message it follows (none at all, already answered, separated
	// from its call by another message, or a call of an aborted/errored turn,
	// which pi drops before sending).
	ResultWithoutCall UnpairedKind = "result_without_call"
)

// Unpaired is one rule-6 problem in a projected context.
type Unpaired struct {
	Kind         UnpairedKind `json:"kind"`
	EntryID      string       `json:"entryId"` // the entry behind the message
	Line         int          `json:"line"`    // that entry's physical line
	MessageIndex int          `json:"messageIndex"`
	ToolCallID   string       `json:"toolCallId"`
	ToolName     string       `json:"toolName"`
}

// Describe returns a one-sentence explanation for a finding message.
func (u Unpaired) Describe() string {
	if u.Kind == CallWithoutResult {
		return fmt.Sprintf("tool call %s (%s) has no tool result before the next message in the projected context: the provider rejects the next request", u.ToolCallID, u.ToolName)
	}
	return fmt.Sprintf("tool result for %s (%s) does not follow its tool call in the projected context: the provider rejects the next request", u.ToolCallID, u.ToolName)
}

// exemptStopReasons are the assistant turns whose tool calls need no
// result: pi never replays them (pi-ai's transformMessages drops errored and
// aborted assistant messages), and pi itself writes them without results.
var exemptStopReasons = map[string]bool{"aborted": true, "error": true}

// openCall is a tool call waiting for its result.
type openCall struct {
	ToolCall
	msg      int
	answered bool
}

// ToolCall is one toolCall block of an assistant message.
type ToolCall struct {
	ID, Name string
}

// ToolTurn is what rule 6 needs to know of one projected message: its role,
// an assistant's stop reason and tool calls, a tool result's call id and
// name, and where it came from. validate builds these from its compact
// index; CheckToolPairs from full messages.
type ToolTurn struct {
	Role       string
	StopReason string
	Calls      []ToolCall // assistant toolCall blocks, in order
	ToolCallID string     // toolResult
	ToolName   string     // toolResult
	EntryID    string
	Line       int
}

// CheckToolPairs checks rule 6 on projected messages (see PairTools).
// sources[i] is the entry behind msgs[i] (nil entries are allowed).
func CheckToolPairs(msgs []json.RawMessage, sources []*Entry) []Unpaired {
	return PairTools(turnsOf(msgs, sources))
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
			turns[i].EntryID, turns[i].Line = sources[i].ID, sources[i].Line
		}
	}
	return turns
}

// PairTools checks rule 6: every tool call of an assistant message is
// answered by a toolResult before the next message that is not a
// toolResult, and every toolResult answers an open call of the assistant
// message it follows. Calls of assistant messages that stopped with
// "aborted" or "error" need no result (and cannot take one). Calls still
// open at the end of the context are not reported: a session being written
// is in that state between a call and its result. A system message is
// passed over (pi-ai 1.6.0 holds one that falls between a call and its
// results back until they are in), and so is a turn with an empty role,
// which stands for something that is not a message.
func PairTools(turns []ToolTurn) []Unpaired {
	var out []Unpaired
	var open []openCall
	report := func(kind UnpairedKind, i int, c ToolCall) {
		out = append(out, Unpaired{Kind: kind, MessageIndex: i, ToolCallID: c.ID, ToolName: c.Name,
			EntryID: turns[i].EntryID, Line: turns[i].Line})
	}
	for i, t := range turns {
		if t.Role == "" || t.Role == "system" {
			continue
		}
		if t.Role == "toolResult" {
			if !answer(open, t.ToolCallID) {
				report(ResultWithoutCall, i, ToolCall{ID: t.ToolCallID, Name: t.ToolName})
			}
			continue
		}
		for _, c := range open {
			if !c.answered {
				report(CallWithoutResult, c.msg, c.ToolCall)
			}
		}
		open = nil
		if t.Role == "assistant" && !exemptStopReasons[t.StopReason] {
			for _, c := range t.Calls {
				open = append(open, openCall{ToolCall: c, msg: i})
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].MessageIndex < out[b].MessageIndex })
	return out
}

// answer marks the open call id answered; false if there is no such open,
// unanswered call.
func answer(open []openCall, id string) bool {
	for i := range open {
		if open[i].ID == id && !open[i].answered {
			open[i].answered = true
			return true
		}
	}
	return false
}

// toolCalls lists the toolCall blocks of an assistant content.
func toolCalls(t *parse.Tape, content int) []ToolCall {
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
