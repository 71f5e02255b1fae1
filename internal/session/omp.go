package session

// The omp context rule: what oh-my-pi 18's buildSessionContext does to its
// messages before it returns them (session-context.ts, docs/omp.md). Both
// validate (on the turns of its compact index) and project (on the
// messages it builds) apply it through OmpKept.

// InterruptedThinking is the customType of omp's hidden note that follows
// an interrupted assistant turn; omp keeps the failed turn it follows.
const InterruptedThinking = "interrupted-thinking"

// OmpTurns applies the omp context rule to a projected context's turns,
// for rule 6 on omp files: the turns omp keeps, their assistants holding
// only the calls a toolResult of the context answers.
//
// Turns that leave CustomType and OnlyCalls unset (validate's: its index
// does not hold them) keep a turn stripped of all its calls as a turn
// without calls, and lose a failed turn an interrupted-thinking note
// follows.
func OmpTurns(turns []ToolTurn) []ToolTurn {
	kept, answered := OmpKept(turns)
	out := make([]ToolTurn, 0, len(kept))
	for _, i := range kept {
		t := turns[i]
		t.Calls = AnsweredCalls(t.Calls, answered) // a copy: turns is the caller's
		out = append(out, t)
	}
	return out
}

// OmpKept returns the indexes, in order, of the turns omp keeps, and the
// call ids a toolResult of the context answers. omp first strips every
// toolCall no toolResult answers from its assistant turn, dropping a turn
// left with no content (one whose OnlyCalls are all unanswered); then,
// from the last to the first, an assistant turn that stopped with
// "aborted" or "error" leaves with the later toolResults of its remaining
// calls, unless an interrupted-thinking note now follows it.
func OmpKept(turns []ToolTurn) (kept []int, answered map[string]bool) {
	answered = map[string]bool{}
	for _, t := range turns {
		if t.Role == "toolResult" {
			answered[t.ToolCallID] = true
		}
	}
	kept = make([]int, 0, len(turns))
	for i, t := range turns {
		if t.Role == "assistant" && t.OnlyCalls && len(t.Calls) > 0 && len(AnsweredCalls(t.Calls, answered)) == 0 {
			continue
		}
		kept = append(kept, i)
	}
	return dropFailedTurns(turns, kept, answered), answered
}

// dropFailedTurns removes from kept the failed assistant turns and their
// results, from the last to the first as omp does.
func dropFailedTurns(turns []ToolTurn, kept []int, answered map[string]bool) []int {
	for k := len(kept) - 1; k >= 0; k-- {
		t := turns[kept[k]]
		if t.Role != "assistant" || !exempt(t.StopReason) {
			continue
		}
		if k+1 < len(kept) {
			if next := turns[kept[k+1]]; next.Role == "custom" && next.CustomType == InterruptedThinking {
				continue
			}
		}
		calls := map[string]bool{}
		for _, c := range AnsweredCalls(t.Calls, answered) {
			calls[c.ID] = true
		}
		kept = append(kept[:k], kept[k+1:]...)
		for j := len(kept) - 1; j >= k && len(calls) > 0; j-- {
			if r := turns[kept[j]]; r.Role == "toolResult" && calls[r.ToolCallID] {
				kept = append(kept[:j], kept[j+1:]...)
			}
		}
	}
	return kept
}

// AnsweredCalls returns a new slice of the calls whose ids are answered.
func AnsweredCalls(calls []ToolCall, answered map[string]bool) []ToolCall {
	var out []ToolCall
	for _, c := range calls {
		if answered[c.ID] {
			out = append(out, c)
		}
	}
	return out
}
