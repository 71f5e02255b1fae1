package project

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ompFixtures are small omp sessions, written here rather than by omp's
// SessionManager, for the rules of omp's context builder that the corpus
// files (testdata/corpus/omp, written by omp's own code) do not reach:
// explicit default model against assistant messages, null thinking level,
// failed and retried turns, dangling tool calls in the middle of a path,
// /clear before and after a compaction, skipped custom messages, OpenAI
// remote compaction, a parent cycle. The omp conformance test runs omp's
// builder on them too; TestOmpContext states what it gives.
var ompFixtures = map[string][]string{
	"omp-fx-models.jsonl": {
		ompHeader,
		ompEntry("m1", "", "message", `"message":`+ompUser("hi")),
		ompEntry("m2", "m1", "message", `"message":`+ompAssistant("openai", "gpt-5", "stop", `{"type":"text","text":"hello"}`)),
		ompEntry("t1", "m2", "thinking_level_change", `"thinkingLevel":"high","configured":"high"`),
		ompEntry("c0", "t1", "model_change", `"model":"","role":"smol"`),
		ompEntry("c1", "c0", "model_change", `"model":"anthropic/claude-haiku-4-5","role":"smol"`),
		// a branch that ends before any explicit default: inferred
		ompEntry("m3", "c1", "message", `"message":`+ompAssistant("openrouter", "meta/llama-4", "stop", `{"type":"text","text":"via router"}`)),
		ompEntry("c2", "c1", "model_change", `"model":"anthropic/claude-sonnet-4-5","role":null`),
		ompEntry("m4", "c2", "message", `"message":`+ompAssistant("openai", "gpt-5-mini", "stop", `{"type":"text","text":"fallback answer"}`)),
		ompEntry("t2", "m4", "thinking_level_change", `"thinkingLevel":null,"configured":null`),
		ompEntry("c3", "t2", "model_change", `"model":"google/gemini-3-pro","role":"slow"`),
	},
	"omp-fx-failed.jsonl": {
		ompHeader,
		ompEntry("u1", "", "message", `"message":`+ompUser("fix the build")),
		// an error turn with a call and its synthetic result: both go
		ompEntry("a1", "u1", "message", `"message":`+ompAssistant("anthropic", "claude-sonnet-4-5", "error", `{"type":"text","text":"running"},{"type":"toolCall","id":"call_e","name":"bash","arguments":{}}`)),
		ompEntry("r1", "a1", "message", `"message":`+ompResult("call_e", "bash", "aborted")),
		ompEntry("u2", "r1", "message", `"message":`+ompUser("again")),
		// an empty error turn and a retry-recovery turn: left out
		ompEntry("a2", "u2", "message", `"message":`+ompAssistant("anthropic", "claude-sonnet-4-5", "error", `{"type":"text","text":"  "},{"type":"fallback"}`)),
		ompEntry("a3", "a2", "message", `"message":{"role":"assistant","content":[{"type":"text","text":"retrying"}],"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","retryRecovery":true,"timestamp":1772355601000}`),
		// a dangling call mid-path: stripped, signatures cleared
		ompEntry("a4", "a3", "message", `"message":`+ompAssistant("anthropic", "claude-sonnet-4-5", "toolUse",
			`{"type":"thinking","thinking":"look","thinkingSignature":"sig"},{"type":"redactedThinking","data":"xx"},{"type":"text","text":"reading"},{"type":"toolCall","id":"call_d","name":"read","arguments":{"path":"a"}}`)),
		ompEntry("u3", "a4", "message", `"message":`+ompUser("stop, do this instead")),
		// a turn of nothing but a dangling call: dropped
		ompEntry("a5", "u3", "message", `"message":`+ompAssistant("anthropic", "claude-sonnet-4-5", "toolUse", `{"type":"toolCall","id":"call_x","name":"bash","arguments":{}}`)),
		ompEntry("u4", "a5", "message", `"message":`+ompUser("and now?")),
		// an aborted turn kept by an interrupted-thinking note
		ompEntry("a6", "u4", "message", `"message":`+ompAssistant("anthropic", "claude-sonnet-4-5", "aborted", `{"type":"thinking","thinking":"half"}`)),
		ompEntry("n1", "a6", "custom_message", `"customType":"interrupted-thinking","content":"(interrupted)","display":false`),
		ompEntry("a7", "n1", "message", `"message":`+ompAssistant("anthropic", "claude-sonnet-4-5", "toolUse", `{"type":"toolCall","id":"call_ok","name":"bash","arguments":{}}`)),
		ompEntry("r7", "a7", "message", `"message":`+ompResult("call_ok", "bash", "ok")),
		// a branch whose leaf is the assistant with the call: stripped
		ompEntry("l1", "a7", "label", `"targetId":"a7","label":"branch here"`),
	},
	"omp-fx-reset.jsonl": {
		ompHeader,
		ompEntry("u1", "", "message", `"message":`+ompUser("first")),
		ompEntry("a1", "u1", "message", `"message":`+ompAssistant("anthropic", "claude-sonnet-4-5", "stop", `{"type":"text","text":"one"}`)),
		ompEntry("x1", "a1", "reset_boundary", ``),
		ompEntry("u2", "x1", "message", `"message":`+ompUser("second")),
		ompEntry("p1", "u2", "custom_message", `"customType":"prewalk-plan","content":"plan","display":true`),
		ompEntry("v1", "p1", "custom_message", `"customType":"vibe-mode-context","content":[{"type":"text","text":"vibe"}],"display":true`),
		ompEntry("o1", "v1", "custom_message", `"customType":"note","content":{"not":"sendable"},"display":true`),
		ompEntry("k1", "o1", "custom_message", `"content":"kept","attribution":"someone"`),
		ompEntry("b1", "k1", "branch_summary", `"fromId":"u2","summary":""`),
		ompEntry("a2", "b1", "message", `"message":`+ompAssistant("anthropic", "claude-sonnet-4-5", "stop", `{"type":"text","text":"two"}`)),
		// a compaction after the boundary supersedes it
		ompEntry("cp", "a2", "compaction", `"summary":"so far","shortSummary":"short","firstKeptEntryId":"u2","tokensBefore":900,"tokensAfter":120,"method":"soft","warning":"lossy"`),
		ompEntry("u3", "cp", "message", `"message":`+ompUser("third")),
		// and a boundary after the compaction elides it
		ompEntry("z1", "u3", "title_change", `"title":"a branch after the compaction","source":"user"`),
		ompEntry("x2", "u3", "reset_boundary", ``),
		ompEntry("u4", "x2", "message", `"message":`+ompUser("fourth")),
	},
	"omp-fx-remote.jsonl": {
		ompHeader,
		ompEntry("u1", "", "message", `"message":`+ompUser("one")),
		ompEntry("a1", "u1", "message", `"message":`+ompAssistant("openai", "gpt-5", "stop", `{"type":"text","text":"1"}`)),
		ompEntry("u2", "a1", "message", `"message":`+ompUser("two")),
		ompEntry("a2", "u2", "message", `"message":`+ompAssistant("openai", "gpt-5", "stop", `{"type":"text","text":"2"}`)),
		ompEntry("cr", "a2", "compaction", `"summary":"remote","firstKeptEntryId":"u1","tokensBefore":5000,"method":"remote","providerReplayThroughEntryId":"a1","preserveData":{"openaiRemoteCompaction":{"provider":"openai","replacementHistory":[{"type":"compaction","encrypted_content":"abc"}]}}`),
		ompEntry("u3", "cr", "message", `"message":`+ompUser("three")),
		// not a remote payload (an item is no object): the kept range is replayed
		ompEntry("cb", "a2", "compaction", `"summary":"bad remote","firstKeptEntryId":"u2","tokensBefore":5000,"preserveData":{"openaiRemoteCompaction":{"provider":"openai","replacementHistory":[1]}}`),
		ompEntry("u5", "cb", "message", `"message":`+ompUser("five")),
	},
	"omp-fx-cycle.jsonl": {
		ompHeader,
		ompEntry("c1", "c2", "message", `"message":`+ompUser("in a cycle")),
		ompEntry("c2", "c1", "message", `"message":`+ompAssistant("anthropic", "claude-sonnet-4-5", "stop", `{"type":"text","text":"round"}`)),
		ompEntry("c3", "c2", "message", `"message":`+ompUser("below it")),
	},
}

// ompHeader is a header of older omp (no title slot): titleSource tells
// the dialect.
const ompHeader = `{"type":"session","version":3,"id":"0199aa00-0000-7000-8000-000000000001","timestamp":"2026-03-01T09:00:00.000Z","cwd":"/w","title":"fixture","titleSource":"auto"}`

// ompEntry is an entry line; parent "" is a root.
func ompEntry(id, parent, typ, fields string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	if fields != "" {
		fields = "," + fields
	}
	return fmt.Sprintf(`{"type":%q,"id":%q,"parentId":%s,"timestamp":"2026-03-01T09:00:00.000Z"%s}`, typ, id, p, fields)
}

func ompUser(text string) string {
	return fmt.Sprintf(`{"role":"user","content":%q,"timestamp":1772355600000}`, text)
}

func ompAssistant(provider, model, stop, blocks string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[%s],"api":"x","provider":%q,"model":%q,"usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":%q,"timestamp":1772355600000}`, blocks, provider, model, stop)
}

func ompResult(call, tool, text string) string {
	return fmt.Sprintf(`{"role":"toolResult","toolCallId":%q,"toolName":%q,"content":[{"type":"text","text":%q}],"isError":false,"timestamp":1772355600000}`, call, tool, text)
}

// writeOmpFixtures writes the fixtures into dir and returns their paths.
func writeOmpFixtures(t *testing.T, dir string) []string {
	var paths []string
	for name, lines := range ompFixtures {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}
