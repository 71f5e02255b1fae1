package session

import (
	"fmt"
	"sort"
)

// Rule 6 (session-format.md section 5): in a projected context every tool
// call is answered before the next message. validate judges it on turns it
// rebuilds from its compact index, project on the messages of a context:
// both through PairTools and Unanswered.

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
	// UnansweredCall: a tool call of the assistant turn that ends the
	// context, with no toolResult after it. The commonest stuck session:
	// the agent died between a tool call and its result. PairTools leaves
	// these out (a session being written is in that state while the tool
	// runs); Unanswered finds them.
	UnansweredCall UnpairedKind = "unanswered_tool_call"
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

// Describe returns a one-sentence explanation for the finding message of
// a call without result or a result without call (DescribeUnanswered is
// that of an unanswered call).
func (u Unpaired) Describe() string {
	if u.Kind == CallWithoutResult {
		return fmt.Sprintf("tool call %s (%s) has no tool result before the next message in the projected context: the provider rejects the next request", u.ToolCallID, u.ToolName)
	}
	return fmt.Sprintf("tool result for %s (%s) does not follow its tool call in the projected context: the provider rejects the next request", u.ToolCallID, u.ToolName)
}

// DescribeUnanswered is the finding message of an unanswered call.
func DescribeUnanswered(u Unpaired) string {
	return fmt.Sprintf("the context ends in tool call %s (%s) with no tool result: the session stopped between the call and its result (`pisess unstick` appends one)", u.ToolCallID, u.ToolName)
}

// ToolCall is one toolCall block of an assistant message.
type ToolCall struct {
	ID, Name string
}

// ToolTurn is what rule 6 needs to know of one projected message: its role,
// an assistant's stop reason and tool calls, a tool result's call id and
// name, and where it came from.
type ToolTurn struct {
	Role       string
	StopReason string
	Calls      []ToolCall // assistant toolCall blocks, in order
	ToolCallID string     // toolResult
	ToolName   string     // toolResult
	CustomType string     // a custom message's customType (the omp rule)
	OnlyCalls  bool       // an assistant's content is all toolCall and redactedThinking blocks (the omp rule)
	EntryID    string
	Line       int
}

// exempt reports whether an assistant turn's calls need no result: pi
// never replays turns that stopped with "aborted" or "error" (pi-ai's
// transformMessages drops them), and writes them without results.
func exempt(stopReason string) bool { return stopReason == "aborted" || stopReason == "error" }

// openCall is a tool call waiting for its result.
type openCall struct {
	ToolCall
	msg      int
	answered bool
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
		if t.Role == "assistant" && !exempt(t.StopReason) {
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
			last = -1
			forget(&answered)
			if t.Role == "assistant" && !exempt(t.StopReason) {
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

// forget empties a set of answered call ids. A small one is cleared for
// reuse (a new map each turn was an allocation an entry); one that held
// many is dropped, so that clearing costs no more than filling did.
func forget(answered *map[string]bool) {
	switch n := len(*answered); {
	case n == 0:
	case n <= 8:
		clear(*answered)
	default:
		*answered = map[string]bool{}
	}
}
