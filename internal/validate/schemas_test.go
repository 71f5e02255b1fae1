package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/schema"
)

// schemaRealCorpus is pi's own files, beside the project.
const schemaRealCorpus = "../../../shared/corpus/real"

func compileForTest(tb testing.TB) *Schemas {
	tb.Helper()
	s, err := CompileSchemas()
	if err != nil {
		tb.Fatalf("CompileSchemas: %v", err)
	}
	return s
}

func decodeForTest(tb testing.TB, raw []byte) map[string]any {
	tb.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		tb.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

// Building blocks of valid examples.
const (
	usageJSON     = `{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}`
	baseV3        = `"id":"a1b2c3d4","parentId":"00000000","timestamp":"2026-01-05T10:00:00.000Z"`
	baseV1        = `"timestamp":"2026-01-05T10:00:00.000Z"`
	userMsg       = `{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"timestamp":1767607200000}`
	assistantMsg  = `{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"cmd":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude","usage":` + usageJSON + `,"stopReason":"toolUse","timestamp":1767607200000}`
	toolResultMsg = `{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"out"}],"isError":false,"timestamp":1767607200000}`
)

func msgEntry(msg string) string { return `{"type":"message",` + baseV3 + `,"message":` + msg + `}` }

// replaceOnce returns s with old replaced once; the test fails if absent.
func replaceOnce(t *testing.T, s, old, repl string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("example %s does not contain %s", s, old)
	}
	return strings.Replace(s, old, repl, 1)
}

type schemaCase struct {
	name    string
	version int
	line    string
	want    []string // pointers of the expected findings, in order
}

// schemaCases are valid and broken examples of every entry type and role,
// with the pointers of the findings each must produce.
func schemaCases(t *testing.T) []schemaCase {
	r := func(s, old, repl string) string { return replaceOnce(t, s, old, repl) }
	header := `{"type":"session","version":3,"id":"0198c1f2-aaaa-7bbb-8ccc-123456789abc","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/tmp/p"}`
	v1Header := `{"type":"session","id":"0198c1f2","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/tmp/p","provider":"anthropic","modelId":"m","thinkingLevel":"off","branchedFrom":"/x.jsonl"}`
	bash := `{"role":"bashExecution","command":"ls","output":"a","exitCode":null,"cancelled":false,"truncated":false,"timestamp":1}`
	custom := `{"role":"custom","customType":"x","content":"text","display":true,"details":{"a":1},"timestamp":1}`
	hook := `{"role":"hookMessage","customType":"x","content":[{"type":"text","text":"t"}],"display":false,"timestamp":1}`
	branchSum := `{"role":"branchSummary","summary":"s","fromId":"root","timestamp":1}`
	compSum := `{"role":"compactionSummary","summary":"s","tokensBefore":100,"timestamp":1}`
	system := `{"role":"system","content":"prompt"}`
	compaction := `{"type":"compaction",` + baseV3 + `,"summary":"s","firstKeptEntryId":"a1b2c3d4","tokensBefore":1000,"details":{"readFiles":[]},"fromHook":false}`
	retained := `{"type":"compaction",` + baseV3 + `,"summary":"s","tokensBefore":1000,"retainedTail":[` + userMsg + `,` + assistantMsg + `]}`
	v1Compaction := `{"type":"compaction",` + baseV1 + `,"summary":"s","firstKeptEntryIndex":3,"tokensBefore":1000}`
	modelChange := `{"type":"model_change",` + baseV3 + `,"provider":"openai","modelId":"gpt"}`
	thinking := `{"type":"thinking_level_change",` + baseV3 + `,"thinkingLevel":"high"}`
	usageEntry := `{"type":"usage",` + baseV3 + `,"kind":"title","provider":"p","model":"m","usage":` + usageJSON + `}`
	branchSummary := `{"type":"branch_summary",` + baseV3 + `,"fromId":"root","summary":"s","details":{"readFiles":[],"modifiedFiles":[]},"usage":` + usageJSON + `,"fromHook":false}`
	customEntry := `{"type":"custom",` + baseV3 + `,"customType":"agent_end","data":{"n":1}}`
	customMessage := `{"type":"custom_message",` + baseV3 + `,"customType":"x","content":[{"type":"text","text":"t"}],"display":true}`
	contextEdit := `{"type":"context_edit",` + baseV3 + `,"targetId":"b","replacement":{"content":[{"type":"text","text":"t"}]}}`
	label := `{"type":"label",` + baseV3 + `,"targetId":"b","label":"checkpoint"}`
	sessionInfo := `{"type":"session_info",` + baseV3 + `,"name":"n"}`

	return []schemaCase{
		// header
		{"header valid", 3, header, nil},
		{"header v1 legacy fields", 1, v1Header, nil},
		{"header missing cwd", 3, r(header, `,"cwd":"/tmp/p"`, ``), []string{"/cwd"}},
		{"header empty id", 3, r(header, `"0198c1f2-aaaa-7bbb-8ccc-123456789abc"`, `""`), []string{"/id"}},
		{"header bad version", 3, r(header, `"version":3`, `"version":"3"`), []string{"/version"}},

		// entry base
		{"v3 entry without id", 3, r(modelChange, `"id":"a1b2c3d4",`, ``), []string{"/id"}},
		{"v3 entry parentId number", 3, r(modelChange, `"parentId":"00000000"`, `"parentId":7`), []string{"/parentId"}},
		{"v3 root entry", 3, r(modelChange, `"parentId":"00000000"`, `"parentId":null`), nil},
		{"entry without type", 3, r(modelChange, `"type":"model_change",`, ``), []string{"/type"}},
		{"entry type not a string", 3, r(modelChange, `"type":"model_change"`, `"type":5`), []string{"/type"}},
		{"unknown entry type is not ours", 3, r(modelChange, `"model_change"`, `"frobnicate"`), nil},
		{"v1 entry without id", 1, `{"type":"model_change",` + baseV1 + `,"provider":"p","modelId":"m"}`, nil},
		{"v1 entry timestamp number", 1, `{"type":"model_change","timestamp":5,"provider":"p","modelId":"m"}`, []string{"/timestamp"}},

		// entry types
		{"model_change valid", 3, modelChange, nil},
		{"model_change missing modelId", 3, r(modelChange, `,"modelId":"gpt"`, ``), []string{"/modelId"}},
		{"thinking_level_change valid", 3, thinking, nil},
		{"thinking_level_change number", 3, r(thinking, `"high"`, `3`), []string{"/thinkingLevel"}},
		{"usage valid", 3, usageEntry, nil},
		{"usage missing usage", 3, r(usageEntry, `,"usage":`+usageJSON, ``), []string{"/usage"}},
		{"usage partial usage", 3, r(usageEntry, `"cacheWrite":0,"totalTokens":15`, `"totalTokens":15`), []string{"/usage/cacheWrite"}},
		{"usage without cost total", 3, r(usageEntry, `,"total":0.3`, ``), []string{"/usage/cost/total"}},
		{"usage without totalTokens", 3, r(usageEntry, `,"totalTokens":15`, ``), nil},
		{"compaction valid", 3, compaction, nil},
		{"compaction with retainedTail only", 3, retained, nil},
		{"compaction without firstKeptEntryId", 3, r(compaction, `"firstKeptEntryId":"a1b2c3d4",`, ``), []string{"/firstKeptEntryId"}},
		{"compaction tokensBefore string", 3, r(compaction, `1000`, `"1000"`), []string{"/tokensBefore"}},
		{"compaction bad retainedTail message", 3, r(retained, `"stopReason":"toolUse"`, `"stopReason":"pending"`), []string{"/retainedTail/1/stopReason"}},
		{"compaction retainedTail unknown role", 3, r(retained, `"role":"user"`, `"role":"robot"`), []string{"/retainedTail/0/role"}},
		{"v1 compaction valid", 1, v1Compaction, nil},
		{"v1 compaction without index", 1, r(v1Compaction, `"firstKeptEntryIndex":3,`, ``), []string{"/firstKeptEntryIndex"}},
		{"v1 compaction negative index", 1, r(v1Compaction, `:3,`, `:-1,`), []string{"/firstKeptEntryIndex"}},
		{"v2 compaction needs firstKeptEntryId", 2, r(compaction, `"firstKeptEntryId":"a1b2c3d4",`, `"firstKeptEntryIndex":3,`), []string{"/firstKeptEntryId"}},
		{"branch_summary valid", 3, branchSummary, nil},
		{"branch_summary missing fromId", 3, r(branchSummary, `"fromId":"root",`, ``), []string{"/fromId"}},
		{"branch_summary fromHook string", 3, r(branchSummary, `"fromHook":false`, `"fromHook":"no"`), []string{"/fromHook"}},
		{"custom valid", 3, customEntry, nil},
		{"custom missing customType", 3, r(customEntry, `"customType":"agent_end",`, ``), []string{"/customType"}},
		{"custom_message valid", 3, customMessage, nil},
		{"custom_message string content", 3, r(customMessage, `[{"type":"text","text":"t"}]`, `"t"`), nil},
		{"custom_message display string", 3, r(customMessage, `"display":true`, `"display":"yes"`), []string{"/display"}},
		{"custom_message thinking block", 3, r(customMessage, `"type":"text","text":"t"`, `"type":"thinking","thinking":"t"`), []string{"/content/0/type"}},
		{"context_edit valid", 3, contextEdit, nil},
		{"context_edit null replacement", 3, r(contextEdit, `{"content":[{"type":"text","text":"t"}]}`, `null`), nil},
		{"context_edit missing replacement", 3, r(contextEdit, `,"replacement":{"content":[{"type":"text","text":"t"}]}`, ``), []string{"/replacement"}},
		{"context_edit replacement without content", 3, r(contextEdit, `{"content":[{"type":"text","text":"t"}]}`, `{}`), []string{"/replacement/content"}},
		{"context_edit replacement string", 3, r(contextEdit, `{"content":[{"type":"text","text":"t"}]}`, `"gone"`), []string{"/replacement"}},
		{"label valid", 3, label, nil},
		{"label cleared", 3, r(label, `,"label":"checkpoint"`, ``), nil},
		{"label missing targetId", 3, r(label, `"targetId":"b",`, ``), []string{"/targetId"}},
		{"session_info valid", 3, sessionInfo, nil},
		{"session_info without name", 3, r(sessionInfo, `,"name":"n"`, ``), nil},
		{"session_info name number", 3, r(sessionInfo, `"n"`, `1`), []string{"/name"}},

		// message entries and roles
		{"message not an object", 3, msgEntry(`"hi"`), []string{"/message"}},
		{"message without role", 3, msgEntry(`{"content":"hi","timestamp":1}`), []string{"/message/role"}},
		{"message role number", 3, msgEntry(`{"role":1}`), []string{"/message/role"}},
		{"message unknown role", 3, msgEntry(`{"role":"robot"}`), []string{"/message/role"}},
		{"unknown role still checks the entry", 3, r(msgEntry(`{"role":"robot"}`), `"id":"a1b2c3d4",`, ``), []string{"/id", "/message/role"}},
		{"user valid", 3, msgEntry(userMsg), nil},
		{"user string content", 3, msgEntry(`{"role":"user","content":"hi","timestamp":1}`), nil},
		{"user missing timestamp", 3, msgEntry(r(userMsg, `,"timestamp":1767607200000`, ``)), []string{"/message/timestamp"}},
		{"user timestamp string", 3, msgEntry(r(userMsg, `1767607200000`, `"2026-01-05"`)), []string{"/message/timestamp"}},
		{"user toolCall block", 3, msgEntry(r(userMsg, `{"type":"text","text":"hi"}`, `{"type":"toolCall","id":"c","name":"n","arguments":{}}`)), []string{"/message/content/0/type"}},
		{"user image without mimeType", 3, msgEntry(r(userMsg, `,"mimeType":"image/png"`, ``)), []string{"/message/content/1/mimeType"}},
		{"assistant valid", 3, msgEntry(assistantMsg), nil},
		{"assistant empty content", 3, msgEntry(r(assistantMsg, `[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"cmd":"ls"}}]`, `[]`)), nil},
		{"assistant stopReason pending", 3, msgEntry(r(assistantMsg, `"toolUse"`, `"pending"`)), []string{"/message/stopReason"}},
		{"assistant missing usage", 3, msgEntry(r(assistantMsg, `,"usage":`+usageJSON, ``)), []string{"/message/usage"}},
		{"assistant partial usage", 3, msgEntry(r(assistantMsg, `"input":10,"output":5,`, ``)), []string{"/message/usage/input", "/message/usage/output"}},
		{"assistant usage null", 3, msgEntry(r(assistantMsg, usageJSON, `null`)), []string{"/message/usage"}},
		{"assistant toolCall arguments null", 3, msgEntry(r(assistantMsg, `{"cmd":"ls"}`, `null`)), []string{"/message/content/2/arguments"}},
		{"assistant toolCall without name", 3, msgEntry(r(assistantMsg, `"name":"bash",`, ``)), []string{"/message/content/2/name"}},
		{"assistant image block", 3, msgEntry(r(assistantMsg, `{"type":"text","text":"ok"}`, `{"type":"image","data":"x","mimeType":"image/png"}`)), []string{"/message/content/1/type"}},
		{"assistant block without type", 3, msgEntry(r(assistantMsg, `{"type":"text","text":"ok"}`, `{"text":"ok"}`)), []string{"/message/content/1/type"}},
		{"assistant string content", 3, msgEntry(r(assistantMsg, `[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"cmd":"ls"}}]`, `"ok"`)), []string{"/message/content"}},
		{"toolResult valid", 3, msgEntry(toolResultMsg), nil},
		{"toolResult with usage", 3, msgEntry(r(toolResultMsg, `"isError":false`, `"isError":false,"usage":`+usageJSON)), nil},
		{"toolResult isError string", 3, msgEntry(r(toolResultMsg, `false`, `"false"`)), []string{"/message/isError"}},
		{"toolResult missing toolCallId", 3, msgEntry(r(toolResultMsg, `"toolCallId":"c1",`, ``)), []string{"/message/toolCallId"}},
		{"bashExecution valid", 3, msgEntry(bash), nil},
		{"bashExecution without exitCode", 3, msgEntry(r(bash, `"exitCode":null,`, ``)), nil},
		{"bashExecution exitCode string", 3, msgEntry(r(bash, `null`, `"0"`)), []string{"/message/exitCode"}},
		{"bashExecution missing cancelled", 3, msgEntry(r(bash, `"cancelled":false,`, ``)), []string{"/message/cancelled"}},
		{"custom role valid", 3, msgEntry(custom), nil},
		{"custom role missing display", 3, msgEntry(r(custom, `"display":true,`, ``)), []string{"/message/display"}},
		{"hookMessage valid in v2", 2, msgEntry(hook), nil},
		{"hookMessage valid in v1", 1, `{"type":"message",` + baseV1 + `,"message":` + hook + `}`, nil},
		{"hookMessage illegal in v3", 3, msgEntry(hook), []string{"/message/role"}},
		{"hookMessage checked in v2", 2, msgEntry(r(hook, `"customType":"x",`, ``)), []string{"/message/customType"}},
		{"branchSummary valid", 3, msgEntry(branchSum), nil},
		{"branchSummary missing fromId", 3, msgEntry(r(branchSum, `"fromId":"root",`, ``)), []string{"/message/fromId"}},
		{"compactionSummary valid", 3, msgEntry(compSum), nil},
		{"compactionSummary tokensBefore string", 3, msgEntry(r(compSum, `100`, `"100"`)), []string{"/message/tokensBefore"}},
		{"system valid without timestamp", 3, msgEntry(system), nil},
		{"system content number", 3, msgEntry(r(system, `"prompt"`, `5`)), []string{"/message/content"}},
		{"v1 message valid", 1, `{"type":"message",` + baseV1 + `,"message":` + assistantMsg + `}`, nil},
		{"v1 usage without totalTokens", 1, `{"type":"message",` + baseV1 + `,"message":` + r(assistantMsg, `,"totalTokens":15`, ``) + `}`, nil},

		// several violations, sorted, array indexes numerically
		{"several violations sorted", 3, msgEntry(r(r(assistantMsg, `"api":"anthropic-messages",`, ``), `"stopReason":"toolUse"`, `"stopReason":"nope"`)),
			[]string{"/message/api", "/message/stopReason"}},

		// unsupported versions are somebody else's finding
		{"version 4 yields nothing", 4, `{"type":"model_change"}`, nil},
	}
}

func TestSchemaCheck(t *testing.T) {
	s := compileForTest(t)
	for _, tc := range schemaCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Check(tc.version, 7, decodeForTest(t, []byte(tc.line)))
			if ptrs := pointers(got); !reflect.DeepEqual(ptrs, tc.want) {
				t.Fatalf("pointers = %q, want %q\nfindings: %v", ptrs, tc.want, got)
			}
			for _, f := range got {
				if f.Code != finding.Schema || f.Severity != finding.Error || f.Line != 7 || f.Message == "" {
					t.Errorf("malformed finding %+v", f)
				}
			}
		})
	}
}

func pointers(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Pointer)
	}
	return out
}

func TestSchemaCheckMessages(t *testing.T) {
	s := compileForTest(t)
	cases := []struct {
		name, line string
		version    int
		want       string // substring of the only finding's message
	}{
		{"missing key", msgEntry(`{"role":"user","content":"x"}`), 3, `required key "timestamp" is missing`},
		{"wrong type", msgEntry(`{"role":"user","content":"x","timestamp":"t"}`), 3, "expected number, got string"},
		{"enum shows the value", msgEntry(strings.Replace(assistantMsg, `"toolUse"`, `"pending"`, 1)), 3, `got "pending"`},
		{"arguments null explained", msgEntry(strings.Replace(assistantMsg, `{"cmd":"ls"}`, `null`, 1)), 3, "crashes"},
		{"unknown role lists the roles", msgEntry(`{"role":"robot"}`), 3, `unknown message role "robot" (expected one of user, assistant,`},
		{"hookMessage names custom", msgEntry(`{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}`), 3, `a version-3 file must use "custom"`},
		{"compaction says why", `{"type":"compaction",` + baseV3 + `,"summary":"s","tokensBefore":1}`, 3, "without retainedTail"},
		{"pattern shows the value", `{"type":"session","id":"bad id","timestamp":"t","cwd":"/"}`, 1, `got "bad id"`},
		{"empty id", strings.Replace(msgEntry(`{"role":"user","content":"x","timestamp":1}`), `"a1b2c3d4"`, `""`, 1), 3, "must not be empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Check(tc.version, 2, decodeForTest(t, []byte(tc.line)))
			if len(got) != 1 || !strings.Contains(got[0].Message, tc.want) {
				t.Fatalf("want one finding containing %q, got %v", tc.want, got)
			}
		})
	}
}

func TestSchemaCheckEntryID(t *testing.T) {
	s := compileForTest(t)
	got := s.Check(3, 2, decodeForTest(t, []byte(msgEntry(`{"role":"user"}`))))
	if len(got) == 0 {
		t.Fatal("want findings")
	}
	for _, f := range got {
		if f.EntryID == nil || *f.EntryID != "a1b2c3d4" {
			t.Errorf("finding %v: entryId = %v, want a1b2c3d4", f, f.EntryID)
		}
	}
	hdr := s.Check(3, 1, decodeForTest(t, []byte(`{"type":"session","id":"abc","timestamp":"t"}`)))
	if len(hdr) != 1 || hdr[0].EntryID != nil || hdr[0].Pointer != "/cwd" {
		t.Errorf("header: want one finding at /cwd without entryId, got %v", hdr)
	}
}

func TestSchemaPointerEscaping(t *testing.T) {
	cases := []struct{ loc, want string }{
		{"/message/content/0", "/message/content/0"},
		{"/a~1b/c~0d", "/a~1b/c~0d"},
		{"/with%20space", "/with space"},
		{"/bad%zz", "/bad%zz"},
	}
	for _, tc := range cases {
		if got := instancePointer(tc.loc); got != tc.want {
			t.Errorf("instancePointer(%q) = %q, want %q", tc.loc, got, tc.want)
		}
	}
	v := decodeForTest(t, []byte(`{"a/b":{"c~d":[1,{"e":2}]}}`))
	if got, ok := resolve(v, "/a~1b/c~0d/1/e"); !ok || got != json.Number("2") {
		t.Errorf("resolve = %v, %v; want 2, true", got, ok)
	}
	if _, ok := resolve(v, "/a~1b/c~0d/9"); ok {
		t.Error("resolve past the end of an array should fail")
	}
	sorted := []string{"", "/message", "/message/content/2", "/message/content/10", "/message/usage"}
	shuffled := []string{"/message/content/10", "/message/usage", "", "/message/content/2", "/message"}
	sort.Slice(shuffled, func(i, j int) bool { return comparePointers(shuffled[i], shuffled[j]) < 0 })
	if !reflect.DeepEqual(shuffled, sorted) {
		t.Errorf("pointer order = %q, want %q", shuffled, sorted)
	}
}

// TestSchemaConcurrentCheck runs Check from several goroutines; run with
// -race to prove the compiled schemas are only read.
func TestSchemaConcurrentCheck(t *testing.T) {
	s := compileForTest(t)
	bad := []byte(msgEntry(strings.Replace(assistantMsg, `"toolUse"`, `"pending"`, 1)))
	want := s.Check(3, 2, decodeForTest(t, bad))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if got := s.Check(3, 2, decodeForTest(t, bad)); !reflect.DeepEqual(got, want) {
					t.Errorf("concurrent Check = %v, want %v", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// realRecords calls fn for every complete object of a real corpus file, the
// objects of a concatenated line included, with the file's version.
func realRecords(tb testing.TB, path string, fn func(version, line int, raw []byte)) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	r := session.NewReader(f, session.DefaultLimits())
	version := 0
	for r.Next() {
		l := r.Line()
		if l.Class != session.Object && l.Class != session.Concatenated {
			continue
		}
		for k := range l.Objects {
			raw := l.Object(k)
			if version == 0 {
				version = fileVersion(tb, raw)
			}
			fn(version, l.Num, raw)
		}
	}
	if err := r.Err(); err != nil {
		tb.Fatal(err)
	}
}

func fileVersion(tb testing.TB, header []byte) int {
	var h struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(header, &h); err != nil {
		tb.Fatalf("header: %v", err)
	}
	if h.Version == nil {
		return 1
	}
	return *h.Version
}

func realCorpusFiles(tb testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(schemaRealCorpus, "*.jsonl"))
	if len(files) == 0 {
		tb.Skipf("no real corpus at %s: skipping (CI has it)", schemaRealCorpus)
	}
	return files
}

// TestSchemaRealCorpus: every object pi wrote validates with zero findings,
// including both objects of each concatenated line.
func TestSchemaRealCorpus(t *testing.T) {
	s := compileForTest(t)
	for _, path := range realCorpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			records := 0
			realRecords(t, path, func(version, line int, raw []byte) {
				records++
				for _, f := range s.Check(version, line, decodeForTest(t, raw)) {
					t.Errorf("%s", f)
				}
				fast, err := session.Decode(raw, true) // what validate feeds Check
				if err != nil {
					t.Fatalf("line %d: parse.Decode: %v", line, err)
				}
				for _, f := range s.Check(version, line, fast) {
					t.Errorf("parse.Decode: %s", f)
				}
			})
			if records == 0 {
				t.Fatal("no records read")
			}
		})
	}
}

// BenchmarkSchemaCheck checks every record of the largest real file;
// decoding happens before the timer. MB/s counts the records' JSON bytes.
func BenchmarkSchemaCheck(b *testing.B) {
	s := compileForTest(b)
	largest, size := "", int64(-1)
	for _, path := range realCorpusFiles(b) {
		if st, err := os.Stat(path); err == nil && st.Size() > size {
			largest, size = path, st.Size()
		}
	}
	type record struct {
		version, line int
		v             map[string]any
	}
	var records []record
	var bytesTotal int64
	realRecords(b, largest, func(version, line int, raw []byte) {
		records = append(records, record{version, line, decodeForTest(b, raw)})
		bytesTotal += int64(len(raw))
	})
	b.SetBytes(bytesTotal)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range records {
			if fs := s.Check(r.version, r.line, r.v); len(fs) != 0 {
				b.Fatalf("unexpected findings: %v", fs)
			}
		}
	}
}

// BenchmarkSchemaDecode measures the decodes Check needs, for scale:
// encoding/json with UseNumber, and session.Decode that validate uses.
func BenchmarkSchemaDecode(b *testing.B) {
	files := realCorpusFiles(b)
	sort.Slice(files, func(i, j int) bool { return fileSize(files[i]) > fileSize(files[j]) })
	var raws [][]byte
	var bytesTotal int64
	realRecords(b, files[0], func(_, _ int, raw []byte) {
		raws = append(raws, append([]byte(nil), raw...))
		bytesTotal += int64(len(raw))
	})
	decoders := []struct {
		name   string
		decode func([]byte) (map[string]any, error)
	}{
		{"encoding-json", func(raw []byte) (map[string]any, error) {
			d := json.NewDecoder(bytes.NewReader(raw))
			d.UseNumber()
			var v map[string]any
			return v, d.Decode(&v)
		}},
		{"parse-Decode", func(raw []byte) (map[string]any, error) { return session.Decode(raw, true) }},
	}
	for _, dec := range decoders {
		b.Run(dec.name, func(b *testing.B) {
			b.SetBytes(bytesTotal)
			for i := 0; i < b.N; i++ {
				for _, raw := range raws {
					if _, err := dec.decode(raw); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return st.Size()
}

// quickAgrees reports whether the quick check and jsonschema give v the
// same verdict under the check Check would use.
func quickAgrees(t *testing.T, s *Schemas, version int, v map[string]any) bool {
	t.Helper()
	c, _, ok := s.dispatch(version, v)
	if !ok {
		return true
	}
	return c.quick.valid(v) == (c.full.validate(v) == nil)
}

// TestSchemaQuickAgreesOnExamples: the quick check never differs from
// jsonschema on the table's valid and broken examples.
func TestSchemaQuickAgreesOnExamples(t *testing.T) {
	s := compileForTest(t)
	for _, tc := range schemaCases(t) {
		if !quickAgrees(t, s, tc.version, decodeForTest(t, []byte(tc.line))) {
			t.Errorf("%s: quick check and jsonschema disagree on %s", tc.name, tc.line)
		}
	}
}

// mutations are the values a mutated key gets (deleting it is the first).
var mutations = []any{nil, json.Number("1"), json.Number("-1"), json.Number("1.5"), "x", "", true, map[string]any{}, []any{}}

// TestSchemaQuickAgreesOnMutants breaks the table's valid examples and
// real records one value at a time (delete it, or give it another type)
// and checks that the quick check agrees with jsonschema on every mutant.
func TestSchemaQuickAgreesOnMutants(t *testing.T) {
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
			if !quickAgrees(t, s, tc.version, v) {
				t.Errorf("%s: %s at %s: quick check and jsonschema disagree", tc.name, what, ptr)
			}
		})
	}
	corpus, _ := filepath.Glob(filepath.Join(schemaRealCorpus, "*.jsonl")) // absent: examples only
	for _, path := range corpus {
		n := 0
		realRecords(t, path, func(version, line int, raw []byte) {
			n++
			if n > 8 && n%100 != 0 { // every record of small files, a sample of large ones
				return
			}
			v := decodeForTest(t, raw)
			mutate(v, "", 0, func(ptr, what string) {
				mutants++
				if !quickAgrees(t, s, version, v) {
					t.Errorf("%s line %d: %s at %s: quick check and jsonschema disagree", filepath.Base(path), line, what, ptr)
				}
			})
		})
	}
	if mutants < 1000 {
		t.Fatalf("only %d mutants tried", mutants)
	}
	t.Logf("%d mutants", mutants)
}

// mutate changes each value under container c in place, calls try, and
// restores it. Arrays: the first two elements; depth is bounded.
func mutate(c any, ptr string, depth int, try func(ptr, what string)) {
	if depth > 6 {
		return
	}
	switch x := c.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			old, p := x[k], ptr+"/"+escapeToken(k)
			delete(x, k)
			try(p, "delete")
			for _, m := range mutations {
				x[k] = m
				try(p, fmt.Sprintf("set %v", m))
			}
			x[k] = old
			mutate(old, p, depth+1, try)
		}
	case []any:
		for i := 0; i < len(x) && i < 2; i++ {
			old, p := x[i], fmt.Sprintf("%s/%d", ptr, i)
			for _, m := range mutations {
				x[i] = m
				try(p, fmt.Sprintf("set %v", m))
			}
			x[i] = old
			mutate(old, p, depth+1, try)
		}
	}
}

// TestSchemaChecksCompile: jsonschema compiles every check CompileSchemas
// made (it does so lazily, when a line is first rejected).
func TestSchemaChecksCompile(t *testing.T) {
	s := compileForTest(t)
	checks := []check{s.header}
	for _, vs := range s.versions[1:] {
		checks = append(checks, vs.untyped, vs.message)
		for _, c := range vs.entries {
			checks = append(checks, c)
		}
		for _, c := range vs.roles {
			checks = append(checks, c)
		}
	}
	for _, c := range checks {
		if _, err := c.full.get(); err != nil {
			t.Errorf("%s: %v", c.full.url, err)
		}
	}
}

// TestSchemaFilesCompile: every embedded file compiles on its own with
// both compilers (what `pisess schema` prints must be usable), and the
// quick compiler refuses keywords it does not understand.
func TestSchemaFilesCompile(t *testing.T) {
	c, err := newCheckCompiler()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range schema.Names() {
		ch, err := c.compile(name+".json", "")
		if err == nil {
			_, err = ch.full.get() // jsonschema compiles lazily
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	q := newQuickCompiler()
	if err := q.add("x.json", []byte(`{"oneOf":[{"type":"string"}]}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.compile("x.json", ""); err == nil || !strings.Contains(err.Error(), "oneOf") {
		t.Errorf("quick compiler accepted an unknown keyword (err = %v)", err)
	}
}

func TestSchemaQuoteValue(t *testing.T) {
	long := strings.Repeat("é", 40) // 2 bytes each: the cut falls inside one
	got := quoteValue(long)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 64 {
		t.Errorf("quoteValue(long) = %q", got)
	}
	if got := quoteValue(json.Number("3")); got != "3" {
		t.Errorf("quoteValue(3) = %q", got)
	}
}

func TestSchemaDedupe(t *testing.T) {
	f := func(ptr, msg string) finding.Finding { return finding.Finding{Pointer: ptr, Message: msg} }
	in := []finding.Finding{f("/b", "x"), f("/a/10", "y"), f("/a/2", "y"), f("/b", "x"), f("/a/2", "y"), f("/b", "w")}
	want := []finding.Finding{f("/a/2", "y"), f("/a/10", "y"), f("/b", "w"), f("/b", "x")}
	if got := dedupe(in); !reflect.DeepEqual(got, want) {
		t.Errorf("dedupe = %v, want %v", got, want)
	}
}
