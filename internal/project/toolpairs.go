package project

import (
	"encoding/json"
	"fmt"
	"sort"
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
	id, name string
	msg      int
	answered bool
}

// CheckToolPairs checks rule 6 on projected messages: every tool call of an
// assistant message is answered by a toolResult before the next message that
// is not a toolResult, and every toolResult answers an open call of the
// assistant message it follows. Calls of assistant messages that stopped
// with "aborted" or "error" need no result (and cannot take one). Calls
// still open at the end of the context are not reported: a session being
// written is in that state between a call and its result. sources[i] is the
// entry behind msgs[i] (nil entries are allowed).
func CheckToolPairs(msgs []json.RawMessage, sources []*Entry) []Unpaired {
	var out []Unpaired
	var open []openCall
	report := func(kind UnpairedKind, i int, id, name string) {
		u := Unpaired{Kind: kind, MessageIndex: i, ToolCallID: id, ToolName: name}
		if i < len(sources) && sources[i] != nil {
			u.EntryID, u.Line = sources[i].ID, sources[i].Line
		}
		out = append(out, u)
	}
	for i, raw := range msgs {
		m, ok := headOf(raw)
		if !ok {
			continue
		}
		if m.Role == "toolResult" {
			if !answer(open, m.ToolCallID) {
				report(ResultWithoutCall, i, m.ToolCallID, m.ToolName)
			}
			continue
		}
		for _, c := range open {
			if !c.answered {
				report(CallWithoutResult, c.msg, c.id, c.name)
			}
		}
		open = nil
		if m.Role == "assistant" && !exemptStopReasons[m.StopReason] {
			open = toolCalls(i, m.Content)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].MessageIndex < out[b].MessageIndex })
	return out
}

// answer marks the open call id answered; false if there is no such open,
// unanswered call.
func answer(open []openCall, id string) bool {
	for i := range open {
		if open[i].id == id && !open[i].answered {
			open[i].answered = true
			return true
		}
	}
	return false
}

// toolCalls lists the toolCall blocks of an assistant content.
func toolCalls(msg int, content json.RawMessage) []openCall {
	var calls []openCall
	for _, b := range decodeBlocks(content) {
		if b.Type != "toolCall" {
			continue
		}
		name := ""
		if b.Name != nil {
			name = *b.Name
		}
		calls = append(calls, openCall{id: b.ID, name: name, msg: msg})
	}
	return calls
}
