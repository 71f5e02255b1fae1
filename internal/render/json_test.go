package render

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
)

// The tree document nests without recursion: a 100,000-entry chain is one
// node per entry, each with its children array.
func TestTreeJSONDeepChain(t *testing.T) {
	const n = 100_000
	s, err := project.Load(strings.NewReader(chain(n)), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := TreeJSON(&out, s, s.DefaultLeaf()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), `"children":[`); got != n {
		t.Errorf("tree JSON has %d nodes, want %d", got, n)
	}
	if !strings.HasSuffix(out.String(), "]}]}]}\n") {
		t.Errorf("document ends %q", out.String()[out.Len()-20:])
	}
}

func TestTreeAndPathJSON(t *testing.T) {
	s := load(t,
		msgLine("a1", "", 1, user("first <b>")),
		msgLine("b1", "a1", 2, user("left")),
		msgLine("c1", "a1", 4, user("right")),
		`{"type":"label","id":"l1","parentId":"c1","timestamp":"2026-02-09T15:00:05.000Z","targetId":"b1","label":"try A"}`,
	)
	leaf := s.DefaultLeaf()
	var tree bytes.Buffer
	if err := TreeJSON(&tree, s, leaf); err != nil {
		t.Fatal(err)
	}
	const wantTree = `{"leaf":"l1","roots":[{"id":"a1","type":"message","parentId":null,"timestamp":"2026-02-09T15:00:01.000Z","line":2,"label":null,"summary":"user: first <b>","onPath":true,"children":[` +
		`{"id":"b1","type":"message","parentId":"a1","timestamp":"2026-02-09T15:00:02.000Z","line":3,"label":"try A","summary":"user: left","onPath":false,"children":[]},` +
		`{"id":"c1","type":"message","parentId":"a1","timestamp":"2026-02-09T15:00:04.000Z","line":4,"label":null,"summary":"user: right","onPath":true,"children":[` +
		`{"id":"l1","type":"label","parentId":"c1","timestamp":"2026-02-09T15:00:05.000Z","line":5,"label":null,"summary":"label \"try A\" → b1","onPath":true,"children":[]}]}]}]}` + "\n"
	if tree.String() != wantTree {
		t.Errorf("tree:\n got %s\nwant %s", tree.String(), wantTree)
	}
	path, err := s.Path(leaf)
	if err != nil {
		t.Fatal(err)
	}
	var pj bytes.Buffer
	if err := PathJSON(&pj, s, leaf, path); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Leaf    string `json:"leaf"`
		Entries []struct {
			ID       string  `json:"id"`
			ParentID *string `json:"parentId"`
			Summary  string  `json:"summary"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(pj.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, pj.String())
	}
	if doc.Leaf != "l1" || len(doc.Entries) != 3 || doc.Entries[0].ParentID != nil || *doc.Entries[2].ParentID != "c1" {
		t.Errorf("path %s", pj.String())
	}

	empty := load(t)
	var et bytes.Buffer
	if err := TreeJSON(&et, empty, nil); err != nil || et.String() != `{"leaf":null,"roots":[]}`+"\n" {
		t.Errorf("empty tree %q (%v)", et.String(), err)
	}
}

// Summary is the tree line with the text cut to 60 runes.
func TestSummaryCutsTheText(t *testing.T) {
	s := load(t, msgLine("a1", "", 1, user(strings.Repeat("word ", 40))))
	got := Summary(record(t, s.Entries[0]))
	if want := "user: " + strings.Repeat("word ", 11) + "word…"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSummaryRealCorpus: every entry of the real pi files has a summary
// of one line (the export's tree and the JSON documents show it).
func TestSummaryRealCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/real/*.jsonl")
	if len(files) == 0 {
		t.Skip("no real corpus at ../../../shared/corpus/real: skipping (CI has it)")
	}
	for _, f := range files {
		s, err := project.LoadFile(f, session.DefaultLimits())
		if err != nil {
			continue // not a session: validate's business
		}
		for _, e := range s.Entries {
			if sum := Summary(record(t, e)); strings.ContainsAny(sum, "\n\r") || utf8.RuneCountInString(sum) > 200 {
				t.Errorf("%s:%d: summary %q", filepath.Base(f), e.Line, sum)
			}
		}
	}
}

// TestJSONEntryWithoutStringID: an entry whose id is not a string (a
// schema error validate reports) has no id the views can name, as a
// parentId that is not a string has none: its id, the leaf when it is the
// leaf, and its place in entryIds are null, never a "" that --leaf cannot
// name. pi walks its path as ours (its parentId is a string).
func TestJSONEntryWithoutStringID(t *testing.T) {
	s := load(t,
		msgLine("a1", "", 1, user("hi")),
		strings.Replace(msgLine("x", "a1", 2, user("numeric id")), `"id":"x"`, `"id":42`, 1),
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
	var tree, pj, cj bytes.Buffer
	if err := TreeJSON(&tree, s, leaf); err != nil {
		t.Fatal(err)
	}
	if err := PathJSON(&pj, s, leaf, path); err != nil {
		t.Fatal(err)
	}
	if err := ContextJSON(&cj, c); err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{"tree": tree.String(), "path": pj.String(), "context": cj.String()} {
		if !strings.HasPrefix(doc, `{"leaf":null,`) {
			t.Errorf("%s: leaf is not null: %s", name, doc)
		}
		if strings.Contains(doc, `""`) {
			t.Errorf("%s: an empty id: %s", name, doc)
		}
	}
	if want := `{"id":null,"type":"message","parentId":"a1"`; !strings.Contains(pj.String(), want) {
		t.Errorf("path: no %s in %s", want, pj.String())
	}
	if want := `"entryIds":["a1",null]`; !strings.Contains(cj.String(), want) {
		t.Errorf("context: no %s in %s", want, cj.String())
	}
}

// The documents' strings are written as encoding/json writes them without
// HTML escaping, though most go through JSON.stringify's quoting
// (jsonWriter.quote): the two must give the same bytes for every string.
func FuzzQuoteAsEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "plain", `q"b\s`, "\b\f\n\r\t\x00\x1f\x7f", "é日本🙂", "\u2028\u2029", "\xff", "a\xc3", "<&>", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		if err := encodeJSON(&want, s); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		j := newJSONWriter(&got)
		j.quote(s)
		if err := j.w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("quote(%q) = %s, encoding/json writes %s", s, got.String(), want.String())
		}
	})
}
