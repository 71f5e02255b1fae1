package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"github.com/pisess/pisess/internal/text"
	"html"
	"io"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/session"
)

// branched is a session with two branches below a1: the leaf's (u2, a2)
// and an older one (u3, a3) whose text is long enough that a tree line
// would cut it.
const branched = `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"the common question"}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"the common answer"}],"provider":"p","model":"m"}}
{"type":"message","id":"u3","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"the other branch asks at length: ` + longWords + ` and ends OTHER-END"}}
{"type":"message","id":"a3","parentId":"u3","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"OTHER-ANSWER"}],"provider":"p","model":"m"}}
{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"LEAF-QUESTION"}}
{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"LEAF-ANSWER"}],"provider":"p","model":"m"}}
`

const longWords = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"

var (
	sectionTagRE = regexp.MustCompile(`<section class="[^"]*" id="(e-[0-9]+)"((?: data-parent="e-[0-9]+")?)((?: hidden)?)>`)
	treeLinkRE   = regexp.MustCompile(`<li class="node[^"]*"><a href="#(e-[0-9]+)" data-leaf="(e-[0-9]+)">`)
)

func pageOf(t *testing.T, s *project.Session, leaf *project.Entry) string {
	t.Helper()
	var out bytes.Buffer
	if err := HTML(&out, s, leaf, Options{Summary: render.Summary, Name: "f.jsonl"}); err != nil {
		t.Fatal(err)
	}
	checkPage(t, out.String())
	return out.String()
}

// Every entry is on the page once, as a card naming its parent's card;
// the cards off the leaf's path are hidden; every tree entry links to its
// card and names the newest leaf below it.
func TestPageHoldsEveryBranch(t *testing.T) {
	s := load(t, branched)
	for _, tc := range []struct {
		leaf    string
		visible []string // ids of the cards shown at first
		newest  map[string]string
	}{
		{"", []string{"u1", "a1", "u2", "a2"}, map[string]string{"u1": "a2", "a1": "a2", "u3": "a3", "a3": "a3", "u2": "a2", "a2": "a2"}},
		{"a3", []string{"u1", "a1", "u3", "a3"}, nil},
		{"a1", []string{"u1", "a1"}, nil},
	} {
		leaf := s.DefaultLeaf()
		if tc.leaf != "" {
			leaf, _ = s.Lookup(tc.leaf)
		}
		p := pageOf(t, s, leaf)
		cards := sectionTagRE.FindAllStringSubmatch(p, -1)
		if len(cards) != len(s.Entries) {
			t.Fatalf("leaf %q: %d cards, want one per entry (%d)", tc.leaf, len(cards), len(s.Entries))
		}
		seen := map[string]bool{}
		var shown []string
		for _, c := range cards {
			e := s.Entries[index(t, c[1])]
			if seen[c[1]] {
				t.Errorf("card %s twice", c[1])
			}
			seen[c[1]] = true
			wantParent := ""
			if pe := s.Parent(e); pe != nil {
				wantParent = ` data-parent="` + anchor(pe) + `"`
			}
			if c[2] != wantParent {
				t.Errorf("card of %s: parent %q, want %q", e.ID(), c[2], wantParent)
			}
			if c[3] == "" {
				shown = append(shown, e.ID())
			}
		}
		if strings.Join(shown, " ") != strings.Join(tc.visible, " ") {
			t.Errorf("leaf %q: cards shown %v, want %v", tc.leaf, shown, tc.visible)
		}
		links := treeLinkRE.FindAllStringSubmatch(p, -1)
		if len(links) != len(s.Entries) {
			t.Errorf("leaf %q: %d tree links, want %d", tc.leaf, len(links), len(s.Entries))
		}
		for _, l := range links {
			id, newest := s.Entries[index(t, l[1])].ID(), s.Entries[index(t, l[2])].ID()
			if want, ok := tc.newest[id]; ok && newest != want {
				t.Errorf("the tree link of %s goes to leaf %s, want %s", id, newest, want)
			}
		}
	}
	// The other branch's text is there in full, not only as a tree line.
	if p := pageOf(t, s, s.DefaultLeaf()); !strings.Contains(p, longWords+" and ends OTHER-END") || !strings.Contains(p, "OTHER-ANSWER") {
		t.Error("the other branch's text is not on the page in full")
	}
}

func index(t *testing.T, anchor string) int {
	t.Helper()
	var n int
	for _, c := range strings.TrimPrefix(anchor, "e-") {
		n = n*10 + int(c-'0')
	}
	return n
}

// The page's policy names its script by the SHA-256 of the script as the
// page holds it, so the browser runs it and nothing else.
func TestPolicyHashIsTheScripts(t *testing.T) {
	p := pageOf(t, load(t, branched), nil)
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(p)
	policy := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(p)
	if script == nil || policy == nil {
		t.Fatal("the page has no script or no policy")
	}
	sum := sha256.Sum256([]byte(script[1]))
	want := "script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	if got := html.UnescapeString(policy[1]); !strings.Contains(got, want) {
		t.Errorf("the policy %q does not allow the page's script (%s)", got, want)
	}
	if strings.Count(html.UnescapeString(policy[1]), "sha256-") != 1 {
		t.Error("the policy allows more than one script")
	}
}

// A session whose entries are read back from a file that changed under
// the export fails, instead of writing a page without them.
func TestChangedFileFails(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/s.jsonl"
	writeFile(t, file, branched)
	s, err := project.Open(file, session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeFile(t, file, strings.Repeat(" ", 10))
	var out bytes.Buffer
	if err := HTML(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary}); err == nil {
		t.Error("HTML of a file that changed under it succeeded")
	}
	if err := Markdown(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary}); err == nil {
		t.Error("Markdown of a file that changed under it succeeded")
	}
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every entry a root reaches is written once, under the first branch
// whose path holds it, numbered by its place on that path.
func TestMarkdownBranchesWritesEachEntryOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	// A binary tree of depth 4: entry n's children are 2n and 2n+1.
	for n := 1; n < 32; n++ {
		parent := "null"
		if n > 1 {
			parent = jsonString("n" + itoa(n/2))
		}
		b.WriteString(`{"type":"message","id":` + jsonString("n"+itoa(n)) + `,"parentId":` + parent +
			`,"timestamp":"2026-01-01T00:00:0` + itoa(n%10) + `.000Z","message":{"role":"user","content":"text of n` + itoa(n) + ` end"}}` + "\n")
	}
	s := load(t, b.String())
	var out bytes.Buffer
	if err := MarkdownBranches(&out, s, Options{Summary: render.Summary}); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for n := 1; n < 32; n++ {
		if got := strings.Count(md, "\ntext of n"+itoa(n)+" end\n"); got != 1 {
			t.Errorf("n%d written %d times, want once", n, got)
		}
	}
	if got := strings.Count(md, "\n## Branch "); got != 16 {
		t.Errorf("%d branches, want 16 (one per leaf)", got)
	}
	if got := strings.Count(md, "\n_Continues from entry "); got != 15 {
		t.Errorf("%d sections continue an earlier one, want 15", got)
	}
	// Each section's first entry is numbered one past the entry it continues from.
	re := regexp.MustCompile("_Continues from entry ([0-9]+) \\(`n([0-9]+)`\\) of branch [0-9]+\\._\n\n### ([0-9]+)\\. User\n\n_[^\n]*`n([0-9]+)`")
	for _, m := range re.FindAllStringSubmatch(md, -1) {
		from, parent, n, child := index(t, m[1]), index(t, m[2]), index(t, m[3]), index(t, m[4])
		if n != from+1 || child/2 != parent {
			t.Errorf("section continues from entry %d (n%d) with entry %d (n%d)", from, parent, n, child)
		}
	}
	if got := len(re.FindAllString(md, -1)); got != 15 {
		t.Errorf("%d continuations read, want 15", got)
	}
}

// A long message costs the page its record and one decoded copy of its
// text each time it is read (for its tree line and its card on the page,
// for its section in the transcript), whatever it holds: it is not decoded
// as a whole message, copied into a page in memory, or escaped into
// another copy. (Before, a 60 MB message took 471 MB.)
func TestLongEntryIsNotCopied(t *testing.T) {
	const size = 8 << 20
	text := strings.Repeat("a <b> & c\n", size/10)
	result := strings.Repeat("output line & <tag>\n", size/20)
	lines := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":` + rawJSONString(text) + `}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"x"}}],"provider":"p","model":"m"}}
{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":` + rawJSONString(result) + `}]}}
`
	file := t.TempDir() + "/s.jsonl"
	writeFile(t, file, lines)
	s, err := project.Open(file, session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	once := uint64(len(lines) + len(text) + len(result)) // every record read and its text decoded
	for _, tc := range []struct {
		name   string
		export func(io.Writer) error
		reads  uint64
	}{
		{"html", func(w io.Writer) error { return HTML(w, s, s.DefaultLeaf(), Options{Summary: render.Summary}) }, 2},
		{"md", func(w io.Writer) error { return Markdown(w, s, s.DefaultLeaf(), Options{Summary: render.Summary}) }, 1},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := tc.export(io.Discard); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if n, limit := after.TotalAlloc-before.TotalAlloc, tc.reads*once+4<<20; n > limit {
			t.Errorf("%s: a page of %d MiB of text allocated %d MiB, want under %d MiB", tc.name, (len(text)+len(result))>>20, n>>20, limit>>20)
		}
	}
}

// rawJSONString is s as a JSON string, with <, > and & as they are.
func rawJSONString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// A message text over maxMarkdown bytes goes into the transcript in a
// fenced block (longer than any backtick run inside), said so, instead of
// through the block parser: an open fence or HTML block in it cannot
// swallow the rest.
func TestLongTextIsFencedInTranscript(t *testing.T) {
	long := "```go\n<pre>\n" + strings.Repeat("x ``` y\n", maxMarkdown/8+1)
	s := load(t, `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":`+jsonString(long)+`}}
{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"AFTER"}}
`)
	var out bytes.Buffer
	if err := Markdown(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary}); err != nil {
		t.Fatal(err)
	}
	want := "_[" + text.Bytes(int64(len(strings.TrimRight(long, "\n")))) + " of text, as it is: too long to be read as Markdown]_\n\n````\n" + strings.TrimRight(long, "\n") + "\n````\n\n## 2. User"
	if !strings.Contains(out.String(), want) {
		t.Errorf("the long long is not fenced whole, followed by the next entry:\n%.300s", out.String()[strings.Index(out.String(), "## 1."):])
	}
	src := out.Bytes()
	last := blockParser().Parse(gmtext.NewReader(src)).LastChild()
	if _, ok := last.(*ast.Paragraph); !ok || last.Lines().Len() != 1 {
		t.Fatalf("the transcript's last block is a %T, not the next entry's long", last)
	}
	if seg := last.Lines().At(0); string(seg.Value(src)) != "AFTER" {
		t.Errorf("the transcript's last block is %q, not the next entry's long", seg.Value(src))
	}
}

// An entry that is its own parent is a root of the tree but has no path
// (pi's walk up never ends): the branches below it are counted with the
// entries not shown, not among the branches, and their usage is not in
// the tokens of the branches written.
func TestMarkdownBranchesSelfParent(t *testing.T) {
	s := load(t, `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"SHOWN"}}
{"type":"message","id":"a1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ON-A-CYCLE"}],"provider":"p","model":"m","usage":{"input":1000,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1001,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}}
{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"BELOW-THE-CYCLE"}}
`)
	var out bytes.Buffer
	if err := MarkdownBranches(&out, s, Options{Summary: render.Summary}); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for _, want := range []string{
		"\n- branches: 1 (", "\n## Branch 1 of 1: to `u1`",
		"\n- not shown: 2 entries on a parentId cycle (no path reaches them)\n",
		"\n- tokens, all branches: 0 (",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
	if strings.Contains(md, "of 2") || strings.Contains(md, "CYCLE") {
		t.Errorf("the cycle is written:\n%s", md)
	}
}
