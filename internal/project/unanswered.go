package project

import "fmt"

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
	last := -1 // the assistant turn whose calls are open
	answered := map[string]bool{}
	for i, t := range turns {
		switch {
		case t.Role == "" || t.Role == "system":
		case t.Role == "toolResult":
			answered[t.ToolCallID] = true
		default:
			last, answered = -1, map[string]bool{}
			if t.Role == "assistant" && t.StopReason != "aborted" && t.StopReason != "error" {
				last = i
			}
		}
	}
	if last < 0 {
		return nil
	}
	var out []Unpaired
	t := turns[last]
	for _, c := range t.Calls {
		if !answered[c.ID] {
			out = append(out, Unpaired{Kind: UnansweredCall, MessageIndex: last, ToolCallID: c.ID, ToolName: c.Name,
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
