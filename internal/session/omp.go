package session

import "slices"

// OmpTurns applies to a projected context's turns what oh-my-pi 18's
// buildSessionContext does to its messages before it returns them
// (docs/omp.md), for rule 6 on omp files: a tool call that no toolResult
// of the context answers is stripped from its assistant turn (omp never
// sends it, so an omp session is not stuck on it), then every assistant
// turn that stopped with "aborted" or "error" leaves the context with the
// toolResults of its calls.
//
// Turns do not know an assistant's other content, so a turn stripped of
// all its calls stays as a turn without calls (omp drops it when it had
// nothing else), and the one failed turn omp keeps (followed by its
// interrupted-thinking note) is dropped too. project builds omp's messages
// themselves and holds to omp's code exactly.
func OmpTurns(turns []ToolTurn) []ToolTurn {
	answered := map[string]bool{}
	for _, t := range turns {
		if t.Role == "toolResult" {
			answered[t.ToolCallID] = true
		}
	}
	out := make([]ToolTurn, 0, len(turns))
	for _, t := range turns {
		if t.Role == "assistant" && len(t.Calls) > 0 { // a copy: turns is the caller's
			t.Calls = slices.DeleteFunc(slices.Clone(t.Calls), func(c ToolCall) bool { return !answered[c.ID] })
		}
		out = append(out, t)
	}
	return dropFailedTurns(out)
}

// dropFailedTurns removes the assistant turns that stopped with "aborted"
// or "error", and the later toolResults of their calls, from the last to
// the first as omp does.
func dropFailedTurns(turns []ToolTurn) []ToolTurn {
	for i := len(turns) - 1; i >= 0; i-- {
		if t := turns[i]; t.Role != "assistant" || !exempt(t.StopReason) {
			continue
		}
		calls := map[string]bool{}
		for _, c := range turns[i].Calls {
			calls[c.ID] = true
		}
		turns = append(turns[:i], turns[i+1:]...)
		for j := len(turns) - 1; j >= i && len(calls) > 0; j-- {
			if turns[j].Role == "toolResult" && calls[turns[j].ToolCallID] {
				turns = append(turns[:j], turns[j+1:]...)
			}
		}
	}
	return turns
}
