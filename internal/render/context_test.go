package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/project"
)

func renderContext(t *testing.T, s *project.Session, leaf string, opt ViewOptions) string {
	t.Helper()
	e, err := s.Leaf(leaf)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Context(e)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Context(&b, c, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

const (
	callBash   = `{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"bash","arguments":{"command":"ls"}}],"provider":"anthropic","model":"claude","usage":{"input":10,"output":5,"totalTokens":1000},"stopReason":"toolUse"}`
	resultBash = `{"role":"toolResult","toolCallId":"toolu_1","toolName":"bash","content":[{"type":"text","text":"a.go\nb.go"}],"isError":false}`
)

func TestContext(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		leaf  string
		opt   ViewOptions
		want  string
	}{
		{
			name: "header, messages and tokens",
			lines: []string{
				`{"type":"thinking_level_change","id":"t1","parentId":null,"timestamp":"2026-02-09T15:00:00.000Z","thinkingLevel":"high"}`,
				msgLine("u1", "t1", 1, user("list the files")),
				msgLine("a1", "u1", 2, callBash),
				msgLine("r1", "a1", 3, resultBash),
			},
			opt: ViewOptions{File: "c.jsonl"},
			want: `c.jsonl: context at leaf r1
  model     anthropic/claude
  thinking  high
  messages  3, ≈ 1,003 tokens (usage reported at #1 + 1 estimated after it)

#  message     entry     chars  ~tokens  text
0  user        u1           14        4  list the files
1  assistant   a1           20        5  → bash
2  toolResult  r1            9        3  bash (9 B, 2 lines): a.go b.go
`,
		},
		{
			name: "rule-6 problems flagged on their messages",
			lines: []string{
				msgLine("u1", "", 1, user("go")),
				msgLine("a1", "u1", 2, callBash),
				msgLine("u2", "a1", 3, user("never mind")),
				msgLine("r1", "u2", 4, resultBash),
			},
			want: `c.jsonl: context at leaf r1
  model     anthropic/claude
  thinking  off
  messages  4, ≈ 1,006 tokens (usage reported at #1 + 2 estimated after it)

#  message     entry     chars  ~tokens  text
0  user        u1            2        1  go
1  assistant   a1           20        5  → bash
   ⚠ tool call toolu_1 (bash) has no result before the next message
2  user        u2           10        3  never mind
3  toolResult  r1            9        3  bash (9 B, 2 lines): a.go b.go
   ⚠ tool result for toolu_1 (bash) does not follow its call

⚠ 2 tool call/result problems (rule 6): a provider rejects the next request built from this context
`,
			opt: ViewOptions{File: "c.jsonl"},
		},
		{
			name: "compaction cut, summaries, custom messages and edits",
			lines: []string{
				msgLine("u1", "", 1, user("old")),
				msgLine("u2", "u1", 2, user("kept")),
				`{"type":"compaction","id":"c1","parentId":"u2","timestamp":"2026-02-09T15:00:03.000Z","summary":"what happened","firstKeptEntryId":"u2","tokensBefore":5000}`,
				`{"type":"branch_summary","id":"b1","parentId":"c1","timestamp":"2026-02-09T15:00:04.000Z","fromId":"zz","summary":"tried X"}`,
				`{"type":"custom_message","id":"m1","parentId":"b1","timestamp":"2026-02-09T15:00:05.000Z","customType":"ci","content":"green","display":true}`,
				msgLine("u3", "m1", 6, user("secret")),
				`{"type":"context_edit","id":"e1","parentId":"u3","timestamp":"2026-02-09T15:00:07.000Z","targetId":"u3","replacement":null}`,
				`{"type":"context_edit","id":"e2","parentId":"e1","timestamp":"2026-02-09T15:00:08.000Z","targetId":"m1","replacement":{"content":"edited"}}`,
			},
			opt: ViewOptions{Quiet: true},
			want: `#  message             entry     chars  ~tokens  text
0  compaction summary  c1           13        4  (5,000 tokens before): what happened
   ── kept from before compaction c1 ──
1  user                u2            4        1  kept
   ── after compaction c1 ──
2  branch summary      b1            7        2  (from zz): tried X
3  custom ci           m1            6        2  edited  ✎ edited by e2
   ✂ u3 user omitted by context edit e1
`,
		},
		{
			// pi 1.6.0 applies the latest edit of any context entry: null
			// drops the messages of a branch summary, a bash execution or the
			// leading compaction too, and a replacement changes the content of
			// a custom-role message. The view says so, as for the edits
			// validate accepts (such files fail context_edit_target).
			name: "edits of entries validate says cannot be edited",
			lines: []string{
				msgLine("u1", "", 1, user("old")),
				`{"type":"compaction","id":"c1","parentId":"u1","timestamp":"2026-02-09T15:00:02.000Z","summary":"what happened","firstKeptEntryId":"u1","tokensBefore":5000}`,
				`{"type":"branch_summary","id":"b1","parentId":"c1","timestamp":"2026-02-09T15:00:03.000Z","fromId":"zz","summary":"tried X"}`,
				msgLine("x1", "b1", 4, `{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"cancelled":false,"truncated":false}`),
				msgLine("h1", "x1", 5, `{"role":"custom","customType":"hook","content":"from a hook","display":true}`),
				msgLine("u2", "h1", 6, user("new")),
				`{"type":"context_edit","id":"e1","parentId":"u2","timestamp":"2026-02-09T15:00:07.000Z","targetId":"c1","replacement":null}`,
				`{"type":"context_edit","id":"e2","parentId":"e1","timestamp":"2026-02-09T15:00:08.000Z","targetId":"b1","replacement":null}`,
				`{"type":"context_edit","id":"e3","parentId":"e2","timestamp":"2026-02-09T15:00:09.000Z","targetId":"x1","replacement":null}`,
				`{"type":"context_edit","id":"e4","parentId":"e3","timestamp":"2026-02-09T15:00:10.000Z","targetId":"h1","replacement":{"content":"edited hook"}}`,
			},
			opt: ViewOptions{File: "c.jsonl"},
			want: `c.jsonl: context at leaf e4
  model     (none)
  thinking  off
  messages  3, ≈ 5 tokens (estimated: characters / 4)
  cut       at compaction c1 (line 3): 0 earlier entries dropped, 1 kept from u1
  edits     1 message replaced, 3 messages omitted by context_edit

#  message      entry     chars  ~tokens  text
   ✂ c1 compaction omitted by context edit e1
0  user         u1            3        1  old
   ── after compaction c1 ──
   ✂ b1 branch summary omitted by context edit e2
   ✂ x1 bash omitted by context edit e3
1  custom hook  h1           11        3  edited hook  ✎ edited by e4
2  user         u2            3        1  new
`,
		},
		{
			name:  "an empty session",
			opt:   ViewOptions{File: "e.jsonl"},
			want:  "e.jsonl: no entries, empty context\n\n(no messages)\n",
			lines: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderContext(t, load(t, tt.lines...), tt.leaf, tt.opt)
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// The header names the cut of a compaction that carries its retained tail,
// and the tail is set apart.
func TestContextRetainedTail(t *testing.T) {
	s := load(t,
		msgLine("u1", "", 1, user("old")),
		`{"type":"compaction","id":"c1","parentId":"u1","timestamp":"2026-02-09T15:00:03.000Z","summary":"s","firstKeptEntryId":"u1","tokensBefore":9,"retainedTail":[`+user("tail one")+`,`+user("tail two")+`]}`,
		msgLine("u2", "c1", 4, user("new")),
	)
	got := renderContext(t, s, "", ViewOptions{File: "r.jsonl"})
	for _, want := range []string{
		"  cut       at compaction c1 (line 3): 1 earlier entry dropped, 2 messages retained\n",
		"   ── retained tail of compaction c1: 2 messages ──\n1  user ",
		"2  user                c1            8        2  tail two\n   ── after compaction c1 ──\n3  user  ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// The JSON document carries each message as the file has it: no HTML
// escaping, numbers as written, key order kept.
func TestContextJSONIsByteFaithful(t *testing.T) {
	msg := `{"role":"user","content":"<b> & </b> \u00e9","n":1.50,"big":12345678901234567890,"z":1e3,"timestamp":1}`
	s := load(t, msgLine("u1", "", 1, msg))
	c, err := s.Context(s.DefaultLeaf())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ContextJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, `"messages":[`+msg+`]`) {
		t.Errorf("message not byte-identical:\n%s", out)
	}
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "}\n") {
		t.Errorf("want one line ending in a newline: %q", out)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for key, want := range map[string]string{"leaf": `"u1"`, "model": "null", "thinkingLevel": `"off"`, "entryIds": `["u1"]`, "unpaired": "[]"} {
		if string(doc[key]) != want {
			t.Errorf("%s = %s, want %s", key, doc[key], want)
		}
	}
}

// TestContextIDColumn: an id wider than eight columns once escaped or
// drawn (wide characters, control characters) widens the entry column,
// so the columns after it stay aligned.
func TestContextIDColumn(t *testing.T) {
	s := load(t,
		msgLine("a1", "", 1, user("one")),
		msgLine("漢字漢字漢字", "a1", 2, user("two")),
		strings.Replace(msgLine("c", "漢字漢字漢字", 3, user("three")), `"id":"c"`, `"id":"c\u0001\u0002"`, 1),
	)
	got := renderContext(t, s, "c\x01\x02", ViewOptions{Quiet: true})
	want := "#  message  entry         chars  ~tokens  text\n" +
		"0  user     a1                3        1  one\n" +
		"1  user     漢字漢字漢字      3        1  two\n" +
		"2  user     c\\x01\\x02         5        2  three\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("got\n%s\nwant it to end\n%s", got, want)
	}
}
