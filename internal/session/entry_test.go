package session

import (
	"reflect"
	"strings"
	"testing"
)

// The reading of an entry is held to the map reference in validate's
// tape_test.go (examples, mutants, the real corpus, FuzzTapeAgrees); these
// are the cases that say what the reading is.
// readEntry is Entry.Read into a new Entry.
func readEntry(t *Tape, d Detail) Entry {
	var e Entry
	e.Read(t, d)
	return e
}

func TestReadEntry(t *testing.T) {
	tests := []struct {
		name string
		line string
		d    Detail
		want Entry
	}{
		{"links of a message", `{"type":"message","id":"a","parentId":"p","timestamp":"ts","message":{"role":"assistant","stopReason":"toolUse","content":[{"type":"text","text":"x"},{"type":"toolCall","id":"c1","name":"bash"},{"type":"toolCall","id":7}],"usage":{"input":1}}}`, Links,
			Entry{Type: "message", ID: "a", HasID: true, ParentID: "p", HasParent: true, Timestamp: "ts",
				Message: Message{Present: true, Role: "assistant", StopReason: "toolUse", Calls: []ToolCall{{ID: "c1", Name: "bash"}, {}}}}},
		{"figures of a message", `{"type":"message","parentId":null,"message":{"role":"user","content":"hi","timestamp":5,"provider":"p","model":"m","usage":{"input":1,"totalTokens":2.4,"cost":{"total":0.5}}}}`, Figures,
			Entry{Type: "message", Message: Message{Present: true, Role: "user", Text: "hi", Millis: 5, Provider: "p", Model: "m",
				Usage: Usage{Present: true, Input: 1, TotalTokens: 2, HasTotalTokens: true, Cost: 0.5, HasCost: true}}}},
		{"a tool result", `{"type":"message","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash"}}`, Links,
			Entry{Type: "message", Message: Message{Present: true, Role: "toolResult", ToolCallID: "c1", HasToolCallID: true, ToolName: "bash"}}},
		{"a message that is no object", `{"type":"message","message":"x"}`, Figures, Entry{Type: "message"}},
		{"escaped keys, the last of duplicates", `{"\u0074ype":"label","targetId":1,"targetId":"t","id":"a","id":null}`, Links,
			Entry{Type: "label", TargetID: "t", HasTargetID: true}},
		{"a compaction", `{"type":"compaction","firstKeptEntryId":"k","firstKeptEntryIndex":2,"retainedTail":[{"role":"user"},3],"usage":{"output":4}}`, Figures,
			Entry{Type: "compaction", FirstKeptID: "k", HasFirstKeptID: true, FirstKeptIndex: KeptIndex{Present: true, N: 2, IsInt: true, Text: "2"},
				HasTail: true, Tail: []Message{{Present: true, Role: "user"}, {}}, Usage: Usage{Present: true, Output: 4}}},
		{"a context edit that drops", `{"type":"context_edit","targetId":"t","replacement":null}`, Links,
			Entry{Type: "context_edit", TargetID: "t", HasTargetID: true, Replacement: Replacement{Kind: ReplacementOmit}}},
		{"a context edit that replaces", `{"type":"context_edit","targetId":"t","replacement":{"content":[{"type":"toolCall","id":"c","name":"n"}]}}`, Links,
			Entry{Type: "context_edit", TargetID: "t", HasTargetID: true, Replacement: Replacement{Kind: ReplacementContent, Calls: []ToolCall{{ID: "c", Name: "n"}}}}},
		{"a context edit that nulls the content", `{"type":"context_edit","targetId":"t","replacement":{"content":null}}`, Links,
			Entry{Type: "context_edit", TargetID: "t", HasTargetID: true, Replacement: Replacement{Kind: ReplacementContent}}},
		{"a context edit whose replacement is no object", `{"type":"context_edit","targetId":"t","replacement":7}`, Links,
			Entry{Type: "context_edit", TargetID: "t", HasTargetID: true, Replacement: Replacement{Kind: ReplacementContent}}},
		{"a context edit without a replacement", `{"type":"context_edit","targetId":"t"}`, Links,
			Entry{Type: "context_edit", TargetID: "t", HasTargetID: true}},
		{"a branch summary", `{"type":"branch_summary","fromId":"root","summary":0}`, Links,
			Entry{Type: "branch_summary", FromID: "root", HasFromID: true}},
		{"a usage entry", `{"type":"usage","provider":"p","model":"m","usage":{"cacheRead":3,"cacheWrite":1e400}}`, Figures,
			Entry{Type: "usage", Provider: "p", Model: "m", Usage: Usage{Present: true, CacheRead: 3}}},
		{"a model change", `{"type":"model_change","provider":"p","modelId":"m","model":"x"}`, Figures,
			Entry{Type: "model_change", Provider: "p", Model: "m"}},
		{"an omp model change for a role", `{"type":"model_change","model":"a/b","role":"smol"}`, Figures,
			Entry{Type: "model_change", Model: "a/b", ModelRole: "smol"}},
		{"an omp model change with a null role", `{"type":"model_change","model":"a/b","role":null}`, Figures,
			Entry{Type: "model_change", Model: "a/b"}},
		{"an omp model change with a role of another kind", `{"type":"model_change","model":"a/b","role":7}`, Figures,
			Entry{Type: "model_change", Model: "a/b", ModelRole: "7"}},
		{"pi's model change has no role", `{"type":"model_change","provider":"p","modelId":"m","role":"smol"}`, Figures,
			Entry{Type: "model_change", Provider: "p", Model: "m"}},
		{"figures are not read for links", `{"type":"session_info","name":"n"}`, Links, Entry{Type: "session_info"}},
		{"a session name", `{"type":"session_info","name":"n"}`, Figures, Entry{Type: "session_info", Name: "n"}},
	}
	for _, tt := range tests {
		if got := readEntry(tapeOf(t, tt.line), tt.d); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

func TestFirstTextIsBounded(t *testing.T) {
	long := strings.Repeat("é", 2*TextLimit)
	for _, content := range []string{`"` + long + `"`, `"` + strings.ReplaceAll(long, "é", `\u00e9`) + `"`, `[{"type":"text","text":"` + long + `"}]`} {
		e := readEntry(tapeOf(t, `{"type":"message","message":{"role":"user","content":`+content+`}}`), Figures)
		if len(e.Message.Text) != TextLimit || !strings.HasPrefix(long, e.Message.Text) {
			t.Errorf("%.20s...: text of %d bytes", content, len(e.Message.Text))
		}
	}
	blank := `"` + strings.Repeat(" ", 2*TextLimit) + `x"`
	e := readEntry(tapeOf(t, `{"type":"message","message":{"role":"user","content":[{"type":"text","text":`+blank+`}]}}`), Figures)
	if strings.TrimSpace(e.Message.Text) != "" || len(e.Message.Text) != TextLimit {
		t.Errorf("a text blank for longer than the limit is not blank: %q", e.Message.Text)
	}
}

// TestEntryKeyNumbers: the key numbers the readers switch on are the
// numbers of their names in EntryKeys (a constant out of order would read
// one key for another), and a tape built with EntryKeys, with an
// extension of it and without keys reads the same entry.
func TestEntryKeyNumbers(t *testing.T) {
	want := map[string]int{
		"type": keyType, "id": keyID, "parentId": keyParentID, "timestamp": keyTimestamp, "message": keyMessage,
		"targetId": keyTargetID, "fromId": keyFromID, "summary": keySummary, "firstKeptEntryId": keyFirstKeptID,
		"firstKeptEntryIndex": keyFirstKeptIndex, "retainedTail": keyRetainedTail, "replacement": keyReplacement,
		"usage": keyUsage, "provider": keyProvider, "model": keyModel, "modelId": keyModelID, "role": keyRole,
		"name": keyName, "title": keyTitle, "stopReason": keyStopReason, "toolCallId": keyToolCallID,
		"toolName": keyToolName, "content": keyContent, "details": keyDetails, "text": keyText, "input": keyInput,
		"output": keyOutput, "cacheRead": keyCacheRead, "cacheWrite": keyCacheWrite, "totalTokens": keyTotalTokens,
		"cost": keyCost, "total": keyTotal,
	}
	if EntryKeys().Len() != len(want) {
		t.Fatalf("EntryKeys has %d keys, the constants %d", EntryKeys().Len(), len(want))
	}
	for name, n := range want {
		if got := EntryKeys().Number(name); got != n {
			t.Errorf("EntryKeys().Number(%q) = %d, the constant is %d", name, got, n)
		}
	}
	line := []byte(`{"type":"message","id":"a","parentId":"b","timestamp":"t","message":{"role":"assistant","stopReason":"toolUse",` +
		`"content":[{"type":"toolCall","id":"c1","name":"bash"},{"type":"text","text":"x"},{"t\u0079pe":"toolCall","id":"c2","name":"read","name":"edit"}],` +
		`"provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"total":0.5}},"timestamp":1700000000000},"message\u0000":1}`)
	read := func(keys *Keys) Entry {
		var tape Tape
		tape.SetKeys(keys)
		if _, ok := tape.Line(line); !ok {
			t.Fatal("refused")
		}
		return readEntry(&tape, Figures)
	}
	plain := read(nil)
	if len(plain.Message.Calls) != 2 || plain.Message.Calls[1] != (ToolCall{ID: "c2", Name: "edit"}) || plain.Message.Usage.Cost != 0.5 || plain.Message.Millis != 1700000000000 {
		t.Fatalf("read without keys: %+v", plain)
	}
	for _, keys := range []*Keys{EntryKeys(), NewKeys(EntryKeys(), "arguments", "isError"), NewKeys(nil, "isError", "type", "id")} {
		if got := read(keys); !reflect.DeepEqual(got, plain) {
			t.Errorf("built with %d keys:\n got %+v\nwant %+v", keys.Len(), got, plain)
		}
	}
}
