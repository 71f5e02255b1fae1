//go:build unix

package hostile

import "strings"

// Payload is a JSON string body (without quotes) that decodes to terminal
// control sequences: SGR colour, a screen clear, an OSC window title and an
// OSC 8 hyperlink ended by BEL, the 8-bit CSI, OSC and DCS (C1 controls, as
// escapes and as raw UTF-8), carriage return, backspace and DEL.
const Payload = `A\u001b[31mRED\u001b[0m\u001b[2J\u0007` +
	`\u001b]0;pwned\u0007\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\` +
	`\u009b31m\u009d0;c1\u0007\u0090q\u009c` + "\u009b1m\u0085" +
	`\r\bhidden\u007fZ`

// EscapeFileName is a file name that itself carries ESC, BEL, a raw 8-bit
// CSI byte (not UTF-8) and the UTF-8 form of the same C1 control.
const EscapeFileName = "evil-\x1b[31m-\x07-\x9b-\xc2\x9b-\x1b]0;t\x07.jsonl"

// EscapeLines is a session whose every displayed field carries Payload:
// texts, thinking, ids, labels, the cwd, custom types, tool names, model
// and provider names, summaries, commands, error messages and the session
// name.
func EscapeLines() []string {
	p := `"` + Payload + `"`
	evilID := `"e1\u001b[2J"`
	return []string{
		strings.Replace(Header(3), `"cwd":"/home/user/project"`, `"cwd":`+p, 1),
		Entry("model_change", ID(1), "", `"provider":`+p, `"modelId":`+p),
		Entry("thinking_level_change", ID(2), ID(1), `"thinkingLevel":`+p),
		Entry("message", ID(3), ID(2), UserMsg(p)),
		Entry("message", ID(4), ID(3), `"message":{"role":"assistant","content":[{"type":"thinking","thinking":`+p+`},{"type":"text","text":`+p+`},`+
			`{"type":"toolCall","id":`+p+`,"name":`+p+`,"arguments":{"command":`+p+`}}],"api":`+p+`,"provider":`+p+`,"model":`+p+
			`,"usage":`+Usage("3", "0.1")+`,"stopReason":"toolUse","timestamp":1}`),
		Entry("message", ID(5), ID(4), `"message":{"role":"toolResult","toolCallId":`+p+`,"toolName":`+p+`,"content":[{"type":"text","text":`+p+`}],"isError":true,"timestamp":1}`),
		RawEntry("message", evilID, Q(ID(5)), `"message":{"role":"assistant","content":[{"type":"text","text":`+p+`}],"api":"x","provider":"x","model":"x","usage":`+Usage("3", "0.1")+`,"stopReason":"error","errorMessage":`+p+`,"timestamp":1}`),
		RawEntry("label", Q(ID(7)), evilID, `"targetId":`+evilID, `"label":`+p),
		Entry("session_info", ID(8), ID(7), `"name":`+p),
		Entry("custom_message", ID(9), ID(8), `"customType":`+p, `"content":`+p, `"display":true`),
		Entry("custom", ID(10), ID(9), `"customType":`+p, `"data":{"x":`+p+`}`),
		Entry("message", ID(11), ID(10), `"message":{"role":"bashExecution","command":`+p+`,"output":`+p+`,"exitCode":1,"cancelled":false,"truncated":false,"timestamp":1}`),
		Entry("message", ID(12), ID(11), `"message":{"role":"custom","customType":`+p+`,"content":`+p+`,"display":true,"timestamp":1}`),
		Entry("branch_summary", ID(13), ID(3), `"fromId":`+Q(ID(12)), `"summary":`+p),
		Entry("compaction", ID(14), ID(13), `"summary":`+p, `"tokensBefore":5`, `"firstKeptEntryId":`+Q(ID(13))),
		Entry("usage", ID(15), ID(14), `"kind":`+p, `"provider":`+p, `"model":`+p, `"usage":`+Usage("2", "0.01"), `"note":`+p),
		Entry("context_edit", ID(16), ID(15), `"targetId":`+Q(ID(3)), `"replacement":{"content":`+p+`}`),
		Entry("message", ID(17), ID(16), UserMsg(p)),
		Entry(`type`+"\u001b[5m", ID(18), ID(17)),
		`{"type":"message","id":` + p + `,"parentId":` + p + `,` + stamp + `,"message":{"role":` + p + `}}`,
	}
}

// Escapes is EscapeLines as a file.
func Escapes() []byte { return Lines(EscapeLines()...) }
