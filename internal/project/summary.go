package project

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/pisess/pisess/internal/parse"
)

// snippetRunes is how much text a summary quotes.
const snippetRunes = 60

// Summary describes an entry in one short line: the role and first words
// of a message, the tools an assistant called, the size of a tool result, a
// model or thinking-level change, and so on.
//
// Deprecated: the views describe entries with render.Summary; this copy is
// kept only until internal/export moves to it.
func Summary(e *Entry) string {
	r, err := e.s.Read(e)
	if err != nil {
		return "(unreadable)"
	}
	field := func(name string) []byte { return r.Tape.Raw(r.Member(name)) }
	switch e.Type {
	case "message":
		return messageSummary(r)
	case "custom_message":
		return join("custom_message "+r.Str("customType")+":", snippet(contentText(&r.Tape, r.Member("content"))))
	case "compaction":
		return join(fmt.Sprintf("compaction (%s tokens before):", rawText(field("tokensBefore"))), snippet(r.Str("summary")))
	case "context_edit":
		if isNull(field("replacement")) {
			return "context edit: omit " + r.Str("targetId")
		}
		return "context edit: replace content of " + r.Str("targetId")
	case "usage":
		return fmt.Sprintf("usage %s %s/%s: %d tokens", r.Str("kind"), r.Str("provider"), r.Str("model"), usageTokens(&r.Tape, r.Member("usage")))
	}
	return otherSummary(e)
}

// otherSummary describes the entries whose summary needs no record.
func otherSummary(e *Entry) string {
	switch e.Type {
	case "branch_summary":
		return join("branch summary (from "+e.StringField("fromId")+"):", snippet(e.StringField("summary")))
	case "model_change":
		return "model → " + e.StringField("provider") + "/" + e.StringField("modelId")
	case "thinking_level_change":
		return "thinking level → " + e.StringField("thinkingLevel")
	case "label":
		if l := e.StringField("label"); l != "" {
			return fmt.Sprintf("label %q on %s", l, e.StringField("targetId"))
		}
		return "label cleared on " + e.StringField("targetId")
	case "session_info":
		return "session name: " + snippet(e.StringField("name"))
	case "custom":
		return "custom " + e.StringField("customType")
	case "":
		return "(no type)"
	}
	return e.Type
}

// messageSummary describes the AgentMessage of a message record.
func messageSummary(r *Record) string {
	t, m := &r.Tape, r.Member("message")
	if t.Kind(m) != parse.KindObject {
		return "message (unreadable)"
	}
	content := t.Get(m, "content")
	role := t.StrOf(m, "role")
	if r.Entry.Role() != "" {
		role = r.Entry.Role()
	}
	switch role {
	case "assistant":
		return assistantSummary(t, m)
	case "toolResult":
		text := contentText(t, content)
		s := fmt.Sprintf("toolResult %s (%s)", t.StrOf(m, "toolName"), byteSize(len(text)))
		if t.Kind(t.Get(m, "isError")) == parse.KindTrue {
			s += " error"
		}
		return join(s+":", snippet(text))
	case "bashExecution":
		s := "bash $ " + snippet(t.StrOf(m, "command"))
		if code := rawText(t.Raw(t.Get(m, "exitCode"))); code != "" && code != "0" && code != "null" {
			s += " (exit " + code + ")"
		}
		return s
	case "custom":
		return join("custom "+t.StrOf(m, "customType")+":", snippet(contentText(t, content)))
	case "branchSummary", "compactionSummary":
		return join(role+":", snippet(t.StrOf(m, "summary")))
	}
	return join(role+":", snippet(contentText(t, content)))
}

// assistantSummary: "assistant: first words → tool, tool (stopReason)".
func assistantSummary(t *parse.Tape, m int) string {
	var text, thinking strings.Builder
	var tools []string
	for _, b := range blocksOf(t, t.Get(m, "content")) {
		switch {
		case b.Type == "text" && b.Text != nil:
			text.WriteString(*b.Text + " ")
		case b.Type == "thinking" && b.Thinking != nil:
			thinking.WriteString(*b.Thinking + " ")
		case b.Type == "toolCall" && b.Name != nil:
			tools = append(tools, *b.Name)
		}
	}
	s := "assistant"
	switch {
	case strings.TrimSpace(text.String()) != "":
		s += ": " + snippet(text.String())
	case strings.TrimSpace(thinking.String()) != "":
		s += ": (thinking) " + snippet(thinking.String())
	}
	if len(tools) > 0 {
		s += " → " + strings.Join(tools, ", ")
	}
	switch stop := t.StrOf(m, "stopReason"); stop {
	case "", "stop", "toolUse":
	case "error":
		s += " (error"
		if msg := t.StrOf(m, "errorMessage"); msg != "" {
			s += ": " + snippet(msg)
		}
		s += ")"
	default:
		s += " (" + stop + ")"
	}
	return s
}

// contentText joins the text of a string or block-array content; images
// show as [image].
func contentText(t *parse.Tape, content int) string {
	if s, ok := t.Str(content); ok {
		return s
	}
	var parts []string
	for _, b := range blocksOf(t, content) {
		switch {
		case b.Type == "text" && b.Text != nil:
			parts = append(parts, *b.Text)
		case b.Type == "image":
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, " ")
}

// snippet collapses white space and cuts s to snippetRunes runes.
func snippet(s string) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	r := []rune(s)
	if len(r) <= snippetRunes {
		return s
	}
	return strings.TrimRightFunc(string(r[:snippetRunes-1]), unicode.IsSpace) + "…"
}

func join(prefix, text string) string {
	if text == "" {
		return strings.TrimSuffix(prefix, ":")
	}
	return prefix + " " + text
}

// rawText returns a raw scalar as text: strings unquoted, others verbatim.
func rawText(raw []byte) string {
	if s, ok := rawString(raw); ok {
		return s
	}
	return string(raw)
}

// byteSize formats a byte count for people.
func byteSize(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// usageTokens counts a usage record as cli.md does: totalTokens, or the
// sum of its parts when absent.
func usageTokens(t *parse.Tape, u int) int {
	if total, ok := t.Float(t.Get(u, "totalTokens")); ok {
		return int(total)
	}
	sum := 0.0
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
		f, _ := t.Float(t.Get(u, k))
		sum += f
	}
	return int(sum)
}
