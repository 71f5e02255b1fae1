package fix

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// Plan is what a repair appends to a session.
type Plan struct {
	Leaf    string  // the leaf the repair started from
	NewLeaf string  // the last appended entry ("" when nothing is appended)
	Added   []Added // the appended entries, in order
	Lines   []byte  // their lines, each ending in "\n"
}

// finish fills a plan from what the builder wrote.
func (b *builder) finish() *Plan {
	p := &Plan{Leaf: b.leaf, Added: b.added, Lines: b.out.Bytes()}
	if len(b.added) > 0 {
		p.NewLeaf = b.parent
	}
	return p
}

// Unstick plans what makes the context of leaf well-formed for pi 1.6.0,
// appended at the leaf:
//
//   - a result whose call is not before it (summarised away by a
//     compaction, or a duplicate): a context_edit with replacement null,
//     which drops it from the context;
//   - a call left without its result in the middle of the context: a
//     context_edit of its assistant message, the same content with that
//     toolCall block turned into a text block saying so (pi's request
//     builder would send an error result in its place);
//   - a call the context ends waiting for: a toolResult message entry,
//     isError true, with a text saying no result was recorded.
//
// A healthy context gives an empty plan. Problems inside a compaction's
// retainedTail cannot be edited one message at a time: they are refused
// (*safefile.Error, refused_corrupt, with the finding).
func Unstick(s *project.Session, leaf *project.Entry, now time.Time) (*Plan, error) {
	ctx, b, err := start(s, leaf, now)
	if err != nil {
		return nil, err
	}
	calls := map[int][]project.Unpaired{} // mid-context calls without results, by message
	for _, u := range ctx.Unpaired {
		src := ctx.Sources[u.MessageIndex]
		if src == nil || src.Type() != "message" {
			return nil, unfixable(u, "it is inside a compaction's retainedTail, which a context_edit cannot change message by message")
		}
		switch u.Kind {
		case project.ResultWithoutCall:
			b.contextEdit(Added{TargetID: src.ID(), ToolCallID: u.ToolCallID, ToolName: u.ToolName,
				Why: "the result's call is not before it in the context (summarised away by a compaction, or answered already): dropped"}, nil)
		case project.CallWithoutResult:
			calls[u.MessageIndex] = append(calls[u.MessageIndex], u)
		}
	}
	for _, i := range slices.Sorted(maps.Keys(calls)) { // ctx.Unpaired is in message order too
		content, err := withoutCalls(ctx.Messages[i], calls[i])
		if err != nil {
			return nil, unfixable(calls[i][0], err.Error())
		}
		var ids, names []string
		for _, u := range calls[i] {
			ids, names = append(ids, u.ToolCallID), append(names, u.ToolName)
		}
		b.contextEdit(Added{TargetID: ctx.Sources[i].ID(), ToolCallID: strings.Join(ids, ","), ToolName: strings.Join(names, ","),
			Why: "no result before the next message: the toolCall block becomes a text block"}, content)
	}
	for _, u := range ctx.Unanswered() {
		b.toolResult(u)
	}
	return b.finish(), nil
}

// withoutCalls returns an assistant message's content with the toolCall
// blocks of the given calls replaced by text blocks saying what happened.
// Every unanswered call of one message must be passed at once: the edits
// of one target replace each other. Of several calls with one id, the
// results answer the first ones (session.PairTools), so the calls left
// unanswered are the last ones of that id: only those are replaced.
func withoutCalls(msg json.RawMessage, calls []project.Unpaired) (json.RawMessage, error) {
	var t session.Tape
	content := -1
	if t.Build(msg) == nil {
		content = t.Get(0, "content")
	}
	if t.Kind(content) != session.KindArray {
		return nil, fmt.Errorf("its content is not an array of blocks")
	}
	left := map[string]int{} // calls of each id still to come
	for el := range t.Elements(content) {
		if t.StrOf(el, "type") == "toolCall" {
			left[t.StrOf(el, "id")]++
		}
	}
	drop := map[string][]project.Unpaired{} // in message order
	for _, u := range calls {
		drop[u.ToolCallID] = append(drop[u.ToolCallID], u)
	}
	var out [][]byte
	for el := range t.Elements(content) {
		if t.StrOf(el, "type") != "toolCall" {
			out = append(out, t.Raw(el))
			continue
		}
		id := t.StrOf(el, "id")
		left[id]--
		if us := drop[id]; left[id] < len(us) {
			u := us[len(us)-1-left[id]]
			text := fmt.Sprintf("[tool call %s (%s) removed by pisess unstick: no result was recorded for it]", u.ToolCallID, u.ToolName)
			out = append(out, textBlock(text))
			continue
		}
		out = append(out, t.Raw(el))
	}
	return jsonArray(out), nil
}

// unfixable refuses a rule-6 problem that appending cannot fix.
func unfixable(u project.Unpaired, why string) error {
	f := finding.Warnf(finding.UnpairedToolInContext, u.Line, "%s", u.Describe()).WithEntry(u.EntryID)
	return &safefile.Error{Code: safefile.RefusedCorrupt, Line: u.Line, Finding: &f,
		Err: fmt.Errorf("not fixed by appending: %s; in pi, use /tree to continue from an entry before it", why)}
}

// cycleRefusal refuses a leaf whose path has a parentId cycle.
func cycleRefusal(err error) error {
	if ce, ok := err.(*project.CycleError); ok {
		f := finding.Errorf(finding.ParentCycle, ce.Line, "%v", ce).WithEntry(ce.ID)
		return &safefile.Error{Code: safefile.RefusedCorrupt, Line: ce.Line, Finding: &f}
	}
	return &safefile.Error{Code: safefile.RefusedCorrupt, Err: err}
}
