package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

func ids(entries []*Entry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.ID())
	}
	return out
}

// brief describes a projected message as "role:text".
func brief(m json.RawMessage) string {
	var v struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Summary string          `json:"summary"`
	}
	if err := json.Unmarshal(m, &v); err != nil {
		return "unreadable"
	}
	if v.Summary != "" {
		return v.Role + ":" + v.Summary
	}
	t, _ := tapeOf(m)
	return v.Role + ":" + contentText(t, t.Get(0, "content"))
}

// contentText joins the text of a string or block-array content; images
// show as [image].
func contentText(t *session.Tape, content int) string {
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

func briefs(msgs []json.RawMessage) []string {
	out := []string{}
	for _, m := range msgs {
		out = append(out, brief(m))
	}
	return out
}

func mustLeaf(t *testing.T, s *Session, id string) *Entry {
	t.Helper()
	e, err := s.Leaf(id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestLeaf(t *testing.T) {
	tests := []struct {
		fixture, id string
		want        string // "" = no leaf
		wantErr     bool
	}{
		{"branches-labels", "", "l6", false},
		{"branches-labels", "g", "g", false},
		{"branches-labels", "nope", "", true},
		{"compactions", "", "j", false},
		{"header-only", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.id, func(t *testing.T) {
			s := fixtureNamed(t, tt.fixture).load(t)
			e, err := s.Leaf(tt.id)
			var ue *UnknownEntryError
			if tt.wantErr != errors.As(err, &ue) {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			got := ""
			if e != nil {
				got = e.ID()
			}
			if got != tt.want {
				t.Errorf("leaf %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPath(t *testing.T) {
	tests := []struct {
		fixture, leaf string
		want          []string
		cycleAt       string // the entry reached twice, when a cycle is expected
	}{
		{"branches-labels", "", []string{"m0", "a", "b", "d", "e", "f", "l6"}, ""},
		{"branches-labels", "l5", []string{"m0", "a", "b", "c", "c2", "l1", "l2", "l3", "l4", "l5"}, ""},
		{"branches-labels", "g", []string{"m0", "a", "b", "g"}, ""},
		{"orphans-and-order", "b", []string{"b"}, ""}, // parent "gone" is missing: b is a root
		{"cycle", "r", []string{"r"}, ""},
		{"cycle", "s", nil, "s"}, // its own parent
		{"cycle", "z", nil, "y"},
		{"header-only", "", []string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.leaf, func(t *testing.T) {
			s := fixtureNamed(t, tt.fixture).load(t)
			path, err := s.Path(mustLeaf(t, s, tt.leaf))
			var ce *CycleError
			if tt.cycleAt != "" {
				if !errors.As(err, &ce) || ce.ID != tt.cycleAt {
					t.Fatalf("error %v, want a cycle at %s", err, tt.cycleAt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(path); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("path %v, want %v", got, tt.want)
			}
		})
	}
}

// treeString renders a tree as "id{label}[children]".
func treeString(s *Session, tr *Tree) string {
	var b strings.Builder
	var write func(nodes []int32)
	write = func(nodes []int32) {
		for i, n := range nodes {
			if i > 0 {
				b.WriteByte(' ')
			}
			e := s.Entries[n]
			b.WriteString(e.ID())
			if l, ok := s.Label(e.ID()); ok && e.ID() != "" {
				fmt.Fprintf(&b, "{%s}", l)
			}
			if kids := tr.Children(int(n)); len(kids) > 0 {
				b.WriteByte('[')
				write(kids)
				b.WriteByte(']')
			}
		}
	}
	write(tr.Roots)
	return b.String()
}

func TestTree(t *testing.T) {
	tests := []struct {
		fixture  string
		want     string
		detached []string
	}{
		// b's children sorted by timestamp (g 4s, d 5s, c 9s); a keeps
		// "start"; c's label is set then cleared (no label key); b's is set
		// twice then cleared (empty label).
		{"branches-labels", "m0[a{start}[b[g d[e[f[l6]]] c[c2[l1[l2[l3[l4[l5]]]]]]]]]", nil},
		// a missing parent makes a root; equal timestamps keep file order;
		// an unparseable timestamp compares equal to everything.
		{"orphans-and-order", "a[d e f c g] b h", nil},
		// a self-parent is a root; a parent cycle and what hangs below it
		// are detached.
		{"cycle", "r s", []string{"x", "y", "z"}},
		{"header-only", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			s := fixtureNamed(t, tt.fixture).load(t)
			tr := s.Tree()
			if got := treeString(s, tr); got != tt.want {
				t.Errorf("tree\n got %s\nwant %s", got, tt.want)
			}
			if got := ids(tr.Detached); !reflect.DeepEqual(got, append([]string{}, tt.detached...)) {
				t.Errorf("detached %v, want %v", got, tt.detached)
			}
		})
	}
}

func TestLeaves(t *testing.T) {
	tests := []struct {
		fixture string
		want    []string
	}{
		{"branches-labels", []string{"l5", "g", "l6"}}, // f is no leaf: l6 hangs below it
		{"cycle", []string{"r", "z"}},                  // s is its own child
		{"header-only", []string{}},
	}
	for _, tt := range tests {
		if got := ids(fixtureNamed(t, tt.fixture).load(t).Leaves()); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: leaves %v, want %v", tt.fixture, got, tt.want)
		}
	}
}

func TestSettings(t *testing.T) {
	tests := []struct {
		fixture, leaf string
		model         string // "provider/modelId", "" for null
		thinking      string // raw JSON, "" for absent
	}{
		{"settings", "d", "anthropic/claude-test", `"low"`}, // the assistant message overrides model_change b
		{"settings", "f", "google/gemini-b", `"xhigh"`},     // a later model_change overrides the assistant
		{"settings", "h", "openai/gpt-c", ""},               // a thinking_level_change without a level: pi's undefined
		{"settings", "b", "openai/gpt-a", `"low"`},          // model_change
		{"settings", "a", "", `"low"`},                      // no model yet
		{"branches-labels", "g", "anthropic/claude-test", `"high"`},
		{"branches-labels", "", "anthropic/claude-test", `"off"`}, // thinking level starts off
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.leaf, func(t *testing.T) {
			s := fixtureNamed(t, tt.fixture).load(t)
			c, err := s.Context(mustLeaf(t, s, tt.leaf))
			if err != nil {
				t.Fatal(err)
			}
			model := ""
			if c.Model != nil {
				p, m := c.Model.Names()
				model = p + "/" + m
			}
			if model != tt.model || string(c.ThinkingLevel) != tt.thinking {
				t.Errorf("model %q thinking %s, want %q %s", model, c.ThinkingLevel, tt.model, tt.thinking)
			}
		})
	}
}

func TestContext(t *testing.T) {
	tests := []struct {
		name, fixture, leaf string
		want                []string // brief of each message
		entryIDs            []string
	}{
		{"branch summary on the path", "branches-labels", "",
			[]string{"user:hello", "assistant:hi there", "branchSummary:The user went left.", "user:go right", "assistant:went right"},
			[]string{"a", "b", "d", "e", "f"}},
		{"other branch", "branches-labels", "l5",
			[]string{"user:hello", "assistant:hi there", "user:go left", "assistant:went left"},
			[]string{"a", "b", "c", "c2"}},
		{"compaction keeps from firstKeptEntryId", "compactions", "f",
			[]string{"compactionSummary:first summary", "user:three", "assistant:four", "user:five", "assistant:six"},
			[]string{"k1", "c", "d", "e", "f"}},
		{"only the last compaction counts; one in the kept range yields nothing", "compactions", "h",
			[]string{"compactionSummary:second summary", "user:three", "assistant:four", "user:five", "assistant:six", "user:seven", "assistant:eight"},
			[]string{"k2", "c", "d", "e", "f", "g", "h"}},
		{"firstKeptEntryId is the compaction itself", "compactions", "i",
			[]string{"compactionSummary:self summary", "user:after self"}, []string{"k3", "i"}},
		{"firstKeptEntryId not on the path", "compactions", "j",
			[]string{"compactionSummary:dangling summary", "user:after dangling"}, []string{"k4", "j"}},
		{"retainedTail replaces the kept range", "retained-tail", "c",
			[]string{"compactionSummary:checkpoint", "user:tail user", "assistant:tail assistant", "user:after"},
			[]string{"k", "k", "k", "c"}},
		{"an empty retainedTail keeps nothing", "retained-tail", "d",
			[]string{"compactionSummary:empty tail", "user:after empty tail"}, []string{"k2", "d"}},
		{"custom messages, empty branch summary, metadata entries", "custom-and-summaries", "",
			[]string{"custom:plain", "custom:block [image]", "custom:x", "branchSummary:from the root", "bashExecution:", "custom:odd time"},
			[]string{"a", "b", "b2", "d", "h", "i"}},
		{"context edits: last per target wins, null omits", "context-edits", "",
			[]string{"assistant:short", "toolResult:(elided)", "custom:edited note", "user:next"},
			[]string{"b", "c", "cm", "d"}},
		{"context edits before they happen", "context-edits", "x1",
			[]string{"user:my password is [redacted]", "assistant:reading", "toolResult:a very long file", "custom:original note"},
			[]string{"a", "b", "c", "cm"}},
		{"pi 1.6.0: older compaction kept, system message dropped from the kept range, edits", "pi1-projection", "h",
			[]string{"compactionSummary:second summary", "assistant:", "user:three", "user:", "assistant:", "custom:", "user:end"},
			[]string{"k2", "b", "c", "e", "f", "cm", "h"}},
		{"pi 1.6.0: systemMessage leads, latest edit wins, null omits any entry", "pi1-projection", "h2",
			[]string{"system:checkpoint", "compactionSummary:first summary", "user:edited again", "assistant:", "user:three", "user:", "system:later rules", "assistant:", "custom:", "user:other end"},
			[]string{"k1", "k1", "a", "b", "c", "e", "s2", "f", "cm", "h2"}},
		{"latest edit without replacement leaves the message", "edit-without-replacement", "",
			[]string{"system:", "user:original"}, []string{"s", "a"}},
		{"v1: ids, index, hookMessage", "v1-linear", "",
			[]string{"compactionSummary:v1 summary", "user:third", "custom:from a hook", "user:after"}, nil},
		{"v1: index of a later entry keeps nothing", "v1-forward-index", "",
			[]string{"compactionSummary:forward", "user:last"}, nil},
		{"v1: index of the header keeps nothing", "v1-index-header", "",
			[]string{"compactionSummary:points at the header"}, nil},
		{"v2: hookMessage becomes custom", "v2-hook", "",
			[]string{"user:hi", "custom:hooked"}, []string{"a", "b"}},
		{"no entries", "header-only", "", []string{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixtureNamed(t, tt.fixture).load(t)
			c, err := s.Context(mustLeaf(t, s, tt.leaf))
			if err != nil {
				t.Fatal(err)
			}
			if got := briefs(c.Messages); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("messages\n got %q\nwant %q", got, tt.want)
			}
			if tt.entryIDs != nil && !reflect.DeepEqual(c.EntryIDs(), tt.entryIDs) {
				t.Errorf("entryIds %v, want %v", c.EntryIDs(), tt.entryIDs)
			}
		})
	}
}

// TestSynthesizedMessages pins the exact JSON of the messages pi builds
// from entries (key order as pi's object literals; absent keys omitted;
// timestamps in Unix ms).
func TestSynthesizedMessages(t *testing.T) {
	tests := []struct {
		fixture, leaf string
		index         int
		want          string
	}{
		{"custom-and-summaries", "", 0, `{"role":"custom","customType":"note","content":"plain","display":true,"timestamp":1767225601000}`},
		{"custom-and-summaries", "", 1, `{"role":"custom","customType":"rich","content":[{"type":"text","text":"block"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"display":false,"details":{"k":[1,2.50,null]},"timestamp":1767225602000}`},
		{"custom-and-summaries", "", 2, `{"role":"custom","customType":"nulldetails","content":"x","display":true,"details":null,"timestamp":1767225603000}`},
		{"custom-and-summaries", "", 3, `{"role":"branchSummary","summary":"from the root","fromId":"root","timestamp":1767225605000}`},
		{"custom-and-summaries", "", 5, `{"role":"custom","customType":"when","content":"odd time","display":true,"timestamp":1767222000000}`},
		{"compactions", "f", 0, `{"role":"compactionSummary","summary":"first summary","tokensBefore":1005,"timestamp":1767225605000}`},
		{"context-edits", "", 0, `{"role":"assistant","content":[{"type":"text","text":"short"},{"type":"toolCall","id":"call1","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-test","usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1767225602000}`},
		{"context-edits", "", 1, `{"role":"toolResult","toolCallId":"call1","toolName":"read","content":[{"type":"text","text":"(elided)"}],"isError":false,"timestamp":1767225603000}`},
		{"context-edits", "", 2, `{"role":"custom","customType":"note","content":"edited note","display":true,"timestamp":1767225604000}`},
		{"context-edits", "x1", 0, `{"role":"user","content":"my password is [redacted]","timestamp":1767225601000}`},
		{"v2-hook", "", 1, `{"role":"custom","customType":"hook","content":"hooked","display":true,"timestamp":1767225602000}`},
		{"edit-without-replacement", "", 0, `{"content":"","role":"system"}`},
		{"pi1-projection", "h2", 0, `{"role":"system","content":"checkpoint","sections":{"preamble":"You are careful.","cwd":"/w"},"timestamp":1767225606000}`},
		{"pi1-projection", "h2", 3, `{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-test","usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225604000}`},
		{"pi1-projection", "h2", 5, `{"role":"user","content":[],"timestamp":1767225607000}`},
		{"pi1-projection", "h2", 7, `{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-test","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","timestamp":1767225609000,"content":[]}`},
		{"pi1-projection", "h2", 8, `{"role":"custom","customType":"note","content":[],"display":true,"timestamp":1767225610000}`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%d", tt.fixture, tt.leaf, tt.index), func(t *testing.T) {
			s := fixtureNamed(t, tt.fixture).load(t)
			c, err := s.Context(mustLeaf(t, s, tt.leaf))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(c.Messages[tt.index]); got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestV1Migration(t *testing.T) {
	s := fixtureNamed(t, "v1-linear").load(t)
	if s.Header.Version != 1 {
		t.Fatalf("version %d", s.Header.Version)
	}
	gen := session.NewIDs(sessionID)
	lines := []int{2, 4, 5, 7, 8, 9, 10} // blank lines 3 and 6 hold no entry
	prev := ""
	for i, e := range s.Entries {
		if want := gen.For(lines[i]); e.ID() != want || e.Line != lines[i] || e.ParentID() != prev {
			t.Errorf("entry %d: id %s line %d parent %q, want %s %d %q", i, e.ID(), e.Line, e.ParentID(), want, lines[i], prev)
		}
		prev = e.ID()
	}
	k := s.Entries[5]
	if _, ok := k.Field("firstKeptEntryIndex"); ok {
		t.Error("firstKeptEntryIndex kept")
	}
	if got := k.StringField("firstKeptEntryId"); got != s.Entries[2].ID() { // record 3 = line 5
		t.Errorf("firstKeptEntryId %s, want %s", got, s.Entries[2].ID())
	}
	if s.Entries[4].Role() != "custom" {
		t.Errorf("hookMessage not renamed: %s", s.Entries[4].Message())
	}
	again := fixtureNamed(t, "v1-linear").load(t)
	if !reflect.DeepEqual(ids(s.Entries), ids(again.Entries)) {
		t.Error("v1 ids are not deterministic")
	}
}

func TestConcatenatedLine(t *testing.T) {
	text := header(1) + "\n" + v1("message", 1, userMsg(1, "one")) + v1("compaction", 2, `"summary":"s","firstKeptEntryIndex":1,"tokensBefore":1`) + "\n"
	s, err := Load(strings.NewReader(text), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 2 || s.Entries[0].Line != 2 || s.Entries[1].Line != 2 || s.Entries[1].Object != 1 {
		t.Fatalf("want both objects of line 2, got %d entries", len(s.Entries))
	}
	a, b := s.Entries[0], s.Entries[1]
	if a.ID() == b.ID() || b.ParentID() != a.ID() || b.StringField("firstKeptEntryId") != a.ID() {
		t.Errorf("ids %s %s, parent %s, firstKept %s", a.ID(), b.ID(), b.ParentID(), b.StringField("firstKeptEntryId"))
	}
}

func TestSkippedLines(t *testing.T) {
	text := header(3) + "\n" + user("a", "", 1, "one") + "\n\n" + `[1,2]` + "\n" + `{"type":"message"` + "\n" + user("b", "a", 2, "two") + "\n" + `{"type":"mess`
	s, err := Load(strings.NewReader(text), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(s.Entries); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("entries %v", got)
	}
	if !reflect.DeepEqual(s.Skipped, []int{3, 4, 5, 7}) {
		t.Errorf("skipped lines %v, want [3 4 5 7]", s.Skipped)
	}
}

func TestHeaderErrors(t *testing.T) {
	tests := []struct {
		name, text string
		code       finding.Code
	}{
		{"empty", "", finding.MissingHeader},
		{"only blank lines", "\n\n", finding.MissingHeader},
		{"extension artifact", `{"version":1,"recordType":"message"}` + "\n", finding.NotASession},
		{"header line lost", `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n", finding.MissingHeader},
		{"first record of an unknown type", `{"type":"note","id":"a"}` + "\n", finding.NotASession},
		{"version 4", `{"kind":"header","version":4}` + "\n", finding.UnsupportedVersion},
		{"version 7", `{"type":"session","version":7,"id":"x"}` + "\n", finding.UnsupportedVersion},
		{"version as a string", `{"type":"session","version":"3","id":"x"}` + "\n", finding.UnsupportedVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(tt.text), session.DefaultLimits())
			var he *HeaderError
			if !errors.As(err, &he) || he.Code != tt.code {
				t.Errorf("error %v, want code %s", err, tt.code)
			}
		})
	}
}

// TestHeaderVersionMessage: project quotes a version as session.ReadHeader
// reads it, clipped as validate's message clips it (it quoted it whole).
func TestHeaderVersionMessage(t *testing.T) {
	long := strings.Repeat("9", 200)
	_, err := Load(strings.NewReader(`{"type":"session","version":`+long+`,"id":"x"}`+"\n"), session.DefaultLimits())
	want := "unsupported session version " + long[:session.ClipBytes] + "… (pisess reads versions 1 to 3)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestToolPairs(t *testing.T) {
	tests := []struct {
		fixture, leaf string
		want          []string // kind:entry:toolCallId
	}{
		{"rule6", "", []string{
			"call_without_result:b:t2",  // the user interrupts before t2's result
			"result_without_call:e:t2",  // t2's late result follows the user message
			"result_without_call:i2:t4", // a second result for t4
			// f's call t3 is aborted (no result needed); j's t5 is still open
		}},
		{"rule6", "c", nil}, // t2 still open at the end
		{"rule6-compaction-cut", "", []string{"result_without_call:c:t1"}}, // the cut drops the call
		{"rule6-system", "", nil}, // a system message between a call and its result is passed over
		{"branches-labels", "", nil},
		{"context-edits", "", nil},
		{"context-edits", "x5", nil},                                     // contents replaced, pairs intact
		{"context-edits", "x7", []string{"call_without_result:b:call1"}}, // the result is omitted
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.leaf, func(t *testing.T) {
			s := fixtureNamed(t, tt.fixture).load(t)
			c, err := s.Context(mustLeaf(t, s, tt.leaf))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range c.Unpaired {
				got = append(got, fmt.Sprintf("%s:%s:%s", u.Kind, u.EntryID, u.ToolCallID))
				if u.Line == 0 || u.Describe() == "" {
					t.Errorf("%+v: no line or description", u)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("unpaired\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// chain builds a session of n messages, each the child of the previous;
// with cycle, the first entry's parent is the last.
func chain(n int, cycle bool) string {
	var b strings.Builder
	b.WriteString(header(3) + "\n")
	for i := range n {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf("e%d", i-1)
		} else if cycle {
			parent = fmt.Sprintf("e%d", n-1)
		}
		b.WriteString(user(fmt.Sprintf("e%d", i), parent, i%3600, "m") + "\n")
	}
	return b.String()
}

func TestDeepChain(t *testing.T) {
	const n = 100_000
	s, err := Load(strings.NewReader(chain(n, false)), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	leaf := s.DefaultLeaf()
	path, err := s.Path(leaf)
	if err != nil || len(path) != n || path[0].ID() != "e0" {
		t.Fatalf("path of %d entries, err %v", len(path), err)
	}
	c, err := s.Context(leaf)
	if err != nil || len(c.Messages) != n {
		t.Fatalf("%d messages, err %v", len(c.Messages), err)
	}
	depth := 0
	s.Tree().Walk(func(_, d int) { depth = max(depth, d) })
	if depth != n-1 {
		t.Errorf("tree depth %d, want %d", depth, n-1)
	}
	cyc, err := Load(strings.NewReader(chain(n, true)), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var ce *CycleError
	if _, err := cyc.Context(cyc.DefaultLeaf()); !errors.As(err, &ce) {
		t.Errorf("a %d-entry parent cycle gave %v, want a CycleError", n, err)
	}
	if tr := cyc.Tree(); len(tr.Roots) != 0 || len(tr.Detached) != n {
		t.Errorf("cycle tree: %d roots, %d detached", len(tr.Roots), len(tr.Detached))
	}
}

func TestViews(t *testing.T) {
	s := fixtureNamed(t, "branches-labels").load(t)
	leaf := mustLeaf(t, s, "g")

	c, err := s.Context(leaf)
	if err != nil {
		t.Fatal(err)
	}
	ctx, _ := json.Marshal(c.View())
	var cv map[string]json.RawMessage
	if err := json.Unmarshal(ctx, &cv); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"leaf": `"g"`, "model": `{"provider":"anthropic","modelId":"claude-test"}`,
		"thinkingLevel": `"high"`, "entryIds": `["a","b"]`, "unpaired": `[]`,
	} {
		if string(cv[key]) != want {
			t.Errorf("context %s = %s, want %s", key, cv[key], want)
		}
	}

	empty := fixtureNamed(t, "header-only").load(t)
	ec, _ := empty.Context(nil)
	if got, _ := json.Marshal(ec.View()); string(got) != `{"leaf":null,"model":null,"thinkingLevel":"off","messages":[],"entryIds":[],"estimatedTokens":0,"unpaired":[]}` {
		t.Errorf("empty context %s", got)
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name, msg string
		want      int
	}{
		{"user string", `{"role":"user","content":"abcde"}`, 2},
		{"user blocks and images", `{"role":"user","content":[{"type":"text","text":"abcd"},{"type":"image","data":"x"}]}`, (4 + 4800 + 3) / 4},
		{"utf-16 length", `{"role":"user","content":"😀😀"}`, 1}, // 4 code units
		{"assistant", `{"role":"assistant","content":[{"type":"text","text":"ab"},{"type":"thinking","thinking":"cd"},{"type":"toolCall","id":"1","name":"bash","arguments":{"c":"x\ny","n":1.50,"e":1e21,"s":1e-7,"u":"é"}}]}`,
			(2 + 2 + 4 + len(`{"c":"x\ny","n":1.5,"e":1e+21,"s":1e-7,"u":"é"}`) - 1 + 3) / 4},
		{"tool result image", `{"role":"toolResult","content":[{"type":"image","data":"x"},{"type":"text","text":"abc"}]}`, (4800 + 3 + 3) / 4},
		{"custom string", `{"role":"custom","content":"abcdefgh"}`, 2},
		{"bash", `{"role":"bashExecution","command":"ls","output":"abc"}`, 2},
		{"summary", `{"role":"compactionSummary","summary":"abcdefghi"}`, 3},
		{"system: content, sections, toolsAdded", `{"role":"system","content":[{"type":"text","text":"abcd"}],"sections":{"a":"xy","gone":null},"toolsAdded":[{"name":"é"}]}`,
			(4 + 2 + len(`[{"name":"é"}]`) - 1 + 3) / 4},
		{"system string", `{"role":"system","content":"abcdefgh"}`, 2},
		{"unknown role", `{"role":"hookMessage","content":"abcdefgh"}`, 0},
		{"not an object", `"x"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateTokens(json.RawMessage(tt.msg)); got != tt.want {
				t.Errorf("%d, want %d", got, tt.want)
			}
		})
	}
}

func TestContextTokens(t *testing.T) {
	user := json.RawMessage(`{"role":"user","content":"abcdefgh"}`) // 2
	withUsage := json.RawMessage(`{"role":"assistant","content":[],"usage":{"totalTokens":100},"stopReason":"stop"}`)
	noTotal := json.RawMessage(`{"role":"assistant","content":[],"usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4},"stopReason":"stop"}`)
	aborted := json.RawMessage(`{"role":"assistant","content":[],"usage":{"totalTokens":500},"stopReason":"aborted"}`)
	zero := json.RawMessage(`{"role":"assistant","content":[],"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"stopReason":"stop"}`)
	notNumber := json.RawMessage(`{"role":"assistant","content":[],"usage":{"input":"7","output":2,"cacheRead":0,"cacheWrite":0},"stopReason":"stop"}`)
	nullPart := json.RawMessage(`{"role":"assistant","content":[],"usage":{"input":null,"output":5,"cacheRead":0,"cacheWrite":0},"stopReason":"stop"}`)
	tests := []struct {
		name string
		msgs []json.RawMessage
		want int
	}{
		{"no usage: all estimated", []json.RawMessage{user, user}, 4},
		{"last usage plus later estimates", []json.RawMessage{user, withUsage, user}, 102},
		{"sum of parts without totalTokens", []json.RawMessage{user, noTotal}, 10},
		{"aborted usage is skipped", []json.RawMessage{withUsage, aborted, user}, 102},
		{"all-zero usage is skipped (pi 1.6.0)", []json.RawMessage{withUsage, zero, user}, 102},
		{"a usage part that is not a number is skipped", []json.RawMessage{withUsage, notNumber, user}, 102},
		{"null counts 0", []json.RawMessage{user, nullPart}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContextTokens(tt.msgs); got != tt.want {
				t.Errorf("%d, want %d", got, tt.want)
			}
		})
	}
}

func TestJSNumber(t *testing.T) {
	for text, want := range map[string]string{
		"0": "0", "-0": "0", "1.50": "1.5", "100": "100", "1e21": "1e+21", "123456789012345680000": "123456789012345680000",
		"1e-7": "1e-7", "0.000001": "0.000001", "-2.5e-8": "-2.5e-8", "1.2345e300": "1.2345e+300", "1e400": "null", "1e-400": "0",
		"9007199254740993": "9007199254740992",
	} {
		if got := jsNumber(text); got != want {
			t.Errorf("jsNumber(%s) = %s, want %s", text, got, want)
		}
	}
}

// TestJSDate pins values printed by node's new Date(s).getTime() (TZ=UTC).
func TestJSDate(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`"2025-11-20T23:33:01.550Z"`, "1763681581550"},
		{`"2025-11-20T23:33:01.5501234Z"`, "1763681581550"},
		{`"2025-11-20T23:33:01Z"`, "1763681581000"},
		{`"2025-11-20T23:33Z"`, "1763681580000"},
		{`"2025-11-20"`, "1763596800000"},
		{`"2025-11"`, "1761955200000"},
		{`"2025"`, "1735689600000"},
		{`"2025-11-20T23:33:01.550+02:00"`, "1763674381550"},
		{`"2025-11-20T23:33:01.550+0200"`, "1763674381550"},
		{`"2025-11-20T23:33:01.550"`, "1763681581550"},
		{`"2025-11-20 23:33:01Z"`, "1763681581000"},
		{`"+002025-11-20T00:00:00Z"`, "1763596800000"},
		{`"2025-11-20T24:00:00Z"`, "1763683200000"},
		{`"2025-02-30T00:00:00Z"`, "1740873600000"},
		{`"2025-11-20T23:33:01.5Z"`, "1763681581500"},
		{`"2025-11-20t23:33:01z"`, "1763681581000"},
		{`"2025-11-20T23:33:01,5Z"`, "null"},
		{`""`, "null"},
		{`"x"`, "null"},
		{`null`, "0"},
		{`true`, "1"},
		{`1.7`, "1"},
		{`-1.7`, "-1"},
		{``, "null"},
	}
	for _, tt := range tests {
		if got := string(jsDateJSON(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("new Date(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
