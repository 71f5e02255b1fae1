package grep

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/session"
)

const header = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work/café"}` + "\n"

// entries of every kind grep reads, one a line.
var sample = header + strings.Join([]string{
	`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"make the caf\u00e9 \"menu\" page\nplease"}}`,
	`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-02T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"the secret plan"},{"type":"text","text":"Reading the menu."},{"type":"toolCall","id":"call_menu","name":"read","arguments":{"path":"/srv/menu.html","offset":3}}]}}`,
	`{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-01-03T10:00:00.000Z","message":{"role":"toolResult","toolCallId":"call_menu","toolName":"read","content":[{"type":"text","text":"<h1>Menu</h1>"}]}}`,
	`{"type":"message","id":"b1","parentId":"t1","timestamp":"2026-01-04T10:00:00.000Z","message":{"role":"bashExecution","command":"grep -r Kelvin .","output":"temperature in \u212a","exitCode":0}}`,
	`{"type":"compaction","id":"c1","parentId":"b1","timestamp":"2026-01-05T10:00:00.000Z","summary":"We built a menu page.","firstKeptEntryId":"t1","tokensBefore":5}`,
	`{"type":"branch_summary","id":"r1","parentId":"u1","timestamp":"2026-01-06T10:00:00.000Z","fromId":"c1","summary":"Tried a different menu layout."}`,
	`{"type":"custom_message","id":"m1","parentId":"r1","timestamp":"2026-01-07T10:00:00.000Z","customType":"note","content":[{"type":"text","text":"menu approved"}],"display":true}`,
	`{"type":"label","id":"l1","parentId":"m1","timestamp":"2026-01-08T10:00:00.000Z","targetId":"u1","label":"menu label"}`,
	`{"type":"message","id":"torn","parentId":"m1","timestamp":"2026-01-09T10:00:00.000Z","message":{"role":"user","content":"menu`,
}, "\n") + "\n"

// search runs a search of text and returns its matches as
// "line id role: snippet[match]" strings; it checks that the prefilter
// changes nothing.
func search(t *testing.T, text string, opts Options) []string {
	t.Helper()
	opts.Limits = session.DefaultLimits()
	m, err := Compile(opts)
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, m, text)
	m.filter = prefilter{}
	if slow := run(t, m, text); !slices.Equal(got, slow) {
		t.Fatalf("the prefilter changed the matches:\n with: %q\n without: %q", got, slow)
	}
	return got
}

func run(t *testing.T, m *Matcher, text string) []string {
	t.Helper()
	var out []string
	_, err := m.File(strings.NewReader(text), func(x Match) {
		out = append(out, fmt.Sprintf("%d %s %s: %s[%s]%s", x.Line, x.EntryID, x.Role,
			x.Snippet[:x.At[0]], x.Snippet[x.At[0]:x.At[1]], x.Snippet[x.At[1]:]))
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGrep(t *testing.T) {
	since, _ := time.Parse(time.RFC3339, "2026-01-03T00:00:00Z")
	until, _ := time.Parse(time.RFC3339, "2026-01-05T00:00:00Z")
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"decoded escapes", Options{Pattern: `café "menu"`, Fixed: true},
			[]string{`2 u1 user: make the [café "menu"] page please`}},
		{"newline is white space", Options{Pattern: `page\s+please`},
			[]string{`2 u1 user: make the café "menu" [page please]`}},
		{"every kind of text, every branch", Options{Pattern: "menu", IgnoreCase: true}, []string{
			`2 u1 user: make the café "[menu]" page please`,
			`3 a1 assistant: Reading the [menu].`,
			`3 a1 assistant: /srv/[menu].html`,
			`4 t1 toolResult: <h1>[Menu]</h1>`,
			`6 c1 compaction: We built a [menu] page.`,
			`7 r1 branch_summary: Tried a different [menu] layout.`,
			`8 m1 custom_message: [menu] approved`,
		}},
		{"keys, ids and types are not text", Options{Pattern: "call_menu|toolCall|parentId|firstKept|u1", Fixed: false}, nil},
		{"thinking only when asked", Options{Pattern: "secret"}, nil},
		{"thinking", Options{Pattern: "secret", Thinking: true}, []string{`3 a1 assistant: the [secret] plan`}},
		{"shell command and output", Options{Pattern: "kelvin", IgnoreCase: true}, []string{`5 b1 bashExecution: grep -r [Kelvin] .`}},
		{"Kelvin sign folds to k", Options{Pattern: "in k", Fixed: true, IgnoreCase: true}, []string{"5 b1 bashExecution: temperature [in \u212a]"}},
		{"role filter", Options{Pattern: "menu", IgnoreCase: true, Roles: []string{"toolResult", "compaction"}}, []string{
			`4 t1 toolResult: <h1>[Menu]</h1>`,
			`6 c1 compaction: We built a [menu] page.`,
		}},
		{"since and until", Options{Pattern: "menu", IgnoreCase: true, Since: since, Until: until}, []string{`4 t1 toolResult: <h1>[Menu]</h1>`}},
		{"regex prefix", Options{Pattern: `built a \w+`}, []string{`6 c1 compaction: We [built a menu] page.`}},
		{"a folded start, then more", Options{Pattern: `MENU.?p`, IgnoreCase: true}, []string{`6 c1 compaction: We built a [menu p]age.`}},
		{"a folded start after a word boundary", Options{Pattern: `\bmenu.`, IgnoreCase: true}, []string{
			`2 u1 user: make the café "[menu"] page please`, `3 a1 assistant: Reading the [menu.]`, `3 a1 assistant: /srv/[menu.]html`,
			`4 t1 toolResult: <h1>[Menu<]/h1>`, `6 c1 compaction: We built a [menu ]page.`, `7 r1 branch_summary: Tried a different [menu ]layout.`,
			`8 m1 custom_message: [menu ]approved`}},
		{"required literals in the middle", Options{Pattern: `(?i)\w+ a MENU`}, []string{`6 c1 compaction: We [built a menu] page.`}},
		{"labels are not searched", Options{Pattern: "label"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := search(t, sample, tt.opts); !slices.Equal(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestPrefilterEscapes checks the lines the prefilter must not skip: the
// literal written with \u escapes or \/, which pi does not write but JSON
// allows.
func TestPrefilterEscapes(t *testing.T) {
	line := func(text string) string {
		return header + `{"type":"message","id":"x","parentId":null,"timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	tests := []struct {
		text, pattern string
		fold          bool
	}{
		{`\u0061bc`, "abc", false},
		{`a\/b`, "a/b", false},
		{`\u0041BC`, "abc", true},
		{`caf\u00e9`, "café", false},
		{`ſtop`, "stop", true}, // U+017F folds to s: no ASCII prefilter
		{`say \"hi\"`, `"hi"`, false},
	}
	for _, tt := range tests {
		got := search(t, line(tt.text), Options{Pattern: tt.pattern, Fixed: true, IgnoreCase: tt.fold})
		if len(got) != 1 {
			t.Errorf("%s in %s: got %q, want one match", tt.pattern, tt.text, got)
		}
	}
}

func TestPrefilterSkips(t *testing.T) {
	tests := []struct {
		opts Options
		on   bool
	}{
		{Options{Pattern: "menu", Fixed: true}, true},
		{Options{Pattern: "menu", Fixed: true, IgnoreCase: true}, true},
		{Options{Pattern: "mask", Fixed: true, IgnoreCase: true}, false}, // k folds to U+212A
		{Options{Pattern: `say "hi"`, Fixed: true}, false},
		{Options{Pattern: `menu\d+`}, true},
		{Options{Pattern: `(?i)menu`}, true},
		{Options{Pattern: `(?i)mask`}, false},
		{Options{Pattern: `rate.limit`, IgnoreCase: true}, true},
		{Options{Pattern: `x*`}, false},
		{Options{Pattern: `a|b`}, false},
		{Options{Pattern: "", Fixed: true}, false},
	}
	for _, tt := range tests {
		m, err := Compile(tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if on := m.filter.literal != nil; on != tt.on {
			t.Errorf("%+v: prefilter %v, want %v", tt.opts, on, tt.on)
		}
	}
}

func TestIndexFold(t *testing.T) {
	tests := []struct {
		s, lit string
		want   int
	}{
		{"xxMeNu", "menu", 2},
		{"MENU", "menu", 0},
		{"men", "menu", -1},
		{"mEnmenu", "menu", 3},
		{"", "a", -1},
		{"1+1", "+1", 1},
	}
	for _, tt := range tests {
		if got := indexFold([]byte(tt.s), []byte(tt.lit)); got != tt.want {
			t.Errorf("indexFold(%q, %q) = %d, want %d", tt.s, tt.lit, got, tt.want)
		}
	}
}

func TestSnippetIsBounded(t *testing.T) {
	long := strings.Repeat("word ", 200) + "needle" + strings.Repeat(" tail", 200)
	snip, at := cut(long, strings.Index(long, "needle"), strings.Index(long, "needle")+6)
	if snip[at[0]:at[1]] != "needle" || !strings.HasPrefix(snip, "…") || !strings.HasSuffix(snip, "…") {
		t.Errorf("snippet %q at %v", snip, at)
	}
	if n := len([]rune(snip)); n > beforeRunes+afterRunes+8 {
		t.Errorf("snippet of %d runes", n)
	}
	huge := strings.Repeat("x", 1000)
	snip, at = cut(huge, 0, 1000)
	if at[1]-at[0] != matchRunes || !strings.HasSuffix(snip, "…") {
		t.Errorf("a long match: %d bytes shown, %q", at[1]-at[0], snip[len(snip)-5:])
	}
}

func TestBadPattern(t *testing.T) {
	if _, err := Compile(Options{Pattern: "a("}); err == nil || !strings.Contains(err.Error(), "a(") {
		t.Errorf("got %v", err)
	}
}

// TestRealCorpus searches pi's own files for a common word with and
// without the prefilter.
func TestRealCorpus(t *testing.T) {
	dir := "../../../shared/corpus/real"
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Skip("the real corpus is not here (../../../shared/corpus/real)")
	}
	total := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []Options{{Pattern: "the", Fixed: true}, {Pattern: "error", IgnoreCase: true, Fixed: true}, {Pattern: `func \w+`}} {
			total += len(search(t, string(b), p))
		}
	}
	if total == 0 {
		t.Error("no match in the whole corpus")
	}
}

// TestFindAgreesWithRegexp: the anchored search at each place of a folded
// start finds what the expression finds, on random texts.
func TestFindAgreesWithRegexp(t *testing.T) {
	words := []string{"rate", "RaTe", "limit", "LIMIT", " ", "\n", "x", "ratelimit", "é", "K"}
	patterns := []string{`(?i)rate.limit`, `(?i)rate\s*(limit)?`, `(?i)rate|limit`, `(?i)ratE\w*`, `(?i)rate.{0,3}x`, `(?i)r(?-i)ate`}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, pat := range patterns {
		re := regexp.MustCompile(pat)
		p := newPrefilter(pat)
		for range 2000 {
			var b strings.Builder
			for range rng.IntN(12) {
				b.WriteString(words[rng.IntN(len(words))])
			}
			s := b.String()
			if got, want := p.find(re, s), re.FindStringIndex(s); !slices.Equal(got, want) {
				t.Fatalf("%s in %q: got %v, want %v", pat, s, got, want)
			}
			if re.MatchString(s) && !p.mayHold(s) {
				t.Fatalf("%s in %q: mayHold is false", pat, s)
			}
		}
	}
}
