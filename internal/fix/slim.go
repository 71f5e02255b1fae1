package fix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// bigArguments is the size above which slim elides a tool call's
// arguments (the call itself stays, so its result keeps its pair).
const bigArguments = 256

// Elided is one message slim hides behind a placeholder.
type Elided struct {
	EntryID string `json:"entryId"`
	Role    string `json:"role"`
	Kind    string `json:"kind"`  // what the content held: "text", "2 images", "text and 1 image"…
	Bytes   int    `json:"bytes"` // the content's size as JSON (images as base64)
	EditID  string `json:"editId"`
}

// Over is a message that stays over the limit: one slim cannot edit (a
// compaction's summary or retainedTail, a branch summary, a bash
// execution), or an assistant message whose tool calls alone keep its
// placeholder over (edited when that saves anything, and then Bytes is
// the placeholder's size).
type Over struct {
	EntryID string `json:"entryId"`
	Role    string `json:"role"`
	Bytes   int    `json:"bytes"`
	Why     string `json:"why"`
}

// SlimPlan is what Slim appends, and what it does to the context.
type SlimPlan struct {
	*Plan
	Elided []Elided
	Over   []Over
	// TokensBefore and TokensAfter estimate the context's size: the sum of
	// pi's per-message estimate (characters/4, 1,200 tokens per image).
	TokensBefore, TokensAfter int
}

// Slim plans a context_edit for each message of leaf's context whose
// content is larger than maxBytes, replacing it with a short placeholder
// that says what was elided (kind, size, entry id). An assistant message
// keeps its tool calls (their results would lose their pair otherwise),
// with large arguments elided too, then the largest left while the calls
// keep it over the limit; if they still do, it is listed in Over (and
// edited only if the placeholder is smaller). TokensAfter is filled in by
// the caller once the plan is projected (see SlimFile).
func Slim(s *project.Session, leaf *project.Entry, maxBytes int64, now time.Time) (*SlimPlan, error) {
	b, p := newBuilder(s, leaf, now), &SlimPlan{}
	_, err := s.EachMessage(leaf, func(msg json.RawMessage, src *project.Entry) error { // one message at a time: a session's context can be the whole file
		p.TokensBefore += project.EstimateTokens(msg)
		role, content := roleAndContent(msg)
		if !editable(src, role) {
			if n := len(msg); int64(n) > maxBytes {
				p.Over = append(p.Over, Over{EntryID: src.ID(), Role: role, Bytes: n, Why: notEditable(src)})
			}
			return nil
		}
		if int64(len(content)) > maxBytes {
			p.elide(b, msg, src, maxBytes)
		}
		return nil
	})
	if err != nil {
		return nil, cycleRefusal(err)
	}
	p.Plan = b.finish()
	return p, nil
}

// slimMark starts the text of every placeholder.
const slimMark = "[elided by pisess slim: "

// elide plans the placeholder of an editable message over the limit, and
// lists the message in Over when it stays over: when its placeholder would
// save nothing (or it is one already) it is left as it is.
func (p *SlimPlan) elide(b *builder, msg json.RawMessage, src *project.Entry, maxBytes int64) {
	role, content := roleAndContent(msg)
	el := Elided{EntryID: src.ID(), Role: role, Kind: kindOf(msg), Bytes: len(content)}
	repl, err := placeholder(msg, role, el, maxBytes)
	over := Over{EntryID: src.ID(), Role: role, Bytes: len(content)}
	const calls = "the tool calls it keeps (each result needs its call) hold it over the limit even with their arguments elided"
	switch {
	case err != nil:
		over.Why = err.Error()
	case bytes.HasPrefix(content, []byte(`[{"type":"text","text":"`+slimMark)):
		over.Why = "already slim's placeholder: " + calls
	case len(repl) >= len(content):
		over.Why = fmt.Sprintf("a placeholder would save nothing (%s): %s", text.Bytes(int64(len(repl))), calls)
	default:
		b.contextEdit(Added{TargetID: src.ID(), Why: fmt.Sprintf("%s content of %s elided", el.Kind, text.Bytes(int64(el.Bytes)))}, repl)
		el.EditID = b.parent
		p.Elided = append(p.Elided, el)
		over.Bytes, over.Why = len(repl), "edited, but "+calls
	}
	if int64(over.Bytes) > maxBytes {
		p.Over = append(p.Over, over)
	}
}

// roleAndContent returns a message's role and its content as written (a
// slice of msg, not a copy: a 300 MB content was copied three times by
// encoding/json, once per look). Keys match exactly, as in pi.
func roleAndContent(msg json.RawMessage) (string, json.RawMessage) {
	var t session.Tape
	if t.Build(msg) != nil {
		return "", nil // a message that is not an object has neither
	}
	return strings.Clone(t.StrOf(0, "role")), t.Raw(t.Get(0, "content")) // the role is kept (Elided, Over): not a view of msg
}

// editable is pi 1.6.0's rule for context_edit targets: a custom_message
// entry, or a message entry of role user, assistant or toolResult.
func editable(src *project.Entry, role string) bool {
	return src != nil && (src.Type() == "custom_message" ||
		src.Type() == "message" && (role == "user" || role == "assistant" || role == "toolResult"))
}

func notEditable(src *project.Entry) string {
	if src != nil && src.Type() == "compaction" {
		return "a compaction's summary or retainedTail message: a context_edit cannot change it"
	}
	return "not a message a context_edit can change (pi edits user, assistant, toolResult and custom messages)"
}

// placeholder is the replacement content of a message.
func placeholder(msg json.RawMessage, role string, el Elided, maxBytes int64) (json.RawMessage, error) {
	what := map[string]string{"user": "user message", "assistant": "assistant message", "custom": "extension message"}[role]
	if role == "toolResult" {
		var t session.Tape
		_ = t.Build(msg) // a message of a role: an object
		what = t.StrOf(0, "toolName") + " output"
	}
	text := fmt.Sprintf(slimMark+"%s of %s (%s) from entry %s; the full content is still in the session file]",
		text.Bytes(int64(el.Bytes)), what, el.Kind, el.EntryID)
	switch role {
	case "assistant":
		return assistantPlaceholder(msg, text, maxBytes)
	case "toolResult":
		return textContent(text), nil
	}
	return jsonString(text), nil
}

// assistantPlaceholder keeps an assistant message's tool calls after the
// placeholder text, each with its arguments elided when they are large;
// while that leaves it over maxBytes, the largest arguments left are
// elided too, as long as their elision is shorter.
func assistantPlaceholder(msg json.RawMessage, text string, maxBytes int64) (json.RawMessage, error) {
	var t session.Tape
	if t.Build(msg) != nil {
		return nil, fmt.Errorf("its content is not an array of blocks")
	}
	content := t.Get(0, "content")
	if k := t.Kind(content); k != session.KindArray && !absent(k) { // no content is no blocks
		return nil, fmt.Errorf("its content is not an array of blocks")
	}
	out := [][]byte{textBlock(text)}
	type kept struct{ at, args int } // a call of out whose arguments stay
	var small []kept
	for el := range t.Elements(content) {
		if t.StrOf(el, "type") != "toolCall" {
			continue
		}
		raw, args := t.Raw(el), len(t.Raw(t.Get(el, "arguments")))
		if args <= bigArguments {
			small = append(small, kept{len(out), args})
			out = append(out, raw)
			continue
		}
		short, err := elideArguments(raw, args)
		if err != nil {
			return nil, err
		}
		out = append(out, short)
	}
	slices.SortStableFunc(small, func(a, b kept) int { return b.args - a.args })
	size := len(jsonArray(out))
	for _, k := range small {
		if int64(size) <= maxBytes {
			break
		}
		short, err := elideArguments(out[k.at], k.args)
		if err != nil {
			return nil, err
		}
		if len(short) < len(out[k.at]) {
			size += len(short) - len(out[k.at])
			out[k.at] = short
		}
	}
	return jsonArray(out), nil
}

// elideArguments is a toolCall block with its arguments (n bytes) replaced
// by {"elided":"SIZE of arguments elided by pisess slim"}.
func elideArguments(call json.RawMessage, n int) (json.RawMessage, error) {
	var t session.Tape
	if err := t.Build(call); err != nil {
		return nil, err
	}
	args := fmt.Sprintf(`{"elided":%s}`, jsonString(fmt.Sprintf("%s of arguments elided by pisess slim", text.Bytes(int64(n)))))
	return setMembers(&t, member{"arguments", json.RawMessage(args)}), nil
}

// kindOf says what a message's content holds: text, images, or both.
func kindOf(msg json.RawMessage) string {
	var t session.Tape
	if t.Build(msg) != nil {
		return "content"
	}
	content := t.Get(0, "content")
	if t.Kind(content) == session.KindString {
		return "text"
	}
	counts := map[string]int{}
	for el := range t.Elements(content) {
		counts[t.StrOf(el, "type")]++
	}
	var parts []string
	if counts["text"]+counts["thinking"] > 0 {
		parts = append(parts, "text")
	}
	for _, k := range []struct{ typ, name string }{{"image", "image"}, {"toolCall", "tool call"}} {
		switch n := counts[k.typ]; {
		case n == 1:
			parts = append(parts, "1 "+k.name)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", n, k.name))
		}
	}
	if len(parts) == 0 {
		return "content"
	}
	return strings.Join(parts, " and ")
}
