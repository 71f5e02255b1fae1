//go:build unix

package hostile

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SessionID is the header id of every generated session.
const SessionID = "019c0000-0000-7000-8000-00000000cafe"

// stamp is the entry timestamp member; msStamp the message timestamp.
const (
	stamp   = `"timestamp":"2026-01-02T03:04:05.678Z"`
	msStamp = 1767323045678
)

// Q returns s as a JSON string token.
func Q(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return string(b)
}

// ID is the i-th generated entry id: 8 hex digits, like pi's.
func ID(i int) string { return fmt.Sprintf("%08x", i) }

// Header is a session header line (no terminator) of the given version
// (1: no version member, as pi wrote them) with extra members appended.
func Header(version int, members ...string) string {
	parts := []string{`"type":"session"`}
	if version != 1 {
		parts = append(parts, fmt.Sprintf(`"version":%d`, version))
	}
	parts = append(parts, `"id":`+Q(SessionID), stamp, `"cwd":"/home/user/project"`)
	return "{" + strings.Join(append(parts, members...), ",") + "}"
}

// Entry is a version-3 entry line; parent "" is null.
func Entry(typ, id, parent string, members ...string) string {
	p := "null"
	if parent != "" {
		p = Q(parent)
	}
	return RawEntry(typ, Q(id), p, members...)
}

// RawEntry is Entry with the id and parentId given as JSON tokens, so
// they can hold escapes of any kind.
func RawEntry(typ, id, parent string, members ...string) string {
	parts := []string{`"type":` + Q(typ), `"id":` + id, `"parentId":` + parent, stamp}
	return "{" + strings.Join(append(parts, members...), ",") + "}"
}

// V1Entry is a version-1 entry line: no id, no parentId.
func V1Entry(typ string, members ...string) string {
	parts := []string{`"type":` + Q(typ), stamp}
	return "{" + strings.Join(append(parts, members...), ",") + "}"
}

// UserMsg is the message member of a user message whose text is the JSON
// token text.
func UserMsg(text string) string {
	return fmt.Sprintf(`"message":{"role":"user","content":[{"type":"text","text":%s}],"timestamp":%d}`, text, msStamp)
}

// Usage is a usage object with the given token and cost tokens (JSON).
func Usage(tokens, cost string) string {
	return fmt.Sprintf(`{"input":%s,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":%s,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":%s}}`,
		tokens, tokens, cost)
}

// AssistantMsg is the message member of an assistant message with the
// given content blocks (a JSON array's elements) and usage object.
func AssistantMsg(blocks, usage string) string {
	return fmt.Sprintf(`"message":{"role":"assistant","content":[%s],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":%s,"stopReason":"stop","timestamp":%d}`,
		blocks, usage, msStamp)
}

// TextBlock is a text content block whose text is the JSON token text.
func TextBlock(text string) string { return `{"type":"text","text":` + text + `}` }

// ToolCallBlock is a toolCall content block.
func ToolCallBlock(id, name, args string) string {
	return fmt.Sprintf(`{"type":"toolCall","id":%s,"name":%s,"arguments":%s}`, Q(id), Q(name), args)
}

// ToolResultMsg is the message member of a tool result.
func ToolResultMsg(callID, name, text string) string {
	return fmt.Sprintf(`"message":{"role":"toolResult","toolCallId":%s,"toolName":%s,"content":[{"type":"text","text":%s}],"isError":false,"timestamp":%d}`,
		Q(callID), Q(name), text, msStamp)
}

// Lines joins lines into a file: each line ends in "\n".
func Lines(lines ...string) []byte {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// BaseLines is a small, valid version-3 session that touches every kind of
// entry the views display: model and thinking changes, a user turn, a tool
// call and its result, a label, a session name, a custom message, extension
// state, a compaction and a branch.
func BaseLines() []string {
	return []string{
		Header(3),
		Entry("model_change", ID(1), "", `"provider":"anthropic"`, `"modelId":"claude-sonnet-4-5"`),
		Entry("thinking_level_change", ID(2), ID(1), `"thinkingLevel":"low"`),
		Entry("message", ID(3), ID(2), UserMsg(Q("list the files"))),
		Entry("message", ID(4), ID(3), AssistantMsg(TextBlock(Q("Looking."))+","+ToolCallBlock("call_1", "bash", `{"command":"ls"}`), Usage("10", "0.001"))),
		Entry("message", ID(5), ID(4), ToolResultMsg("call_1", "bash", Q("a.go\nb.go"))),
		Entry("message", ID(6), ID(5), AssistantMsg(TextBlock(Q("Two Go files.")), Usage("12", "0.002"))),
		Entry("label", ID(7), ID(6), `"targetId":`+Q(ID(3)), `"label":"start"`),
		Entry("session_info", ID(8), ID(7), `"name":"base session"`),
		Entry("custom_message", ID(9), ID(8), `"customType":"note"`, `"content":"remember the tests"`, `"display":true`),
		Entry("custom", ID(10), ID(9), `"customType":"state"`, `"data":{"k":1}`),
		Entry("compaction", ID(11), ID(10), `"summary":"listed files"`, `"tokensBefore":22`, `"firstKeptEntryId":`+Q(ID(6))),
		Entry("message", ID(12), ID(11), UserMsg(Q("and tests?"))),
		Entry("message", ID(13), ID(12), AssistantMsg(TextBlock(Q("None yet.")), Usage("14", "0.003"))),
		Entry("message", ID(14), ID(6), UserMsg(Q("a branch from the first answer"))),
	}
}

// Base is BaseLines as a file.
func Base() []byte { return Lines(BaseLines()...) }

// BaseV1Lines is a small, valid version-1 session (no ids; one compaction
// with firstKeptEntryIndex).
func BaseV1Lines() []string {
	return []string{
		Header(1, `"provider":"anthropic"`, `"modelId":"claude-sonnet-4-5"`, `"thinkingLevel":"off"`),
		V1Entry("message", UserMsg(Q("hello"))),
		V1Entry("message", AssistantMsg(TextBlock(Q("hi")), Usage("5", "0.0005"))),
		V1Entry("message", UserMsg(Q("more"))),
		V1Entry("compaction", `"summary":"greeting"`, `"tokensBefore":5`, `"firstKeptEntryIndex":3`),
		V1Entry("message", AssistantMsg(TextBlock(Q("sure")), Usage("6", "0.0006"))),
	}
}

// BaseV1 is BaseV1Lines as a file.
func BaseV1() []byte { return Lines(BaseV1Lines()...) }
