package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/secrets"
	"github.com/pisess/pisess/internal/session"
)

// hostile is text that would be markup, script or a reference to another
// site if it were not escaped.
var hostile = []string{
	`<script>alert(1)</script>`,
	`<img src=x onerror=alert(2)>`,
	`[click](javascript:alert(3))`,
	`![pixel](https://tracker.example/p.png)`,
	`<https://evil.example/autolink>`,
	`www.evil.example/linkify`,
	`</details></pre></section><script>alert(4)</script>`,
	`<a href="//evil.example/x">protocol-relative</a>`,
	"```\n</code></pre><script>alert(5)</script>\n```",
	`&lt;script&gt;alert(6)&lt;/script&gt;`,
	`<style>body{display:none}</style>`,
	`" onmouseover="alert(7)`,
	"\x1b[31mred\x1b[0m and \u009b2J",
	"| left | center | right | none |\n|:--|:-:|--:|---|\n| <b style=\"color:red\">1</b> | 2 | 3 | 4 |",
}

// load reads a session from its lines.
func load(t *testing.T, lines string) *project.Session {
	t.Helper()
	s, err := project.Load(strings.NewReader(lines), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// defaultRules is the built-in secret rules, for --redact.
func defaultRules(t *testing.T) *secrets.Rules {
	t.Helper()
	rules, err := secrets.Default()
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// hostileSession puts the hostile text in every place a session keeps text.
func hostileSession(t *testing.T) *project.Session {
	t.Helper()
	h := strings.Join(hostile, "\n\n")
	js := jsonString(h)
	lines := []string{
		`{"type":"session","version":3,"id":` + jsonString("id<script>alert(8)</script>") + `,"timestamp":"2026-01-01T00:00:00.000Z","cwd":` + js + `}`,
		`{"type":"model_change","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:00.500Z","provider":` + js + `,"modelId":"x"}`,
		`{"type":"message","id":"u1","parentId":"m1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":` + js + `},{"type":"image","mimeType":"image/svg+xml","data":"PHN2Zz4="},{"type":"image","mimeType":"image/png\" onerror=\"alert(9)","data":"iVBORw0KGgo="},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo=\" onerror=\"alert(10)"}],"timestamp":1}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":` + js + `},{"type":"text","text":` + js + `},{"type":"toolCall","id":"c1","name":` + js + `,"arguments":{"x":` + js + `}}],"provider":` + js + `,"model":` + js + `,"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"total":0.5}},"stopReason":"toolUse","errorMessage":` + js + `,"timestamp":2}}`,
		`{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":` + js + `,"content":[{"type":"text","text":` + js + `}],"isError":true,"timestamp":3}}`,
		`{"type":"label","id":"l1","parentId":"t1","timestamp":"2026-01-01T00:00:04.000Z","targetId":"u1","label":` + js + `}`,
		`{"type":"compaction","id":"k1","parentId":"l1","timestamp":"2026-01-01T00:00:05.000Z","summary":` + js + `,"tokensBefore":100,"firstKeptEntryId":"t1"}`,
		`{"type":"branch_summary","id":"b1","parentId":"k1","timestamp":"2026-01-01T00:00:06.000Z","fromId":` + js + `,"summary":` + js + `}`,
		`{"type":"custom_message","id":"cm","parentId":"b1","timestamp":"2026-01-01T00:00:07.000Z","customType":` + js + `,"content":` + js + `,"display":true}`,
		`{"type":"custom","id":"cu","parentId":"cm","timestamp":"2026-01-01T00:00:08.000Z","customType":` + js + `,"data":{"x":` + js + `}}`,
		`{"type":"message","id":"be","parentId":"cu","timestamp":"2026-01-01T00:00:09.000Z","message":{"role":"bashExecution","command":` + js + `,"output":` + js + `,"exitCode":1,"cancelled":false,"truncated":false,"timestamp":9}}`,
		`{"type":"session_info","id":"si","parentId":"be","timestamp":"2026-01-01T00:00:10.000Z","name":` + js + `}`,
		`{"type":"message","id":"u2","parentId":"m1","timestamp":"2026-01-01T00:00:11.000Z","message":{"role":"user","content":` + js + `,"timestamp":11}}`,
		`{"type":"message","id":"last","parentId":"si","timestamp":"2026-01-01T00:00:12.000Z","message":{"role":"assistant","content":[{"type":"text","text":"the final answer"}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"total":0}},"stopReason":"stop","timestamp":12}}`,
	}
	s := load(t, strings.Join(lines, "\n")+"\n")
	return s
}

// Every string from the file is escaped, so a "<" in the page starts one
// of its own tags, and a tag ends at the first ">" (attribute values are
// escaped too).
var (
	tagRE  = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	attrRE = regexp.MustCompile(`([a-zA-Z-]+)(?:=("[^"]*"|'[^']*'|[^\s>]+))?`)
)

// allowedTags are the elements the page itself and goldmark's Markdown
// (without raw HTML) write.
var allowedTags = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true, "h1": true, "h2": true,
	"dl": true, "dt": true, "dd": true, "div": true, "button": true, "nav": true, "ul": true, "li": true, "a": true, "span": true,
	"details": true, "summary": true, "main": true, "section": true, "p": true, "pre": true, "code": true, "img": true, "script": true,
	"em": true, "strong": true, "blockquote": true, "ol": true, "hr": true, "br": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "del": true, "input": true,
}

func TestHTMLEscapesEverything(t *testing.T) {
	s := hostileSession(t)
	var out bytes.Buffer
	if err := HTML(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary, Name: "f.jsonl"}); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	checkPage(t, page)
	if !strings.Contains(page, "the final answer") {
		t.Error("the leaf's message is missing")
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "[image not shown: image/svg+xml]", "␛[31mred"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// checkPage asserts that the page holds only its own markup: one script
// (its own), no event handler, no URL but its anchors and data: images, no
// style attribute but a table cell's alignment.
func checkPage(t *testing.T, page string) {
	t.Helper()
	for _, p := range pageProblems(page) {
		t.Error(p)
	}
}

// alignStyle is the one style attribute the page may carry: goldmark's
// alignment of a table cell (":--", ":-:", "--:").
var alignStyle = regexp.MustCompile(`^"text-align:(left|center|right)"$`)

// pageProblems lists what in the page is not its own markup.
func pageProblems(page string) []string {
	var problems []string
	if n := strings.Count(page, "<script"); n != 1 {
		problems = append(problems, fmt.Sprintf("%d <script> elements, want the page's own 1", n))
	}
	if !strings.Contains(page, "<script>"+pageJS+"</script>") {
		problems = append(problems, "the page's own script is not there as written")
	}
	dataImage := regexp.MustCompile(`^"data:image/(png|jpeg|gif|webp|avif|bmp);base64,[A-Za-z0-9+/=]*"$`)
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		if !allowedTags[strings.ToLower(m[2])] {
			problems = append(problems, fmt.Sprintf("unexpected element <%s>", m[2]))
		}
		for _, a := range attrRE.FindAllStringSubmatch(m[3], -1) {
			name, value := strings.ToLower(a[1]), a[2]
			switch {
			case strings.HasPrefix(name, "on"):
				problems = append(problems, fmt.Sprintf("event handler %s=%s", name, value))
			case name == "href" && !strings.HasPrefix(value, `"#`):
				problems = append(problems, fmt.Sprintf("href=%s points outside the page", value))
			case name == "src" && !dataImage.MatchString(value):
				problems = append(problems, fmt.Sprintf("src=%.80s is not a data: image", value))
			case name == "style" && !(alignStyle.MatchString(value) && (m[2] == "th" || m[2] == "td")):
				problems = append(problems, fmt.Sprintf("style attribute %s on <%s>", value, m[2]))
			}
		}
	}
	if strings.Count(page, "<style>") != 1 {
		problems = append(problems, "more than the page's own style element")
	}
	return problems
}

// The hostile session's aligned table gives its cells style attributes,
// which the page may carry; checkPage still rejects every other style.
func TestCheckPageAllowsOnlyAlignment(t *testing.T) {
	s := hostileSession(t)
	var out bytes.Buffer
	if err := HTML(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary, Name: "f.jsonl"}); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, align := range []string{"left", "center", "right"} {
		if !strings.Contains(page, `<th style="text-align:`+align+`">`) || !strings.Contains(page, `<td style="text-align:`+align+`">`) {
			t.Errorf("the hostile session's table has no cell aligned %s", align)
		}
	}
	bad := []string{
		`<td style="color:red">`,
		`<td style="text-align:left;color:red">`,
		`<td style="text-align:left; background:url(https://evil.example/x)">`,
		`<td style="text-align:justify">`,
		`<td style='text-align:left'>`,
		`<td style=text-align:left>`,
		`<td style="TEXT-ALIGN:LEFT">`,
		`<p style="text-align:left">`,
		`<div style="">`,
	}
	for _, tag := range bad {
		if len(pageProblems(strings.Replace(page, "<main>", "<main>"+tag, 1))) == 0 {
			t.Errorf("checkPage accepts %s", tag)
		}
	}
	if ps := pageProblems(page); len(ps) != 0 {
		t.Errorf("the page fails the check: %v", ps)
	}
}

func TestMarkdownFencesHoldTheirContent(t *testing.T) {
	s := hostileSession(t)
	var out bytes.Buffer
	if err := Markdown(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary, Name: "f.jsonl", MaxBlock: 100}); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	if !strings.Contains(md, "the final answer") || !strings.Contains(md, "[… cut: ") {
		t.Errorf("the transcript lacks the leaf or a cut mark:\n%s", md)
	}
	// Every fence closes with the fence that opened it, and is longer than
	// any run of backticks inside.
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		fence := strings.TrimRight(lines[i], "abcdefghijklmnopqrstuvwxyz")
		j := i + 1
		for ; j < len(lines) && lines[j] != fence; j++ {
			if longestRun(lines[j], '`') >= len(fence) {
				t.Errorf("line %d: a run of backticks as long as the fence %q", j+1, fence)
			}
		}
		if j == len(lines) {
			t.Fatalf("fence at line %d never closes", i+1)
		}
		i = j
	}
	if strings.Contains(md, "\x1b") || strings.Contains(md, "\u009b") {
		t.Error("control characters reach the transcript")
	}
}

func TestRedact(t *testing.T) {
	key := "AKIA" + "Z7FAKEQ2TESTK3YW"
	lines := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"my key is ` + key + ` so there","timestamp":1}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{"apiKey":"Zq8fake` + `7Rt2Lm9wX"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":2}}
`
	s := load(t, lines)
	rules := defaultRules(t)
	for name, render := range map[string]func(*bytes.Buffer) error{
		"html": func(b *bytes.Buffer) error {
			return HTML(b, s, s.DefaultLeaf(), Options{Summary: render.Summary, Redact: rules})
		},
		"md": func(b *bytes.Buffer) error {
			return Markdown(b, s, s.DefaultLeaf(), Options{Summary: render.Summary, Redact: rules})
		},
	} {
		var out bytes.Buffer
		if err := render(&out); err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{key, key[:12], "Zq8fake" + "7Rt2Lm9wX"} {
			if strings.Contains(out.String(), secret) {
				t.Errorf("%s: %q is still there", name, secret)
			}
		}
		if !strings.Contains(out.String(), "[REDACTED:aws-access-key-id]") {
			t.Errorf("%s: no redaction mark", name)
		}
	}
}

func TestDeepAndWideTrees(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	parent := "null"
	for i := 0; i < 3000; i++ {
		id := jsonString("e" + strings.Repeat("0", 5-len(itoa(i))) + itoa(i))
		b.WriteString(`{"type":"custom","id":` + id + `,"parentId":` + parent + `,"timestamp":"2026-01-01T00:00:01.000Z","customType":"x"}` + "\n")
		if i%2 == 0 { // every other entry is a branch point with a dead end
			b.WriteString(`{"type":"custom","id":` + jsonString("d"+itoa(i)) + `,"parentId":` + id + `,"timestamp":"2026-01-01T00:00:02.000Z","customType":"x"}` + "\n")
		}
		parent = id
	}
	s := load(t, b.String())
	leaf, _ := s.Lookup("e02999")
	var out bytes.Buffer
	if err := HTML(&out, s, leaf, Options{Summary: render.Summary}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), `<li class="fork">`); got != 1500 {
		t.Errorf("%d forks, want 1500", got)
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string([]byte(jsonNumber(i))))
}

func jsonNumber(i int) []byte { b, _ := json.Marshal(i); return b }

// openEnds are message texts that leave a Markdown block open at their end:
// a fence that never closes (an answer cut short, or a fence inside a fence
// as in the real v1-pi-mono-large-session), an HTML comment, a <pre>.
var openEnds = []string{
	"Here is the start:\n\n```go\nfunc main() {",
	"send this:\n\n```\nHere's some code:\n\n```python\nprint(1)\n```\n```\n\nThis will test it.",
	"   ~~~~~\n~~~\nstill code",
	"````\n```\n",
	"<!-- a comment that never ends\n\n## not a heading",
	"<pre>\nunfinished",
	"<SCRIPT type=x>\nvar a",
	"<?php echo 1;",
	"<!DOCTYPE html",
	"<![CDATA[ data",
	"```",
}

// A message that leaves a block open must not swallow the rest of the
// transcript: every entry keeps its own "## N." heading when the
// transcript is read as Markdown (CommonMark, as GitHub reads it).
func TestMarkdownMessagesCannotSwallowTheTranscript(t *testing.T) {
	lines := []string{`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`}
	parent := "null"
	for i, text := range openEnds {
		id := jsonString("u" + itoa(i))
		lines = append(lines, `{"type":"message","id":`+id+`,"parentId":`+parent+`,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":`+jsonString(text)+`,"timestamp":1}}`)
		parent = id
	}
	for i, text := range openEnds[:2] {
		id := jsonString("k" + itoa(i))
		lines = append(lines, `{"type":"compaction","id":`+id+`,"parentId":`+parent+`,"timestamp":"2026-01-01T00:00:02.000Z","summary":`+jsonString(text)+`,"tokensBefore":5,"firstKeptEntryId":"u0"}`)
		parent = id
	}
	lines = append(lines, `{"type":"message","id":"last","parentId":`+parent+`,"timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"the end"}],"provider":"p","model":"m","stopReason":"stop","timestamp":3}}`)
	s := load(t, strings.Join(lines, "\n")+"\n")
	var out bytes.Buffer
	if err := Markdown(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary}); err != nil {
		t.Fatal(err)
	}
	md := out.Bytes()
	doc := goldmark.New().Parser().Parse(gmtext.NewReader(md))
	var headings []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			headings = append(headings, string(h.Lines().Value(md)))
		}
	}
	if want := len(openEnds) + 3; len(headings) != want {
		t.Fatalf("%d entry headings in the transcript read as Markdown, want %d: %q\n%s", len(headings), want, headings, md)
	}
	for i, h := range headings {
		if !strings.HasPrefix(h, itoa(i+1)+". ") {
			t.Errorf("heading %d is %q", i+1, h)
		}
	}
	// Each message keeps its own text.
	for _, text := range openEnds {
		if !bytes.Contains(md, []byte(strings.TrimRight(text, "\n"))) {
			t.Errorf("the transcript lacks %q", text)
		}
	}
}

// Deeply nested block quotes and lists cost goldmark the depth on every
// line (100,000 ">" took 11 s, a list 2,000 deep 40 s): message text nests
// at most maxNesting deep (at most 100, as markdown-it), deeper markers are
// text, in the page and in the transcript's check for open blocks alike.
func TestDeepNestingIsCapped(t *testing.T) {
	var list strings.Builder
	for i := range 400 {
		list.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	deep := map[string]string{
		"quote": strings.Repeat(">", 20000) + " x",
		"list":  list.String(),
		"mixed": strings.Repeat("> - ", 5000) + "x",
	}
	for name, text := range deep {
		for _, p := range []struct {
			name string
			doc  ast.Node
		}{
			{"page", newMarkdown().Parser().Parse(gmtext.NewReader([]byte(text)))},
			{"transcript", blockParser().Parse(gmtext.NewReader([]byte(text)))},
		} {
			if d := depth(p.doc); d > 100 {
				t.Errorf("%s, %s: blocks nest %d deep, want at most 100", name, p.name, d)
			}
		}
	}
	lines := []string{`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":` + jsonString(deep["quote"]) + `,"timestamp":1}}`}
	s := load(t, strings.Join(lines, "\n")+"\n")
	var out bytes.Buffer
	if err := HTML(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "<blockquote>"); n > 100 {
		t.Errorf("%d nested <blockquote>, want at most 100", n)
	}
}

// depth is how deep the blocks under n nest.
func depth(n ast.Node) int {
	best := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Type() == ast.TypeBlock {
			best = max(best, depth(c)+1)
		}
	}
	return best
}

// A timestamp is file content like any other: in the transcript it was
// written as it was, so an unparsable one could clear the terminal, add
// headings, or show a secret --redact should have taken out.
func TestMarkdownTimestampsAreText(t *testing.T) {
	key := "AKIA" + "Z7FAKEQ2TESTK3YW"
	lines := `{"type":"session","version":3,"id":"s","timestamp":"\u001b]0;owned\u0007\n## 99. Fake ` + key + `","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"x\u001b[2J\n\n# Injected ` + key + `","message":{"role":"user","content":"hi","timestamp":1}}
`
	s := load(t, lines)
	rules := defaultRules(t)
	var out bytes.Buffer
	if err := Markdown(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary, Redact: rules}); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	if strings.ContainsAny(md, "\x1b\x07") {
		t.Errorf("control characters reach the transcript:\n%q", md)
	}
	if strings.Contains(md, key) {
		t.Errorf("the key is still there:\n%s", md)
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "#") && line != "# pi session s" && line != "## 1. User" {
			t.Errorf("a heading the transcript did not write: %q", line)
		}
	}
}

// The tree shows the start of each entry, with its white space collapsed:
// a secret that spans lines (a private key) was taken out only up to its
// first line break there, and the key's first line of base64 was shown
// under --redact.
func TestRedactMultilineSecretInTree(t *testing.T) {
	body := "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2HZ8vJcKjLqJ9xFake0Test1x"
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + body + "\nQ8Vv2bXy7Lk9PqR4sT6uW8xZ0aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n-----END RSA PRIVATE KEY-----"
	lines := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":` + jsonString(pem) + `,"timestamp":1}}
{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":` + jsonString("the key:\n\n  "+pem) + `,"timestamp":1}}
{"type":"compaction","id":"k1","parentId":"u2","timestamp":"2026-01-01T00:00:02.000Z","summary":` + jsonString("Key\t"+pem) + `,"tokensBefore":5,"firstKeptEntryId":"u2"}
`
	s := load(t, lines)
	rules := defaultRules(t)
	var out bytes.Buffer
	if err := HTML(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary, Redact: rules}); err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(out.String(), body[:6]); i >= 0 {
		t.Errorf("the key's base64 is in the page: %q", out.String()[max(0, i-80):i+40])
	}
	if n := strings.Count(out.String(), "[REDACTED:private-key]"); n < 6 {
		t.Errorf("%d private keys redacted, want 6 (3 in the tree, 3 in the conversation)", n)
	}
}

// The session's name is pi 1.6.0's getSessionName: the latest session_info
// entry's name, trimmed as String.prototype.trim does; a blank one clears
// it (the file name is shown again).
func TestSessionNameAsPi(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"First", "Second"}, "Second"},
		{[]string{"Old name", ""}, "f.jsonl"},
		{[]string{"Old name", " \u3000\n"}, "f.jsonl"},
		{[]string{"\ufeff  Padded \n"}, "Padded"},
		{[]string{"\u0085Kept\u0085"}, "\u0085Kept\u0085"},
	} {
		lines := []string{`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`}
		parent := "null"
		for i, n := range c.names {
			id := jsonString("n" + itoa(i))
			lines = append(lines, `{"type":"session_info","id":`+id+`,"parentId":`+parent+`,"timestamp":"2026-01-01T00:00:01.000Z","name":`+jsonString(n)+`}`)
			parent = id
		}
		s := load(t, strings.Join(lines, "\n")+"\n")
		d, err := newSession(s, s.DefaultLeaf(), Options{Summary: render.Summary, Name: "f.jsonl"})
		if err != nil {
			t.Fatal(err)
		}
		if d.name != c.want {
			t.Errorf("names %q: the session is called %q, want %q", c.names, d.name, c.want)
		}
	}
}

// An HTML parser drops the newline right after <pre> (HTML, "pre" start
// tag): a tool result or a shell output that starts with a blank line lost
// it on the page.
func TestPreKeepsLeadingNewline(t *testing.T) {
	lines := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"b1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"bashExecution","command":"ls","output":"\nout\n","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}}
{"type":"message","id":"t1","parentId":"b1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"\r\n\nresult"}],"isError":false,"timestamp":2}}
{"type":"message","id":"u1","parentId":"t1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":[{"type":"weird","text":"\nblock"}],"timestamp":3}}
{"type":"message","id":"t2","parentId":"u1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"read","content":[{"type":"text","text":"plain"}],"isError":false,"timestamp":4}}
`
	s := load(t, lines)
	var out bytes.Buffer
	if err := HTML(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<pre>\n\nout\n</pre>", "<pre>\n\n\nresult</pre>", "<pre>\n\nblock</pre>", "<pre>plain</pre>"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// Token counts of a damaged usage can be negative: the sign stays in front
// of the number ("-,500" and "-1000,000" were written).
func TestCountNegative(t *testing.T) {
	for n, want := range map[float64]string{-500: "-500", -1234: "-1,234", -2e6: "-2.00M", -12345: "-12.3k", 999: "999", 1234: "1,234", 0: "0"} {
		if got := count(n); got != want {
			t.Errorf("count(%g) = %q, want %q", n, got, want)
		}
	}
}

// goldmark's cost grows with the lines of a paragraph times its brackets
// (every link label and link reference definition reads the block from
// its end): 50,000 definitions in a row, or 100,000 lines "[n] x", took
// 3–10 s. Such a message is shown as preformatted text; the budget is
// counted, not timed.
func TestCostlyMarkdownIsPreformatted(t *testing.T) {
	var defs, refs strings.Builder
	for i := range 20000 {
		defs.WriteString("[l" + itoa(i) + "]: /u" + itoa(i) + "\n")
		refs.WriteString("[" + itoa(i) + "] x\n")
	}
	quoted := "> " + strings.ReplaceAll(strings.TrimSuffix(refs.String(), "\n"), "\n", "\n> ")
	for name, text := range map[string]string{"definitions": defs.String(), "labels": refs.String(), "quoted labels": quoted} {
		if c := markdownCost(text); c <= markdownBudget(text) {
			t.Errorf("%s: cost %d within the budget %d", name, c, markdownBudget(text))
		}
		got := renderMarkdown(newMarkdown(), text)
		if want := "<pre>" + escape(text) + "</pre>"; got != want {
			t.Errorf("%s: rendered as %.200q, want it preformatted", name, got)
		}
	}
	// Ordinary text, also long, stays Markdown.
	var log strings.Builder
	for i := range 2000 {
		log.WriteString("[INFO] step " + itoa(i) + " done, see [the docs][d] and a[i]\n")
	}
	ordinary := []string{
		strings.Join(hostile, "\n\n"),
		log.String() + "\n[d]: https://example.com/docs\n",
		strings.Repeat("A paragraph with a [link](https://example.com) and [another][x].\n\n", 3000) + "[x]: /x\n",
	}
	for i, text := range ordinary {
		if c := markdownCost(text); c > markdownBudget(text) {
			t.Errorf("ordinary text %d: cost %d over the budget %d", i, c, markdownBudget(text))
		}
		if got := renderMarkdown(newMarkdown(), text); strings.HasPrefix(got, "<pre>") {
			t.Errorf("ordinary text %d: preformatted", i)
		}
	}
}

// goldmark holds a message's whole tree: a table of a million cells took
// 500 MB, a 60 MB message 1 GB. Text over maxMarkdown bytes is shown as
// preformatted text; what rendering it allocates is counted.
func TestLargeMarkdownIsPreformatted(t *testing.T) {
	row := "|" + strings.Repeat("x|", 100) + "\n"
	table := "|" + strings.Repeat("h|", 100) + "\n|" + strings.Repeat("-|", 100) + "\n" + strings.Repeat(row, maxMarkdown/len(row))
	prose := strings.Repeat("Some *prose* with `code` and ~~more~~.\n\n", maxMarkdown/40+1)
	for name, text := range map[string]string{"table": table, "prose": prose} {
		if len(text) <= maxMarkdown {
			t.Fatalf("%s: %d bytes, not over %d", name, len(text), maxMarkdown)
		}
		md := newMarkdown()
		var got string
		allocated := testing.AllocsPerRun(1, func() { got = renderMarkdown(md, text) })
		if want := "<pre>" + escape(text) + "</pre>"; got != want {
			t.Errorf("%s: rendered as %.100q, want it preformatted", name, got)
		}
		if allocated > 100 {
			t.Errorf("%s: %v allocations, want a few", name, allocated)
		}
	}
	under := table[:strings.LastIndex(table[:maxMarkdown], "\n")+1]
	if got := renderMarkdown(newMarkdown(), under); !strings.HasPrefix(got, "<table>") {
		t.Errorf("a table of %d bytes is not rendered as a table: %.100q", len(under), got)
	}
}

// A message shown as preformatted text is escaped and written in pieces:
// a 60 MB message is not copied whole again (escaped, then in a <pre>).
func TestPreformattedIsWrittenInPieces(t *testing.T) {
	text := strings.Repeat("a <b> & \"c\" 'd'\n", 1<<18) // 4 MiB, every line escaped
	var page bytes.Buffer
	w := bufio.NewWriterSize(&page, 64<<10)
	writeMarkdown(w, newMarkdown(), text)
	w.Flush()
	if want := "<pre>" + escape(text) + "</pre>"; page.String() != want {
		t.Fatalf("written as %.100q, want it preformatted", page.String())
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w = bufio.NewWriterSize(io.Discard, 64<<10)
	writeMarkdown(w, newMarkdown(), text)
	w.Flush()
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("writing a %d-byte message allocated %d bytes, want under 1 MiB", len(text), n)
	}
}

// renderMarkdown is message text rendered as HTML by writeMarkdown.
func renderMarkdown(md goldmark.Markdown, src string) string {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	writeMarkdown(w, md, src)
	w.Flush()
	return b.String()
}

// escape escapes text for HTML as the page does (also inside attribute
// values).
func escape(s string) string { return html.EscapeString(visible(s)) }
