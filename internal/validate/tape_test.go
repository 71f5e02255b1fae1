package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/session"
)

// Validation reads entries from session.Tape: the schema dispatch, the quick
// check (validAt) and the linkage facts (entryOf). These tests hold each to
// its reading of the decoded map, the reference, on the schema examples,
// on their mutants and on the real corpus, written plainly and with escapes.

// tapesOf returns tapes of v's JSON: as encoding/json writes it, and with
// escapes in keys and values (`"\u0074ype"` for `"type"`); each built
// without key numbers and with each of keys (session.Tape.SetKeys).
func tapesOf(t *testing.T, v map[string]any, keys ...*session.Keys) []*session.Tape {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var tapes []*session.Tape
	for _, r := range [][]byte{raw, bytes.ReplaceAll(raw, []byte(`"t`), []byte(`"\u0074`))} {
		for _, k := range append([]*session.Keys{nil}, keys...) {
			tape := new(session.Tape)
			tape.SetKeys(k)
			if err := tape.Build(r); err != nil {
				t.Fatalf("%s: %v", r, err)
			}
			tapes = append(tapes, tape)
		}
	}
	return tapes
}

// checkTapeAgrees compares the tape path with the map path on v.
func checkTapeAgrees(t *testing.T, s *Schemas, version, line int, v map[string]any, what string) {
	t.Helper()
	for _, tape := range tapesOf(t, v, s.keys, session.EntryKeys()) {
		c, extra, ok := s.dispatch(version, v)
		ct, extraT, okt := s.checkOf(version, pickOf(tape))
		if e := entryOf(tape, line, false, session.Links); pickOfEntry(tape, &e.Entry) != pickOf(tape) {
			t.Fatalf("%s: the entry's pick %+v, the tape's %+v", what, pickOfEntry(tape, &e.Entry), pickOf(tape))
		}
		if ok != okt || ok && (c.quick != ct.quick || !reflect.DeepEqual(extra, extraT)) {
			t.Fatalf("%s: dispatch differs: map (%v, extra %v), tape (%v, extra %v)", what, ok, extra, okt, extraT)
		}
		if ok && c.quick.valid(v) != ct.quick.validAt(tape, 0) {
			t.Fatalf("%s: quick check: map %v, tape %v", what, c.quick.valid(v), ct.quick.validAt(tape, 0))
		}
		if got, want := s.CheckTape(version, line, tape), s.Check(version, line, v); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: CheckTape = %v, Check = %v", what, got, want)
		}
		for _, linear := range []bool{false, true} {
			if got, want := entryOf(tape, line, linear, session.Figures), entryFromMap(v, line, linear); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: entryOf (linear %v)\n got %+v\nwant %+v", what, linear, got, want)
			}
		}
	}
}

func TestTapeAgreesOnExamples(t *testing.T) {
	s := compileForTest(t)
	for _, tc := range schemaCases(t) {
		checkTapeAgrees(t, s, tc.version, 7, decodeForTest(t, []byte(tc.line)), tc.name)
	}
}

func TestTapeAgreesOnMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: -short")
	}
	s := compileForTest(t)
	mutants := 0
	for _, tc := range schemaCases(t) {
		if tc.want != nil {
			continue
		}
		v := decodeForTest(t, []byte(tc.line))
		mutate(v, "", 0, func(ptr, what string) {
			mutants++
			checkTapeAgrees(t, s, tc.version, 3, v, fmt.Sprintf("%s: %s at %s", tc.name, what, ptr))
		})
	}
	corpus, _ := filepath.Glob(filepath.Join(schemaRealCorpus, "*.jsonl")) // absent: examples only
	for _, path := range corpus {
		n := 0
		realRecords(t, path, func(version, line int, raw []byte) {
			n++
			v := decodeForTest(t, raw)
			checkTapeAgrees(t, s, version, line, v, fmt.Sprintf("%s line %d", filepath.Base(path), line))
			if n > 4 && n%200 != 0 { // mutants of a sample
				return
			}
			mutate(v, "", 0, func(ptr, what string) {
				mutants++
				checkTapeAgrees(t, s, version, line, v, fmt.Sprintf("%s line %d: %s at %s", filepath.Base(path), line, what, ptr))
			})
		})
	}
	t.Logf("%d mutants", mutants)
}

// TestTapeDuplicateKeys: the last of duplicate keys counts, as in the map.
func TestTapeDuplicateKeys(t *testing.T) {
	s := compileForTest(t)
	for _, line := range []string{
		`{"type":"message","type":"label","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-05T10:00:00.000Z","targetId":"x","label":"y"}`,
		`{"type":"label","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-05T10:00:00.000Z","targetId":7,"targetId":"x"}`,
		`{"type":"message",` + baseV3 + `,"message":{"role":"user","role":"assistant","content":[{"type":"toolCall","type":"text","text":"x"}]}}`,
		`{"type":"message",` + baseV3 + `,"message":` + assistantMsg + `,"message":` + toolResultMsg + `}`,
		`{"type":"message",` + baseV3 + `,"message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{},"arguments":null}],"api":"a","provider":"p","model":"m","usage":` + usageJSON + `,"stopReason":"stop","timestamp":1}}`,
	} {
		v := decodeForTest(t, []byte(line))
		tape := new(session.Tape)
		if err := tape.Build([]byte(line)); err != nil {
			t.Fatal(err)
		}
		c, _, ok := s.dispatch(3, v)
		if ok && c.quick.valid(v) != c.quick.validAt(tape, 0) {
			t.Errorf("%s: quick check: map %v, tape %v", line, c.quick.valid(v), c.quick.validAt(tape, 0))
		}
		if got, want := s.CheckTape(3, 1, tape), s.Check(3, 1, v); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: CheckTape = %v, Check = %v", line, got, want)
		}
		if got, want := entryOf(tape, 1, false, session.Figures), entryFromMap(v, 1, false); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: entryOf\n got %+v\nwant %+v", line, got, want)
		}
	}
}

// entryFromMap is entryOf (with session.Figures) on the decoded entry:
// the reading the linker and the audit's map observer did before they read
// tapes, kept as the reference.
func entryFromMap(v map[string]any, line int, linear bool) entry {
	e := entry{line: line, linear: linear}
	e.Type, _ = str(v, "type")
	var hasID bool
	e.ID, hasID = str(v, "id")
	e.HasID = hasID && !linear
	if !linear {
		e.ParentID, e.HasParent = str(v, "parentId")
	}
	e.Timestamp, _ = str(v, "timestamp")
	obj := func(m map[string]any, key string) map[string]any { o, _ := m[key].(map[string]any); return o }
	switch e.Type {
	case "message":
		e.Message = messageFromMap(obj(v, "message"), true)
	case "label", "context_edit":
		e.TargetID, e.HasTargetID = str(v, "targetId")
		if e.Type == "context_edit" {
			if repl, has := v["replacement"]; has {
				r, _ := repl.(map[string]any)
				if repl == nil {
					e.Replacement = session.Replacement{Kind: session.ReplacementOmit}
				} else {
					e.Replacement = session.Replacement{Kind: session.ReplacementContent, Calls: callsFromMap(r["content"])}
				}
			}
		}
	case "branch_summary":
		e.FromID, e.HasFromID = str(v, "fromId")
		e.Summary = truthyValue(v["summary"])
	case "compaction":
		e.FirstKeptID, e.HasFirstKeptID = str(v, "firstKeptEntryId")
		if idx, ok := v["firstKeptEntryIndex"]; ok {
			n, err := asInt(idx)
			e.FirstKeptIndex = session.KeptIndex{Present: true, N: n, IsInt: err == nil, Text: session.Clip(fmt.Sprint(idx))} // a description, clipped as every echoed value is
		}
		if tail, ok := v["retainedTail"].([]any); ok {
			e.HasTail, e.Tail = true, []session.Message{}
			for _, m := range tail {
				msg, _ := m.(map[string]any)
				e.Tail = append(e.Tail, messageFromMap(msg, false))
			}
		}
	}
	e.At, _ = time.Parse(time.RFC3339Nano, e.Timestamp) // a figure: Go's reading of the timestamp
	switch e.Type {
	case "usage":
		e.Provider, _ = str(v, "provider")
		e.Model, _ = str(v, "model")
		e.Usage = usageFromMap(v["usage"])
	case "model_change":
		e.Provider, _ = str(v, "provider")
		e.Model, _ = str(v, "modelId")
	case "compaction", "branch_summary":
		e.Usage = usageFromMap(v["usage"])
	case "session_info":
		e.Name, _ = str(v, "name")
	}
	return e
}

func messageFromMap(msg map[string]any, figures bool) session.Message {
	if msg == nil {
		return session.Message{}
	}
	m := session.Message{Present: true}
	m.Role, _ = str(msg, "role")
	m.StopReason, _ = str(msg, "stopReason")
	m.ToolCallID, m.HasToolCallID = str(msg, "toolCallId")
	m.ToolName, _ = str(msg, "toolName")
	if m.Role == "assistant" {
		m.Calls = callsFromMap(msg["content"])
	}
	if !figures {
		return m
	}
	m.Provider, _ = str(msg, "provider")
	m.Model, _ = str(msg, "model")
	m.Usage = usageFromMap(msg["usage"])
	if ms, ok := integerValue(msg["timestamp"]); ok && ms > 0 {
		m.Millis = ms
	}
	if m.Role == "user" {
		m.Text = textFromMap(msg["content"])
		m.Text = m.Text[:min(len(m.Text), session.TextLimit)]
	}
	return m
}

// textFromMap is a content's text as the audit read it: the string, or
// the first text block that is not blank.
func textFromMap(content any) string {
	switch v := content.(type) {
	case string:
		return v
	case []any:
		for _, b := range v {
			block, _ := b.(map[string]any)
			if typ, _ := str(block, "type"); typ == "text" {
				if t, _ := str(block, "text"); strings.TrimSpace(t) != "" {
					return t
				}
			}
		}
	}
	return ""
}

// usageFromMap reads a usage record as the audit read it.
func usageFromMap(v any) session.Usage {
	u, ok := v.(map[string]any)
	if !ok {
		return session.Usage{}
	}
	r := session.Usage{Present: true}
	r.Input, _ = integerValue(u["input"])
	r.Output, _ = integerValue(u["output"])
	r.CacheRead, _ = integerValue(u["cacheRead"])
	r.CacheWrite, _ = integerValue(u["cacheWrite"])
	r.TotalTokens, r.HasTotalTokens = integerValue(u["totalTokens"])
	c, _ := u["cost"].(map[string]any)
	r.Cost, r.HasCost = numberValue(c["total"])
	return r
}

// integerValue reads a JSON number as an integer (rounding a fraction).
func integerValue(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, ok := numberValue(v)
	if !ok || f > math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(math.Round(f)), true
}

// numberValue reads a finite JSON number.
func numberValue(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func callsFromMap(content any) []session.ToolCall {
	blocks, _ := content.([]any)
	var calls []session.ToolCall
	for _, b := range blocks {
		block, _ := b.(map[string]any)
		if typ, _ := str(block, "type"); typ != "toolCall" {
			continue
		}
		id, _ := str(block, "id")
		name, _ := str(block, "name")
		calls = append(calls, session.ToolCall{ID: id, Name: name})
	}
	return calls
}

func truthyValue(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case json.Number:
		f, err := v.Float64()
		return err == nil && f != 0
	}
	return true
}

// str returns m[key] when it is a string.
func str(m map[string]any, key string) (string, bool) {
	s, ok := m[key].(string)
	return s, ok
}

// asInt reads a JSON integer.
func asInt(v any) (int64, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number: %v", v)
	}
	i, err := num.Int64()
	if f, ok := numberValue(v); err != nil && ok && f == math.Trunc(f) && math.Abs(f) < math.MaxInt64 {
		return int64(f), nil // a whole number as JSON.parse reads it (7.0 is 7)
	}
	return i, err
}

// FuzzTapeAgrees: on any line that is one JSON object, the tape path gives
// the findings and linkage facts of the map path.
func FuzzTapeAgrees(f *testing.F) {
	s := compileForTest(f)
	for _, line := range []string{
		msgEntry(userMsg), msgEntry(assistantMsg), msgEntry(toolResultMsg),
		`{"type":"label",` + baseV3 + `,"targetId":"00000000","label":"x"}`,
		`{"type":"compaction",` + baseV3 + `,"summary":"s","firstKeptEntryId":"00000000","firstKeptEntryIndex":3,"tokensBefore":1,"retainedTail":[` + toolResultMsg + `]}`,
		`{"type":"context_edit",` + baseV3 + `,"targetId":"00000000","replacement":{"content":[{"type":"toolCall","id":"c","name":"n"}]}}`,
		`{"type":"branch_summary",` + baseV3 + `,"fromId":"root","summary":"s"}`,
		`{"type":"session","version":3,"id":"x","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/"}`,
	} {
		f.Add([]byte(line), uint8(2))
		f.Add([]byte(line), uint8(0))
	}
	f.Fuzz(func(t *testing.T, line []byte, version uint8) {
		for _, keys := range []*session.Keys{nil, s.keys} { // as other readers build tapes, and as validate does
			var tape session.Tape
			tape.SetKeys(keys)
			if _, ok := tape.Line(line); !ok {
				return
			}
			v, err := session.Decode(line, false)
			if err != nil {
				t.Fatalf("Tape.Line accepted %q, Decode: %v", line, err)
			}
			ver := int(version%4) + 1 // 1..4: 4 is not checked
			if got, want := s.CheckTape(ver, 1, &tape), s.Check(ver, 1, v); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: CheckTape = %v, Check = %v", line, got, want)
			}
			linear := ver == 1
			e := entryOf(&tape, 1, linear, session.Figures)
			if want := entryFromMap(v, 1, linear); !reflect.DeepEqual(e, want) {
				t.Fatalf("%q: entryOf\n got %+v\nwant %+v", line, e, want)
			}
			if got, want := s.checkEntry(session.Pi, ver, 1, &tape, &e.Entry), s.Check(ver, 1, v); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: checkEntry = %v, Check = %v", line, got, want)
			}
		}
	})
}
