package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

const header = `{"type":"session","version":3,"id":"s","timestamp":"2026-02-09T15:00:00.000Z","cwd":"/w"}`

// msgLine is the JSONL line of a message entry; ts is seconds after 15:00.
func msgLine(id, parent string, ts int, message string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-02-09T15:%02d:%02d.000Z","message":%s}`,
		id, p, ts/60, ts%60, message)
}

func user(text string) string {
	return fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1}`, text)
}

func load(t testing.TB, lines ...string) *project.Session {
	t.Helper()
	s, err := project.Load(strings.NewReader(strings.Join(append([]string{header}, lines...), "\n")+"\n"), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func renderTree(t testing.TB, s *project.Session, leaf string, opt ViewOptions) string {
	t.Helper()
	e, err := s.Leaf(leaf)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Tree(&b, s, e, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func record(t testing.TB, e *project.Entry) *project.Record {
	t.Helper()
	r, err := e.Record()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTree(t *testing.T) {
	branched := []string{
		msgLine("a1", "", 1, user("first")),
		msgLine("b1", "a1", 2, user("left")),
		msgLine("b2", "b1", 3, user("left again")),
		msgLine("c1", "a1", 4, user("right")),
		`{"type":"label","id":"l1","parentId":"c1","timestamp":"2026-02-09T15:00:05.000Z","targetId":"b1","label":"try A"}`,
	}
	tests := []struct {
		name  string
		lines []string
		leaf  string
		opt   ViewOptions
		want  string
	}{
		{
			name:  "linear chain stays at one indentation",
			lines: []string{msgLine("a1", "", 1, user("one")), msgLine("a2", "a1", 2, user("two")), msgLine("a3", "a2", 3, user("three"))},
			opt:   ViewOptions{Quiet: true},
			want:  "• a1 user: one\n• a2 user: two\n• a3 user: three  ◀ leaf\n",
		},
		{
			name:  "branches, label, active path and leaf",
			lines: branched,
			opt:   ViewOptions{File: "f.jsonl"},
			want: "f.jsonl: 5 entries, 2 leaves, 1 branch point; leaf l1 (• marks its path)\n\n" +
				"• a1 user: first  ⑂ 2 branches\n" +
				"  ├─ b1 user: left  [try A]\n" +
				"  │  b2 user: left again\n" +
				"• └─ c1 user: right\n" +
				"•    l1 label \"try A\" → b1  ◀ leaf\n",
		},
		{
			name:  "an explicit leaf moves the path",
			lines: branched,
			leaf:  "b2",
			opt:   ViewOptions{Quiet: true},
			want: "• a1 user: first  ⑂ 2 branches\n" +
				"• ├─ b1 user: left  [try A]\n" +
				"• │  b2 user: left again  ◀ leaf\n" +
				"  └─ c1 user: right\n" +
				"     l1 label \"try A\" → b1\n",
		},
		{
			name:  "several roots",
			lines: []string{msgLine("r1", "", 1, user("one")), msgLine("r2", "gone", 2, user("two"))},
			opt:   ViewOptions{Quiet: true},
			want:  "  ├─ r1 user: one\n• └─ r2 user: two  ◀ leaf\n",
		},
		{
			name: "detached entries after the tree",
			lines: []string{msgLine("a1", "", 1, user("root")), msgLine("x1", "x2", 2, user("loop one")),
				msgLine("x2", "x1", 3, user("loop two"))},
			leaf: "a1",
			opt:  ViewOptions{Quiet: true},
			want: "• a1 user: root  ◀ leaf\n\n" +
				"  x1 user: loop one  (line 3, parent x2)\n" +
				"  x2 user: loop two  (line 4, parent x1)\n",
		},
		{
			name:  "lines cut to the width, markers kept",
			lines: []string{msgLine("a1", "", 1, user(strings.Repeat("word ", 30)))},
			opt:   ViewOptions{Quiet: true, Width: 40},
			want:  "• a1 user: word word word word…  ◀ leaf\n",
		},
		{
			name:  "a long file name is cut at its start",
			lines: []string{msgLine("a1", "", 1, user("one"))},
			opt:   ViewOptions{File: "/home/someone/.pi/agent/sessions/--home-someone-src--/2026-02-09_x.jsonl", Width: 72},
			want: "…one-src--/2026-02-09_x.jsonl: 1 entry, 1 leaf, 0 branch points; leaf a1\n\n" +
				"• a1 user: one  ◀ leaf\n",
		},
		{
			name:  "a session without entries",
			opt:   ViewOptions{File: "empty.jsonl"},
			want:  "empty.jsonl: 0 entries, 0 leaves, 0 branch points\n\n(no entries)\n",
			lines: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderTree(t, load(t, tt.lines...), tt.leaf, tt.opt)
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{msgLine("a", "", 1, `{"role":"assistant","content":[{"type":"text","text":"Looking"},{"type":"toolCall","id":"t1","name":"bash","arguments":{}},{"type":"toolCall","id":"t2","name":"read","arguments":{}}],"stopReason":"toolUse"}`),
			"assistant → bash, read: Looking"},
		{msgLine("a", "", 1, `{"role":"assistant","content":[],"stopReason":"error","errorMessage":"overloaded"}`),
			"assistant ✗ error: overloaded"},
		{msgLine("a", "", 1, `{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"a\nb\nc"}],"isError":true}`),
			"toolResult bash (5 B, 3 lines) ✗ error: a b c"},
		{msgLine("a", "", 1, `{"role":"bashExecution","command":"make","output":"x","exitCode":2}`),
			"bash ✗ exit 2: $ make"},
		{msgLine("a", "", 1, `{"role":"custom","customType":"git","content":"clean"}`),
			"custom git: clean"},
		{msgLine("a", "", 1, `{"role":"user","content":[{"type":"image","data":"","mimeType":"image/png"},{"type":"text","text":"this?"}]}`),
			"user: [image] this?"},
		{`{"type":"model_change","id":"m","parentId":null,"timestamp":"2026-02-09T15:00:00Z","provider":"openai","modelId":"gpt-5"}`,
			"model → openai/gpt-5"},
		{`{"type":"compaction","id":"c","parentId":null,"timestamp":"2026-02-09T15:00:00Z","summary":"## Goal\nx","firstKeptEntryId":"k","tokensBefore":31877}`,
			"compaction (31,877 tokens before, keeps from k): ## Goal x"},
		{`{"type":"compaction","id":"c","parentId":null,"timestamp":"2026-02-09T15:00:00Z","summary":"s","firstKeptEntryId":"k","tokensBefore":1,"retainedTail":[{"role":"user","content":"x"}]}`,
			"compaction (1 tokens before, retains 1 message): s"},
		{`{"type":"branch_summary","id":"b","parentId":null,"timestamp":"2026-02-09T15:00:00Z","fromId":"f","summary":"tried"}`,
			"branch summary (from f): tried"},
		{`{"type":"custom_message","id":"b","parentId":null,"timestamp":"2026-02-09T15:00:00Z","customType":"ci","content":"ok","display":false}`,
			"custom message ci (hidden): ok"},
		{`{"type":"label","id":"l","parentId":null,"timestamp":"2026-02-09T15:00:00Z","targetId":"x"}`,
			"label cleared on x"},
		{`{"type":"context_edit","id":"e","parentId":null,"timestamp":"2026-02-09T15:00:00Z","targetId":"x","replacement":null}`,
			"context edit omit x"},
		{`{"type":"usage","id":"u","parentId":null,"timestamp":"2026-02-09T15:00:00Z","kind":"title","provider":"p","model":"m","usage":{"input":1,"output":2}}`,
			"usage title p/m: 3 tokens"},
		{`{"type":"bookmark","id":"u","parentId":null,"timestamp":"2026-02-09T15:00:00Z"}`,
			"bookmark"},
	}
	for _, tt := range tests {
		s := load(t, tt.line)
		if got := describe(record(t, s.Entries[0]), 0).line(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.line, got, tt.want)
		}
	}
}

// Text from the file reaches the terminal escaped, whatever field it is
// in, with colour on or off.
func TestViewsEscapeControlCharacters(t *testing.T) {
	evil := "\x1b[31mred\x1b]0;title\x07"
	s := load(t,
		msgLine("a1", "", 1, user(evil)),
		`{"type":"label","id":"l1","parentId":"a1","timestamp":"2026-02-09T15:00:02.000Z","targetId":"a1","label":"`+jsonEscape(evil)+`"}`,
		msgLine("a2", "l1", 3, `{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"`+jsonEscape(evil)+`","arguments":{}}],"stopReason":"toolUse"}`),
		msgLine("a3", "a2", 4, `{"role":"custom","customType":"`+jsonEscape(evil)+`","content":"x"}`),
	)
	leaf := s.DefaultLeaf()
	path, err := s.Path(leaf)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Context(leaf)
	if err != nil {
		t.Fatal(err)
	}
	for _, color := range []bool{false, true} {
		opt := ViewOptions{Style: text.NewStyle(color), File: "x\x1b[2J.jsonl", Width: 200}
		var tree, pathOut, ctx bytes.Buffer
		if err := Tree(&tree, s, leaf, opt); err != nil {
			t.Fatal(err)
		}
		if err := Path(&pathOut, s, path, opt); err != nil {
			t.Fatal(err)
		}
		if err := Context(&ctx, c, opt); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"tree": tree.String(), "path": pathOut.String(), "context": ctx.String()} {
			if !strings.Contains(out, `\x1b[31mred\x1b]0;title\a`) {
				t.Errorf("%s (colour %v): the text is not shown escaped:\n%s", name, color, out)
			}
			if strings.Contains(out, "\a") || strings.Contains(out, "\x1b]") || strings.Contains(out, "\x1b[31mred") || strings.Contains(out, "\x1b[2J") {
				t.Errorf("%s (colour %v): raw control sequence in the output:\n%q", name, color, out)
			}
			if !color && strings.Contains(out, "\x1b") {
				t.Errorf("%s: ESC without colour:\n%q", name, out)
			}
		}
	}
}

func jsonEscape(s string) string {
	var b bytes.Buffer
	if err := encodeJSON(&b, s); err != nil {
		panic(err)
	}
	return strings.Trim(b.String(), `"`)
}

// chain builds a session of n entries, each the child of the previous one.
func chain(n int) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range n {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"%08x"`, i-1)
		}
		fmt.Fprintf(&b, `{"type":"message","id":"%08x","parentId":%s,"timestamp":"2026-02-09T15:00:00.000Z","message":{"role":"user","content":"turn %d"}}`+"\n", i, parent, i)
	}
	return b.String()
}

// A 100,000-deep chain renders without recursion, in linear time, and
// without indentation growing.
func TestTreeDeepChain(t *testing.T) {
	const n = 100_000
	s, err := project.Load(strings.NewReader(chain(n)), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := renderTree(t, s, "", ViewOptions{Quiet: true, Width: 100})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("rendering took %v", d)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	for i, l := range []string{lines[0], lines[n/2], lines[n-1]} {
		if !strings.HasPrefix(l, "• 0") {
			t.Errorf("line %d is indented: %q", i, l)
		}
	}
	if !strings.HasSuffix(lines[n-1], "◀ leaf") {
		t.Errorf("last line %q has no leaf mark", lines[n-1])
	}
}

// Nested branch points deeper than the width can show are elided, so each
// line stays within the width and the output linear in the entries.
func TestTreeDeepBranches(t *testing.T) {
	const depth = 20_000
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range depth {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"m%07d"`, i-1)
		}
		// a side leaf first (older), then the main line continues
		fmt.Fprintf(&b, `{"type":"message","id":"s%07d","parentId":%s,"timestamp":"2026-02-09T15:00:00.000Z","message":{"role":"user","content":"side"}}`+"\n", i, parent)
		fmt.Fprintf(&b, `{"type":"message","id":"m%07d","parentId":%s,"timestamp":"2026-02-09T15:00:01.000Z","message":{"role":"user","content":"main"}}`+"\n", i, parent)
	}
	s, err := project.Load(strings.NewReader(b.String()), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	const width = 80
	start := time.Now()
	out := renderTree(t, s, "", ViewOptions{Quiet: true, Width: width})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("rendering took %v", d)
	}
	tw := newTextWriter(nil, ViewOptions{})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2*depth {
		t.Fatalf("%d lines, want %d", len(lines), 2*depth)
	}
	for _, l := range lines {
		if tw.width(l) > width {
			t.Fatalf("line wider than %d: %q", width, l)
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "⋯+") || !strings.HasSuffix(last, "◀ leaf") {
		t.Errorf("deepest line %q: want elided levels and the leaf mark", last)
	}
}

func TestFit(t *testing.T) {
	tests := []struct {
		name  string
		cells []cell
		width int
		want  string
	}{
		{"fits", []cell{{text: "id "}, {text: "summary", flex: true}}, 20, "id summary"},
		{"no width never cuts", []cell{{text: strings.Repeat("x", 300), flex: true}}, 0, strings.Repeat("x", 300)},
		{"flex shrinks, markers stay", []cell{{text: "id "}, {text: "a long summary here", flex: true}, {text: " ◀ leaf"}}, 20, "id a long su… ◀ leaf"},
		{"flex keeps a minimum, then the end goes", []cell{{text: "0123456789 "}, {text: "abcdefghijklmnopqrstuvwxyz", flex: true}, {text: " [a label]"}}, 24, "0123456789 abcde… [a la…"},
		{"wide characters count double", []cell{{text: "日本語のテキストです", flex: true}}, 9, "日本語の…"},
		{"no flex: cut at the end", []cell{{text: "abcdef"}, {text: "ghijkl"}}, 8, "abcdefg…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := newTextWriter(nil, ViewOptions{Width: tt.width})
			tw.fit(tt.cells)
			var got strings.Builder
			for _, c := range tt.cells {
				got.WriteString(c.text)
			}
			if got.String() != tt.want {
				t.Errorf("got %q, want %q", got.String(), tt.want)
			}
			if tt.width > 0 && tw.width(got.String()) > tt.width {
				t.Errorf("%q is wider than %d", got.String(), tt.width)
			}
		})
	}
}

// TestJoinKeepsTheLine: the strings join makes for a line stay what they
// were while the scratch space grows under them, a line's joins are
// written as they were made, and the next line reuses the space.
func TestJoinKeepsTheLine(t *testing.T) {
	var out bytes.Buffer
	tw := newTextWriter(&out, ViewOptions{Width: 0})
	var cells []cell
	var want strings.Builder
	for i := range 200 { // past any first capacity of the scratch space
		s := tw.join(strings.Repeat("ab", i), "|", tw.itoa(i), ";")
		cells = append(cells, cell{text: s})
		want.WriteString(strings.Repeat("ab", i) + "|" + fmt.Sprint(i) + ";")
	}
	if got := tw.join("", "only", ""); got != "only" {
		t.Errorf("join of one part: %q", got)
	}
	tw.line(cells...)
	tw.line(cell{text: tw.join("next", " ", "line")})
	if err := tw.flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want.String()+"\nnext line\n" {
		t.Errorf("got %q", got)
	}
	if len(tw.scratch) != 0 {
		t.Errorf("the scratch space holds %d bytes after the line", len(tw.scratch))
	}
}

func TestPath(t *testing.T) {
	s := load(t,
		`{"type":"model_change","id":"m1","parentId":null,"timestamp":"2026-02-09T23:59:59.000Z","provider":"anthropic","modelId":"claude"}`,
		`{"type":"message","id":"a1","parentId":"m1","timestamp":"2026-02-10T00:00:01.000Z","message":`+user("hello")+`}`,
		`{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-02-10T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"stopReason":"stop"}}`,
		`{"type":"message","id":"b2","parentId":"a1","timestamp":"2026-02-10T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hey"}],"stopReason":"stop"}}`,
		`{"type":"label","id":"l1","parentId":"b2","timestamp":"bad","targetId":"a1","label":"start"}`,
	)
	path, err := s.Path(s.DefaultLeaf())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Path(&b, s, path, ViewOptions{File: "p.jsonl"}); err != nil {
		t.Fatal(err)
	}
	want := `p.jsonl: path to leaf l1, 4 entries from the root (times UTC)

   ── 2026-02-09 ──
1  m1  23:59:59  model      → anthropic/claude
   ── 2026-02-10 ──
2  a1  00:00:01  user       hello  [start]  ⑂ 2 branches
3  b2  00:00:03  assistant  hey
4  l1  bad       label      "start" → a1  ◀ leaf
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestNarrowWidth: the characters the fast path counts as one column are
// one column for go-runewidth too, alone and among others, and a string
// with any other character is measured by go-runewidth.
func TestNarrowWidth(t *testing.T) {
	tw := newTextWriter(&bytes.Buffer{}, ViewOptions{})
	for r := rune(0); r < 0x3000; r++ {
		if !narrowRune(r) {
			continue
		}
		if w := tw.cond.StringWidth(string(r)); w != 1 {
			t.Errorf("%U %c: go-runewidth says %d columns, the fast path 1", r, r, w)
		}
		if s := "a" + string(r) + "b" + string(r) + string(r); tw.cond.StringWidth(s) != 5 {
			t.Errorf("%U in %q: go-runewidth says %d columns, the fast path 5", r, s, tw.cond.StringWidth(s))
		}
	}
	for _, s := range []string{"│  ├─ e\u0301", "→ 日本", "• 👍🏽", "a\u200db", "x\x01"} {
		if _, ok := narrowWidth(s); ok {
			t.Errorf("%q: the fast path measured it", s)
		}
		if got, want := tw.width(s), tw.cond.StringWidth(s); got != want {
			t.Errorf("width(%q) = %d, want %d", s, got, want)
		}
	}
	if got := tw.truncate("│  │  ├─ abcdef", 8); got != "│  │  ├…" {
		t.Errorf("truncate: %q", got)
	}
}

// TestSplitTime: the fast path for pi's own timestamps gives what parsing
// them gives, and everything else is parsed.
func TestSplitTime(t *testing.T) {
	for _, ts := range []string{"2026-02-09T15:00:01.000Z", "2026-02-09T15:00:01Z", "2026-02-09T15:00:01.5Z",
		"2026-02-09T15:00:01.1234567891Z", "2026-02-30T15:00:01Z", "2024-02-29T23:59:59.999Z", "2026-13-09T15:00:01Z",
		"2026-02-09T24:00:01Z", "2026-02-09T15:60:01Z", "2026-02-09T15:00:60Z", "2026-02-09T15:00:01.Z",
		"2026-02-09T15:00:01.5x5Z", "2026-02-09t15:00:01Z", "2026-02-09T15:00:01+02:00", "x026-02-09T15:00:01Z", ""} {
		date, clock := "", "--:--:--"
		if p, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			p = p.UTC()
			date, clock = p.Format("2006-01-02"), p.Format("15:04:05")
		} else if ts != "" {
			date, clock = "", cut(text.Safe(ts), 8)
		}
		if d, c := splitTime(ts); d != date || c != clock {
			t.Errorf("splitTime(%q) = %q %q, want %q %q", ts, d, c, date, clock)
		}
	}
}

// TestPathIDColumn: ids of different widths on one path (a v1-migrated,
// omp or hand-edited id, a wide or escaped one) are padded to the widest,
// so the columns after them stay aligned; ids longer than the short form
// are still cut to it.
func TestPathIDColumn(t *testing.T) {
	s := load(t,
		msgLine("a1", "", 1, user("one")),
		msgLine("b2345678", "a1", 2, user("two")),
		msgLine("漢字", "b2345678", 3, user("three")),
		msgLine("c123456789", "漢字", 4, user("four")),
		strings.Replace(msgLine("d", "c123456789", 5, user("five")), `"id":"d"`, `"id":"d\u0001"`, 1),
	)
	path, err := s.Path(s.DefaultLeaf())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Path(&b, s, path, ViewOptions{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	want := "   ── 2026-02-09 ──\n" +
		"1  a1        15:00:01  user  one\n" +
		"2  b2345678  15:00:02  user  two\n" +
		"3  漢字      15:00:03  user  three\n" +
		"4  c1234567  15:00:04  user  four\n" +
		"5  d\\x01     15:00:05  user  five  ◀ leaf\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestPathNoEntries: a session without entries is its header line alone,
// with no blank line after it (nothing follows to set apart).
func TestPathNoEntries(t *testing.T) {
	s := load(t)
	var b bytes.Buffer
	if err := Path(&b, s, nil, ViewOptions{File: "e.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if want := "e.jsonl: no entries\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
