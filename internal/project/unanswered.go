package project

import (
	"encoding/json"
	"fmt"
)

// UnansweredCall: a tool call of the assistant turn that ends the context,
// with no toolResult after it. The commonest stuck session: the agent died
// between a tool call and its result. PairTools leaves these out (a session
// being written is in that state while the tool runs); Unanswered finds
// them.
const UnansweredCall UnpairedKind = "unanswered_tool_call"

// DescribeUnanswered is the finding message of an unanswered call.
func DescribeUnanswered(u Unpaired) string {
	return fmt.Sprintf("the context ends in tool call %s (%s) with no tool result: the session stopped between the call and its result (`pisess unstick` appends one)", u.ToolCallID, u.ToolName)
}

// Unanswered returns the tool calls still waiting for their result at the
// end of the turns: those of the last assistant turn (not stopped with
// "aborted" or "error", which pi never replays) that no later toolResult
// answers, when no other message came after it. System messages and turns
// with an empty role are passed over, as in PairTools.
func Unanswered(turns []ToolTurn) []Unpaired {
	var open []openCall
	for i, t := range turns {
		switch {
		case t.Role == "" || t.Role == "system":
		case t.Role == "toolResult":
			answer(open, t.ToolCallID)
		default:
			open = nil
			if t.Role == "assistant" && !exemptStopReasons[t.StopReason] {
				for _, c := range t.Calls {
					open = append(open, openCall{ToolCall: c, msg: i})
				}
			}
		}
	}
	var out []Unpaired
	for _, c := range open {
		if !c.answered {
			t := turns[c.msg]
			out = append(out, Unpaired{Kind: UnansweredCall, MessageIndex: c.msg, ToolCallID: c.ID, ToolName: c.Name,
				EntryID: t.EntryID, Line: t.Line})
		}
	}
	return out
}

// Unanswered returns the tool calls the context ends waiting for (see the
// function Unanswered).
func (c *Context) Unanswered() []Unpaired {
	return Unanswered(turnsOf(c.Messages, c.Sources))
}

// turnsOf builds the rule-6 turns of projected messages.
func turnsOf(msgs []json.RawMessage, sources []*Entry) []ToolTurn {
	turns := make([]ToolTurn, len(msgs))
	for i, raw := range msgs {
		var m messageHead
		if !isObject(raw) || json.Unmarshal(raw, &m) != nil {
			continue
		}
		turns[i] = ToolTurn{Role: m.Role, StopReason: m.StopReason, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
		if m.Role == "assistant" {
			turns[i].Calls = toolCalls(m.Content)
		}
		if i < len(sources) && sources[i] != nil {
			turns[i].EntryID, turns[i].Line = sources[i].ID, sources[i].Line
		}
	}
	return turns
}
