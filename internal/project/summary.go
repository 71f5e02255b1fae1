package project

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// snippetRunes is how much text a summary quotes.
const snippetRunes = 60

// Summary describes an entry in one short line for tree and path views:
// the role and first words of a message, the tools an assistant called,
// the size of a tool result, a model or thinking-level change, and so on.
func Summary(e *Entry) string {
	switch e.Type {
	case "message":
		return messageSummary(e.Message())
	case "custom_message":
		return join("custom_message "+e.StringField("customType")+":", snippet(contentText(e.fields["content"])))
	case "compaction":
		return join(fmt.Sprintf("compaction (%s tokens before):", rawText(e.fields["tokensBefore"])), snippet(e.StringField("summary")))
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
	case "context_edit":
		if isNull(e.fields["replacement"]) {
			return "context edit: omit " + e.StringField("targetId")
		}
		return "context edit: replace content of " + e.StringField("targetId")
	case "usage":
		return fmt.Sprintf("usage %s %s/%s: %d tokens", e.StringField("kind"), e.StringField("provider"), e.StringField("model"), usageTokens(e.fields["usage"]))
	case "custom":
		return "custom " + e.StringField("customType")
	case "":
		return "(no type)"
	}
	return e.Type
}

// messageSummary describes an AgentMessage.
func messageSummary(raw json.RawMessage) string {
	var m struct {
		messageHead
		Command      string          `json:"command"`
		ExitCode     json.RawMessage `json:"exitCode"`
		CustomType   string          `json:"customType"`
		Summary      string          `json:"summary"`
		IsError      bool            `json:"isError"`
		ErrorMessage string          `json:"errorMessage"`
	}
	if !isObject(raw) || json.Unmarshal(raw, &m) != nil {
		return "message (unreadable)"
	}
	switch m.Role {
	case "assistant":
		return assistantSummary(m.messageHead, m.ErrorMessage)
	case "toolResult":
		text := contentText(m.Content)
		s := fmt.Sprintf("toolResult %s (%s)", m.ToolName, byteSize(len(text)))
		if m.IsError {
			s += " error"
		}
		return join(s+":", snippet(text))
	case "bashExecution":
		s := "bash $ " + snippet(m.Command)
		if code := rawText(m.ExitCode); code != "" && code != "0" && code != "null" {
			s += " (exit " + code + ")"
		}
		return s
	case "custom":
		return join("custom "+m.CustomType+":", snippet(contentText(m.Content)))
	case "branchSummary", "compactionSummary":
		return join(m.Role+":", snippet(m.Summary))
	}
	return join(m.Role+":", snippet(contentText(m.Content)))
}

// assistantSummary: "assistant: first words → tool, tool (stopReason)".
func assistantSummary(m messageHead, errorMessage string) string {
	var text, thinking strings.Builder
	var tools []string
	for _, b := range decodeBlocks(m.Content) {
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
	switch m.StopReason {
	case "", "stop", "toolUse":
	case "error":
		s += " (error"
		if errorMessage != "" {
			s += ": " + snippet(errorMessage)
		}
		s += ")"
	default:
		s += " (" + m.StopReason + ")"
	}
	return s
}

// contentText joins the text of a string or block-array content; images
// show as [image].
func contentText(content json.RawMessage) string {
	if s, ok := rawString(content); ok {
		return s
	}
	var parts []string
	for _, b := range decodeBlocks(content) {
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
func rawText(raw json.RawMessage) string {
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
func usageTokens(raw json.RawMessage) int {
	var u struct {
		TotalTokens                          *float64
		Input, Output, CacheRead, CacheWrite float64
	}
	if json.Unmarshal(raw, &u) != nil {
		return 0
	}
	if u.TotalTokens != nil {
		return int(*u.TotalTokens)
	}
	return int(u.Input + u.Output + u.CacheRead + u.CacheWrite)
}
