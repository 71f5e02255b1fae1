package fix

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// TestConformanceSlimRewrite: pi 1.6.0 loads what slim --rewrite writes
// (loadEntriesFromFile skips no line, the header is its), and its context
// at every leaf (buildSessionProjection, conformance/pi-context.mjs) is the
// original's with exactly the placeholders substituted: every other value
// deep-equal, and each placeholder stands where the original had a text or
// image block (or a string content) whose string has the size and sha256
// the placeholder says. Run on the corpus, the real sessions, generated
// sessions (a small hugegen file, the fixtures of the unit tests), each at
// a small --max-bytes and with --drop-custom of every customType the file
// has.
//
//	PISESS_CONFORMANCE=1 go test ./internal/fix -run ConformanceSlimRewrite -v
func TestConformanceSlimRewrite(t *testing.T) {
	files := append(conformanceFiles(t), generatedForRewrite(t)...)
	var pairs, placeholders, slimmed, dropped int
	for _, src := range files {
		src = migratedCopy(t, src)
		for _, drop := range []bool{false, true} {
			opts := options(t)
			opts.MaxBytes, opts.Output = 1024, filepath.Join(t.TempDir(), "out.jsonl")
			if drop {
				if opts.DropCustom = customTypes(t, src); len(opts.DropCustom) == 0 {
					continue
				}
			}
			rep, err := SlimRewriteFile(safefile.OS(), src, opts)
			if err != nil {
				t.Logf("%s: %v", filepath.Base(src), err) // v1/v2, omp, invalid: refused, untouched
				continue
			}
			if rep.Action == "unchanged" {
				continue
			}
			slimmed++
			dropped += rep.CustomDropped
			if got := runPi(t, opts.Output, ""); got.Skipped != 0 || !got.Header {
				t.Errorf("%s: pi's loader skipped %d lines of the result (header %v)", src, got.Skipped, got.Header)
			}
			want, got := piContexts(t, src), piContexts(t, opts.Output)
			if len(got) != len(want) {
				t.Errorf("%s: %d leaves after, %d before", src, len(got), len(want))
			}
			for leaf, w := range want {
				g, ok := got[leaf]
				if !ok {
					t.Errorf("%s: leaf %s is gone", src, leaf)
					continue
				}
				n, err := samePlaceholdersAside(w, g)
				if err != nil {
					t.Errorf("%s (drop %v) at leaf %s: %v", filepath.Base(src), drop, leaf, err)
				}
				pairs++
				placeholders += n
			}
		}
	}
	t.Logf("%d results, %d (file, leaf) pairs equal modulo %d placeholders; %d custom entries dropped", slimmed, pairs, placeholders, dropped)
	if pairs == 0 || placeholders == 0 || dropped == 0 {
		t.Error("nothing was compared")
	}
}

// migratedCopy is src, or for a version-1 or -2 file a copy migrated as
// pisess migrate does (slim --rewrite wants version 3).
func migratedCopy(t *testing.T, src string) string {
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if v, err := migrate.PeekVersion(f, session.DefaultLimits()); err != nil || v >= 3 {
		return src
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := migrate.Migrate(f, &out, session.DefaultLimits()); err != nil {
		return src
	}
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// generatedForRewrite writes the generated sessions of the test: a small
// hugegen session and the unit tests' fixtures.
func generatedForRewrite(t *testing.T) []string {
	dir := t.TempDir()
	huge := filepath.Join(dir, "hugegen.jsonl")
	if out, err := exec.Command("go", "run", "../../scripts/gen/hugegen", "-out", huge, "-bytes", "12MiB").CombinedOutput(); err != nil {
		t.Fatalf("hugegen: %v\n%s", err, out)
	}
	_, img := pngData(3000)
	text := strings.Repeat("out\t\"x\" é 😀\n", 300)
	blocks := sessionLines(t,
		msgEntry("a1", "", userMsg(`[`+textBlockJSON("look")+`,`+imageBlockJSON(img)+`]`)),
		msgEntry("a2", "a1", assistantMsg(`[`+textBlockJSON(text)+`,{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x.png"}}]`)),
		msgEntry("a3", "a2", toolResultMsg("c1", `[`+imageBlockJSON(img)+`,`+imageBlockJSON("not*base64!"+strings.Repeat("A", 3000))+`]`, `{"nested":{"content":[`+imageBlockJSON(img)+`]}}`)),
		msgEntry("b2", "a1", userMsg(string(jsonString(text)))),
		`{"type":"custom_message","id":"b3","parentId":"b2","timestamp":"2026-01-01T00:00:03.000Z","customType":"ci","content":`+string(jsonString(text))+`,"display":true}`,
		customEntry("s1", "b3", "state", `{"n":1}`),
		msgEntry("b4", "s1", assistantMsg(`[`+textBlockJSON("ok")+`]`)),
		customEntry("s2", "b4", "state", `{"n":2}`),
		msgEntry("b5", "s2", userMsg(`"next"`)),
	)
	return []string{huge, blocks}
}

// customTypes lists the customTypes of the custom entries of the file.
func customTypes(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var types []string
	rd := session.NewReader(f, session.DefaultLimits())
	var tp session.Tape
	for rd.Next() {
		l := rd.Line()
		if l.Class != session.Object || tp.Build(l.Object(0)) != nil || tp.StrOf(0, "type") != "custom" {
			continue
		}
		if c := tp.StrOf(0, "customType"); c != "" && !slices.Contains(types, c) {
			types = append(types, c)
		}
	}
	return types
}

// piContexts is pi 1.6.0's context at every leaf of the file, by leaf id.
func piContexts(t *testing.T, path string) map[string][]any {
	cmd := exec.Command("node", "../../conformance/pi-context.mjs", path)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi-context %s: %v", path, err)
	}
	contexts := map[string][]any{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var rec struct {
			Kind, PI, LeafID, Error string
			Messages                []any
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		if rec.Kind == "context" && rec.PI == "1.6.0" && rec.Error == "" {
			contexts[rec.LeafID] = rec.Messages
		}
	}
	return contexts
}

// samePlaceholdersAside compares pi's context before (want) and after
// (got): equal, but where got has a placeholder, which must say the size
// and sha256 of the string of the block (or string content) it replaced.
// It returns the number of placeholders met.
func samePlaceholdersAside(want, got any) (int, error) {
	if reflect.DeepEqual(want, got) {
		return 0, nil
	}
	if p, ok := placeholderOf(got); ok {
		s, ok := removedString(want)
		switch {
		case !ok:
			return 0, fmt.Errorf("a placeholder where there was no text or image: %.200v", want)
		case p.size != len(s):
			return 0, fmt.Errorf("placeholder of %d bytes for a string of %d", p.size, len(s))
		case p.sum != sha256Hex(s):
			return 0, fmt.Errorf("placeholder sha256 %s, the string's %s", p.sum, sha256Hex(s))
		}
		return 1, nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return 0, fmt.Errorf("object %.200v became %.200v", want, got)
		}
		n := 0
		for k, v := range w {
			m, err := samePlaceholdersAside(v, g[k])
			if err != nil {
				return 0, fmt.Errorf("%s: %w", k, err)
			}
			n += m
		}
		return n, nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return 0, fmt.Errorf("array of %d became %.200v", len(w), got)
		}
		n := 0
		for i := range w {
			m, err := samePlaceholdersAside(w[i], g[i])
			if err != nil {
				return 0, fmt.Errorf("[%d]: %w", i, err)
			}
			n += m
		}
		return n, nil
	}
	return 0, fmt.Errorf("%.200v became %.200v", want, got)
}

type placeholderFacts struct {
	size int
	sum  string
}

// placeholderOf reads a placeholder: a text block, or a string, of
// slim --rewrite's text.
func placeholderOf(v any) (placeholderFacts, bool) {
	s, ok := v.(string)
	if m, isMap := v.(map[string]any); isMap && len(m) == 2 && m["type"] == "text" {
		s, ok = m["text"].(string)
	}
	if !ok || !strings.HasPrefix(s, session.PlaceholderMark) {
		return placeholderFacts{}, false
	}
	f := placeholderRE.FindStringSubmatch(s)
	if f == nil {
		return placeholderFacts{}, false
	}
	n, _ := strconv.Atoi(f[2])
	return placeholderFacts{n, f[3]}, true
}

// removedString is the string of what a placeholder replaced: a string
// content, a text block's text, an image block's data.
func removedString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case map[string]any:
		switch v["type"] {
		case "text":
			s, ok := v["text"].(string)
			return s, ok
		case "image":
			s, ok := v["data"].(string)
			return s, ok
		}
	}
	return "", false
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestSamePlaceholdersAside: the conformance comparison takes exactly the
// placeholders for what they replaced, and nothing else.
func TestSamePlaceholdersAside(t *testing.T) {
	text := strings.Repeat("x", 2000)
	ph := func(s string) string {
		var tp session.Tape
		q := string(jsonString(s))
		if err := tp.Build([]byte(`{"type":"text","text":` + q + `}`)); err != nil {
			t.Fatal(err)
		}
		b := session.Block{Kind: session.BlockText, Data: tp.Get(0, "text")}
		return session.PlaceholderText(b, session.DigestOf(&tp, b), "e1")
	}
	decode := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	want := decode(`[{"role":"user","content":[{"type":"text","text":"` + text + `"},{"type":"text","text":"hi"}]}]`)
	for _, tt := range []struct {
		got  string
		n    int
		fail bool
	}{
		{`[{"role":"user","content":[{"type":"text","text":"` + text + `"},{"type":"text","text":"hi"}]}]`, 0, false},
		{`[{"role":"user","content":[{"type":"text","text":"` + ph(text) + `"},{"type":"text","text":"hi"}]}]`, 1, false},
		{`[{"role":"user","content":[{"type":"text","text":"` + ph(text+"y") + `"},{"type":"text","text":"hi"}]}]`, 0, true},
		{`[{"role":"user","content":[{"type":"text","text":"` + ph(text) + `"},{"type":"text","text":"ho"}]}]`, 0, true},
		{`[{"role":"user","content":[{"type":"text","text":"` + ph(text) + `"}]}]`, 0, true},
		{`[{"role":"user","content":"` + ph(text) + `"}]`, 0, true},
	} {
		n, err := samePlaceholdersAside(want, decode(tt.got))
		if (err != nil) != tt.fail || n != tt.n {
			t.Errorf("%.120s: %d placeholders, %v", tt.got, n, err)
		}
	}
}
