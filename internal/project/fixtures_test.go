package project

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// Fixtures are small sessions written for the unit tests. The conformance
// test also runs pi on every one of them (except those marked notForPi), so
// what the unit tests expect is, where pi 0.73.1 has the feature, what pi
// does.

type fixture struct {
	name     string
	lines    []string
	notForPi string // why pi is not run on it
}

func (f fixture) text() string { return strings.Join(f.lines, "\n") + "\n" }

// load parses the fixture.
func (f fixture) load(t testing.TB) *Session {
	t.Helper()
	s, err := Load(strings.NewReader(f.text()), session.DefaultLimits())
	if err != nil {
		t.Fatalf("%s: %v", f.name, err)
	}
	return s
}

// writeFixtures writes the fixtures pi can read into dir.
func writeFixtures(t *testing.T, dir string) []string {
	var paths []string
	for _, f := range fixtures {
		if f.notForPi != "" {
			continue
		}
		p := filepath.Join(dir, "fixture-"+f.name+".jsonl")
		if err := os.WriteFile(p, []byte(f.text()), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func fixtureNamed(t testing.TB, name string) fixture {
	for _, f := range fixtures {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no fixture %q", name)
	return fixture{}
}

// ---- builders ----

const sessionID = "019a0000-0000-7000-8000-000000000001"

func header(version int) string {
	v := ""
	if version > 1 {
		v = fmt.Sprintf(`"version":%d,`, version)
	}
	return `{"type":"session",` + v + `"id":"` + sessionID + `","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
}

// ts is the entry timestamp sec seconds after the session start.
func ts(sec int) string { return fmt.Sprintf("2026-01-01T00:%02d:%02d.000Z", sec/60, sec%60) }

// ms is the Unix milliseconds of ts(sec).
func ms(sec int) int64 { return 1767225600000 + int64(sec)*1000 }

// ent builds a version-2/3 entry; members are extra raw JSON members.
func ent(typ, id, parent string, sec int, members string) string {
	p := "null"
	if parent != "" {
		p = strconv.Quote(parent)
	}
	s := fmt.Sprintf(`{"type":%q,"id":%q,"parentId":%s,"timestamp":%q`, typ, id, p, ts(sec))
	if members != "" {
		s += "," + members
	}
	return s + "}"
}

// v1 builds a version-1 entry (no id, no parentId).
func v1(typ string, sec int, members string) string {
	s := fmt.Sprintf(`{"type":%q,"timestamp":%q`, typ, ts(sec))
	if members != "" {
		s += "," + members
	}
	return s + "}"
}

func userMsg(sec int, text string) string {
	return fmt.Sprintf(`"message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":%d}`, text, ms(sec))
}

// asstMsg is an assistant message; calls are "id:name" tool calls.
func asstMsg(sec int, stop, text string, calls ...string) string {
	blocks := []string{fmt.Sprintf(`{"type":"text","text":%q}`, text)}
	for _, c := range calls {
		id, name, _ := strings.Cut(c, ":")
		blocks = append(blocks, fmt.Sprintf(`{"type":"toolCall","id":%q,"name":%q,"arguments":{"command":"ls -l","n":1.50,"big":1e21}}`, id, name))
	}
	return fmt.Sprintf(`"message":{"role":"assistant","content":[%s],"api":"anthropic-messages","provider":"anthropic","model":"claude-test","usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":%q,"timestamp":%d}`,
		strings.Join(blocks, ","), stop, ms(sec))
}

func resultMsg(sec int, callID, name, text string) string {
	return fmt.Sprintf(`"message":{"role":"toolResult","toolCallId":%q,"toolName":%q,"content":[{"type":"text","text":%q}],"isError":false,"timestamp":%d}`, callID, name, text, ms(sec))
}

// obj turns a "message":{…} member into the bare message object.
func obj(member string) string { return strings.TrimPrefix(member, `"message":`) }

func user(id, parent string, sec int, text string) string {
	return ent("message", id, parent, sec, userMsg(sec, text))
}

func asst(id, parent string, sec int, stop, text string, calls ...string) string {
	return ent("message", id, parent, sec, asstMsg(sec, stop, text, calls...))
}

func result(id, parent string, sec int, callID, name, text string) string {
	return ent("message", id, parent, sec, resultMsg(sec, callID, name, text))
}

func compaction(id, parent string, sec int, summary, firstKept string, extra string) string {
	m := fmt.Sprintf(`"summary":%q,"firstKeptEntryId":%q,"tokensBefore":%d`, summary, firstKept, 1000+sec)
	if extra != "" {
		m += "," + extra
	}
	return ent("compaction", id, parent, sec, m)
}

func label(id, parent string, sec int, target, text string) string {
	m := fmt.Sprintf(`"targetId":%q`, target)
	if text != "-" {
		m += fmt.Sprintf(`,"label":%q`, text)
	}
	return ent("label", id, parent, sec, m)
}

// ---- the fixtures ----

var fixtures = []fixture{
	{name: "branches-labels", lines: []string{
		header(3),
		ent("model_change", "m0", "", 1, `"provider":"openai","modelId":"gpt-test"`),
		user("a", "m0", 2, "hello"),
		asst("b", "a", 3, "stop", "hi there"),
		user("c", "b", 9, "go left"),
		asst("c2", "c", 10, "stop", "went left"),
		label("l1", "c2", 11, "a", "start"),
		label("l2", "l1", 12, "c", "left"),
		label("l3", "l2", 13, "c", "-"),
		label("l4", "l3", 14, "b", "greeting"),
		label("l5", "l4", 15, "b", "hello-again"),
		ent("branch_summary", "d", "b", 5, `"fromId":"l5","summary":"The user went left.","details":{"readFiles":[],"modifiedFiles":[]},"fromHook":false`),
		user("e", "d", 16, "go right"),
		asst("f", "e", 17, "stop", "went right"),
		ent("thinking_level_change", "g", "b", 4, `"thinkingLevel":"high"`),
		label("l6", "f", 18, "b", ""),
	}},
	{name: "compactions", lines: []string{
		header(3),
		user("a", "", 1, "one"),
		asst("b", "a", 2, "stop", "two"),
		user("c", "b", 3, "three"),
		asst("d", "c", 4, "stop", "four"),
		compaction("k1", "d", 5, "first summary", "c", `"details":{"readFiles":["x"],"modifiedFiles":[]},"fromHook":false`),
		user("e", "k1", 6, "five"),
		asst("f", "e", 7, "stop", "six"),
		compaction("k2", "f", 8, "second summary", "c", ""),
		user("g", "k2", 9, "seven"),
		asst("h", "g", 10, "stop", "eight"),
		compaction("k3", "d", 11, "self summary", "k3", ""),
		user("i", "k3", 12, "after self"),
		compaction("k4", "d", 13, "dangling summary", "nope", ""),
		user("j", "k4", 14, "after dangling"),
	}},
	{name: "retained-tail", notForPi: "pi 0.73.1 has no retainedTail", lines: []string{
		header(3),
		user("a", "", 1, "one"),
		asst("b", "a", 2, "stop", "two"),
		compaction("k", "b", 3, "checkpoint", "a",
			`"retainedTail":[`+obj(userMsg(1, "tail user"))+`,`+obj(asstMsg(2, "stop", "tail assistant"))+`]`),
		user("c", "k", 4, "after"),
		compaction("k2", "c", 5, "empty tail", "a", `"retainedTail":[]`),
		user("d", "k2", 6, "after empty tail"),
	}},
	{name: "context-edits", lines: []string{
		header(3),
		user("a", "", 1, "my password is hunter2"),
		asst("b", "a", 2, "toolUse", "reading", "call1:read"),
		result("c", "b", 3, "call1", "read", "a very long file"),
		ent("custom_message", "cm", "c", 4, `"customType":"note","content":"original note","display":true`),
		ent("context_edit", "x1", "cm", 5, `"targetId":"a","replacement":{"content":"my password is [redacted]"}`),
		ent("context_edit", "x2", "x1", 6, `"targetId":"c","replacement":{"content":"(elided)"}`),
		ent("context_edit", "x3", "x2", 7, `"targetId":"b","replacement":{"content":[{"type":"text","text":"superseded by x6"},{"type":"toolCall","id":"call1","name":"read","arguments":{}}]}`),
		ent("context_edit", "x4", "x3", 8, `"targetId":"cm","replacement":{"content":"edited note"}`),
		ent("context_edit", "x5", "x4", 9, `"targetId":"a","replacement":null`),
		ent("context_edit", "x6", "x5", 10, `"targetId":"b","replacement":{"content":[{"type":"text","text":"short"},{"type":"toolCall","id":"call1","name":"read","arguments":{}}]}`),
		ent("context_edit", "x7", "x6", 12, `"targetId":"c","replacement":null`),
		user("d", "x6", 11, "next"),
	}},
	// What pi 1.6.0 changed: system messages, a compaction's systemMessage,
	// null content, the latest edit of a target whatever it says, edits that
	// omit any entry, an older compaction kept inside the newest kept range.
	{name: "pi1-projection", lines: []string{
		header(3),
		ent("message", "s0", "", 1, `"message":{"role":"system","content":"","sections":{"preamble":"You are careful."},"toolsAdded":[{"name":"read","description":"Read","parameters":{}}],"timestamp":1767225601000}`),
		user("a", "s0", 2, "one"),
		ent("message", "s1", "a", 3, `"message":{"role":"system","content":null,"sections":{"cwd":"/w"},"timestamp":1767225603000}`),
		asst("b", "s1", 4, "stop", "two"),
		user("c", "b", 5, "three"),
		compaction("k1", "c", 6, "first summary", "a", `"systemMessage":{"role":"system","content":"checkpoint","sections":{"preamble":"You are careful.","cwd":"/w"},"timestamp":1767225606000}`),
		ent("message", "e", "k1", 7, `"message":{"role":"user","content":null,"timestamp":1767225607000}`),
		ent("message", "s2", "e", 8, `"message":{"role":"system","content":[{"type":"text","text":"later rules"}],"toolsRemoved":[{"name":"read"}],"timestamp":1767225608000}`),
		ent("message", "f", "s2", 9, `"message":{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-test","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","timestamp":1767225609000}`),
		ent("custom_message", "cm", "f", 10, `"customType":"note","content":null,"display":true`),
		ent("context_edit", "x1", "cm", 11, `"targetId":"a","replacement":{"content":"edited"}`),
		ent("context_edit", "x2", "x1", 12, `"targetId":"a","replacement":{"content":[{"type":"text","text":"edited again"}]}`),
		ent("context_edit", "x3", "x2", 13, `"targetId":"b","replacement":"not an object"`),
		ent("message", "bash", "x3", 14, `"message":{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1767225614000}`),
		ent("context_edit", "x4", "bash", 15, `"targetId":"bash","replacement":null`),
		ent("context_edit", "x5", "x4", 16, `"targetId":"k1","replacement":{"content":"ignored by system and summary"}`),
		compaction("k2", "x5", 17, "second summary", "b", ""),
		user("h", "k2", 18, "end"),
		user("h2", "x5", 19, "other end"),
	}},
	// pi 1.6.0 throws on the latest edit of a user message when it has no
	// replacement; we leave the message as it is.
	{name: "edit-without-replacement", lines: []string{
		header(3),
		ent("message", "s", "", 1, `"message":{"content":null,"role":"system"}`),
		user("a", "s", 1, "original"),
		ent("context_edit", "x1", "a", 2, `"targetId":"a","replacement":{"content":"first edit"}`),
		ent("context_edit", "x2", "x1", 3, `"targetId":"a"`),
	}},
	{name: "custom-and-summaries", lines: []string{
		header(3),
		ent("custom_message", "a", "", 1, `"customType":"note","content":"plain","display":true`),
		ent("custom_message", "b", "a", 2, `"customType":"rich","content":[{"type":"text","text":"block"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"display":false,"details":{"k":[1,2.50,null]}`),
		ent("custom_message", "b2", "b", 3, `"customType":"nulldetails","content":"x","display":true,"details":null`),
		ent("branch_summary", "c", "b2", 4, `"fromId":"root","summary":""`),
		ent("branch_summary", "d", "c", 5, `"fromId":"root","summary":"from the root"`),
		ent("custom", "e", "d", 6, `"customType":"state","data":{"n":1}`),
		ent("session_info", "f", "e", 7, `"name":"My session"`),
		ent("usage", "g", "f", 8, `"kind":"title","provider":"anthropic","model":"claude-test","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`),
		ent("message", "h", "g", 9, `"message":{"role":"bashExecution","command":"ls","output":"a\nb","exitCode":1,"cancelled":false,"truncated":false,"timestamp":1767225609000}`),
		ent("custom_message", "i", "h", 10, `"customType":"when","content":"odd time","display":true,"timestamp":"2026-01-01T01:00:00+02:00"`),
	}},
	{name: "settings", lines: []string{
		header(3),
		ent("thinking_level_change", "a", "", 1, `"thinkingLevel":"low"`),
		ent("model_change", "b", "a", 2, `"provider":"openai","modelId":"gpt-a"`),
		user("c", "b", 3, "q"),
		asst("d", "c", 4, "stop", "answer"),
		ent("model_change", "e", "d", 5, `"provider":"google","modelId":"gemini-b"`),
		ent("thinking_level_change", "f", "e", 6, `"thinkingLevel":"xhigh"`),
		ent("model_change", "g", "b", 7, `"provider":"openai","modelId":"gpt-c"`),
		ent("thinking_level_change", "h", "g", 8, ``),
	}},
	{name: "v1-linear", lines: []string{
		`{"type":"session","id":"` + sessionID + `","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","provider":"anthropic","modelId":"claude-test","thinkingLevel":"off"}`,
		v1("message", 1, userMsg(1, "first")),
		"",
		v1("message", 2, asstMsg(2, "stop", "second")),
		v1("thinking_level_change", 3, `"thinkingLevel":"medium"`),
		"   ",
		v1("message", 4, userMsg(4, "third")),
		v1("message", 5, `"message":{"role":"hookMessage","customType":"hook","content":"from a hook","display":true,"timestamp":1767225605000}`),
		v1("compaction", 6, `"summary":"v1 summary","firstKeptEntryIndex":3,"tokensBefore":500`),
		v1("message", 7, userMsg(7, "after")),
	}},
	{name: "v1-forward-index", lines: []string{
		header(1),
		v1("message", 1, userMsg(1, "first")),
		v1("compaction", 2, `"summary":"forward","firstKeptEntryIndex":3,"tokensBefore":600`),
		v1("message", 3, userMsg(3, "last")),
	}},
	{name: "v1-index-header", lines: []string{
		header(1),
		v1("message", 1, userMsg(1, "first")),
		v1("compaction", 2, `"summary":"points at the header","firstKeptEntryIndex":0,"tokensBefore":5`),
	}},
	{name: "v2-hook", lines: []string{
		header(2),
		user("a", "", 1, "hi"),
		ent("message", "b", "a", 2, `"message":{"role":"hookMessage","customType":"hook","content":"hooked","display":true,"timestamp":1767225602000}`),
	}},
	{name: "orphans-and-order", lines: []string{
		header(3),
		user("a", "", 1, "root one"),
		user("b", "gone", 2, "orphan"),
		asst("c", "a", 9, "stop", "late child"),
		asst("d", "a", 3, "stop", "early child"),
		ent("message", "e", "a", 5, userMsg(5, "same time 1")),
		ent("message", "f", "a", 5, userMsg(5, "same time 2")),
		`{"type":"message","id":"g","parentId":"a","timestamp":"garbage",` + userMsg(6, "bad time") + `}`,
		user("h", "", 7, "root two"),
	}},
	{name: "cycle", lines: []string{
		header(3),
		user("r", "", 1, "real root"),
		user("s", "s", 2, "self parent"),
		user("x", "y", 3, "cycle x"),
		user("y", "x", 4, "cycle y"),
		user("z", "y", 5, "below the cycle"),
	}},
	{name: "rule6", lines: []string{
		header(3),
		user("a", "", 1, "start"),
		asst("b", "a", 2, "toolUse", "two calls", "t1:read", "t2:bash"),
		result("c", "b", 3, "t1", "read", "file"),
		user("d", "c", 4, "interrupt"),
		result("e", "d", 5, "t2", "bash", "late"),
		asst("f", "e", 6, "aborted", "aborted call", "t3:read"),
		user("g", "f", 7, "again"),
		asst("h", "g", 8, "toolUse", "call", "t4:read"),
		result("i", "h", 9, "t4", "read", "ok"),
		result("i2", "i", 10, "t4", "read", "duplicate"),
		asst("j", "i2", 11, "toolUse", "trailing", "t5:bash"),
	}},
	{name: "rule6-compaction-cut", lines: []string{
		header(3),
		user("a", "", 1, "start"),
		asst("b", "a", 2, "toolUse", "call", "t1:read"),
		result("c", "b", 3, "t1", "read", "file"),
		asst("d", "c", 4, "stop", "done"),
		compaction("k", "d", 5, "cut between call and result", "c", ""),
		user("e", "k", 6, "continue"),
	}},
	{name: "rule6-system", lines: []string{
		header(3),
		user("a", "", 1, "start"),
		asst("b", "a", 2, "toolUse", "call", "t1:read"),
		ent("message", "s", "b", 3, `"message":{"role":"system","content":"","sections":{"skills":"new"},"timestamp":1767225603000}`),
		result("c", "s", 4, "t1", "read", "file"),
		asst("d", "c", 5, "stop", "done"),
	}},
	{name: "header-only", lines: []string{header(3)}},
	{name: "not-a-session", lines: []string{`{"version":1,"recordType":"message","text":"artifact"}`, `{"type":"message"}`}},
}
