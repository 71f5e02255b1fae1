package project

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/parse"
)

// The conformance test runs pi's own code (conformance/pi-context.mjs, with
// the pinned @mariozechner/pi-coding-agent) on every corpus file and
// compares, for every leaf, the messages, model and thinking level that
// buildSessionContext returns, pi's token estimates, and pi's getTree
// (roots, children order, labels) with ours.
//
//	cd conformance && npm ci --ignore-scripts && cd ..
//	PISESS_CONFORMANCE=1 go test ./internal/project -run Conformance -v
const (
	conformanceEnv = "PISESS_CONFORMANCE"
	conformanceDir = "../../conformance"
	piPackage      = "node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js"
	testCorpus     = "../../testdata/corpus"
	realCorpus     = "../../../shared/corpus/real"
	piTimeout      = 5 * time.Minute // pi-context.mjs takes seconds; never hang the test
)

// piFile and piContext are the records pi-context.mjs prints.
type piFile struct {
	File     string  `json:"file"`
	Session  bool    `json:"session"`
	Error    string  `json:"error"` // pi throws on the file
	Entries  int     `json:"entries"`
	Tree     *piTree `json:"tree"` // nil when pi's getTree cannot be run safely
	contexts []piContext
}

type piTree struct {
	Roots    []int     `json:"roots"`
	Children [][]int   `json:"children"`
	Labels   []*string `json:"labels"`
}

type piContext struct {
	LeafIndex     int               `json:"leafIndex"`
	LeafID        string            `json:"leafId"`
	Default       bool              `json:"default"`
	Error         string            `json:"error"`
	Messages      []json.RawMessage `json:"messages"`
	Model         json.RawMessage   `json:"model"`
	ThinkingLevel json.RawMessage   `json:"thinkingLevel"`
	Tokens        []*int            `json:"tokens"`
	ContextTokens *int              `json:"contextTokens"`
}

// corpusFile is one file under test and what pi is run on.
type corpusFile struct {
	path   string // the file as in the corpus
	piPath string // what pi reads: the file, or a copy with concatenated objects split
	split  []int  // lines of concatenated objects that were split for pi
	skip   string // why pi cannot be compared on this file at all
}

func TestConformance(t *testing.T) {
	if os.Getenv(conformanceEnv) != "1" {
		t.Skipf("conformance with pi is off: set %s=1 (after `npm ci --ignore-scripts` in conformance/) to compare with pi's buildSessionContext", conformanceEnv)
	}
	if _, err := os.Stat(filepath.Join(conformanceDir, piPackage)); err != nil {
		t.Fatalf("%s=1 but pi is not installed: run `npm ci --ignore-scripts` in conformance/ (%v)", conformanceEnv, err)
	}
	files := conformanceFiles(t)
	if len(files) == 0 {
		t.Fatal("no corpus files found")
	}
	results := runPi(t, files)
	var st conformanceStats
	for _, cf := range files {
		t.Run(filepath.Base(cf.path), func(t *testing.T) {
			if cf.skip != "" {
				st.skippedFiles++
				t.Skip(cf.skip)
			}
			pi, ok := results[cf.piPath]
			if !ok {
				t.Fatalf("pi printed nothing for %s", cf.piPath)
			}
			if len(cf.split) > 0 {
				t.Logf("line(s) %v hold concatenated objects: pi drops such a line, pisess keeps every object; compared with pi run on a copy with the line split", cf.split)
			}
			compareFile(t, cf, pi, &st)
		})
	}
	t.Logf("compared %d (file, leaf) pairs in %d files (%d files not sessions, %d files skipped, %d pairs skipped: %d pi errors, %d use features newer than pi 0.73.1)",
		st.pairs, st.files, st.notSessions, st.skippedFiles, st.piErrors+st.newer, st.piErrors, st.newer)
	if st.pairs == 0 {
		t.Error("no (file, leaf) pair was compared")
	}
}

type conformanceStats struct {
	files, notSessions, skippedFiles, pairs, piErrors, newer int
}

// conformanceFiles lists testdata/corpus/**/*.jsonl, the real corpus and
// this package's fixtures (fixtures_test.go), preparing split copies of files with concatenated objects.
func conformanceFiles(t *testing.T) []corpusFile {
	var paths []string
	_ = filepath.WalkDir(testCorpus, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			paths = append(paths, p)
		}
		return nil
	})
	real, _ := filepath.Glob(filepath.Join(realCorpus, "*.jsonl"))
	if len(real) == 0 {
		t.Logf("no real corpus at %s: only testdata/corpus is compared", realCorpus)
	}
	paths = append(paths, real...)
	tmp := t.TempDir()
	paths = append(paths, writeFixtures(t, tmp)...)
	var files []corpusFile
	for i, p := range paths {
		files = append(files, prepare(t, p, filepath.Join(tmp, fmt.Sprintf("%d.jsonl", i))))
	}
	return files
}

// prepare scans a file: lines pi reads differently from pisess either get
// a split copy (concatenated objects) or exclude the file.
func prepare(t *testing.T, path, splitPath string) corpusFile {
	cf := corpusFile{path: path, piPath: path}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := parse.NewReader(bytes.NewReader(data), parse.DefaultLimits())
	for r.Next() {
		l := r.Line()
		switch {
		case l.Class == parse.Concatenated:
			cf.split = append(cf.split, l.Num)
			for k := range l.Objects {
				out.Write(l.Object(k))
				out.WriteByte('\n')
			}
			continue
		case l.Class == parse.Corrupt && (l.Code == finding.InvalidUTF8 || l.Code == finding.NotObject):
			// pi decodes invalid UTF-8 with U+FFFD and keeps any JSON value;
			// pisess skips such lines as fatal corruption.
			cf.skip = fmt.Sprintf("line %d is %s: pi reads it, pisess rejects it as fatal corruption", l.Num, l.Code)
		}
		out.Write(l.Raw)
		out.WriteByte('\n')
	}
	if err := r.Err(); err != nil {
		cf.skip = "unreadable: " + err.Error()
	}
	if len(cf.split) > 0 {
		if err := os.WriteFile(splitPath, out.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		cf.piPath = splitPath
	}
	return cf
}

// runPi runs pi-context.mjs once on every file and groups its records by
// file.
func runPi(t *testing.T, files []corpusFile) map[string]*piFile {
	args := []string{"pi-context.mjs"}
	for _, cf := range files {
		if cf.skip == "" {
			abs, err := filepath.Abs(cf.piPath)
			if err != nil {
				t.Fatal(err)
			}
			args = append(args, abs)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), piTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = conformanceDir
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("node: %v", err)
	}
	byAbs := map[string]*piFile{}
	dec := json.NewDecoder(bufio.NewReaderSize(stdout, 1<<20))
	for dec.More() {
		var rec struct {
			Kind string `json:"kind"`
			File string `json:"file"`
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatalf("reading pi's output: %v", err)
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Kind {
		case "file":
			var f piFile
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatal(err)
			}
			byAbs[rec.File] = &f
		case "context":
			var c piContext
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			f := byAbs[rec.File]
			if f == nil {
				t.Fatalf("context before file record for %s", rec.File)
			}
			f.contexts = append(f.contexts, c)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node pi-context.mjs: %v\n%s", err, stderr.String())
	}
	results := map[string]*piFile{}
	for _, cf := range files {
		abs, _ := filepath.Abs(cf.piPath)
		if f, ok := byAbs[abs]; ok {
			results[cf.piPath] = f
		}
	}
	return results
}

// compareFile compares one file's tree and every leaf's context.
func compareFile(t *testing.T, cf corpusFile, pi *piFile, st *conformanceStats) {
	s, err := LoadFile(cf.path, parse.DefaultLimits())
	var he *HeaderError
	switch {
	case pi.Error != "":
		st.skippedFiles++
		t.Skipf("pi throws on this file (%s); not compared", pi.Error)
	case !pi.Session:
		if !errors.As(err, &he) {
			t.Fatalf("pi does not read this file as a session; we got %v", err)
		}
		st.notSessions++
		return
	case errors.As(err, &he) && he.Code == finding.UnsupportedVersion:
		st.skippedFiles++
		t.Skipf("pisess refuses this version, pi reads it as current: %v", err)
	case err != nil:
		t.Fatalf("pi reads this file as a session; we got %v", err)
	}
	st.files++
	if len(s.Entries) != pi.Entries {
		t.Fatalf("%d entries, pi has %d", len(s.Entries), pi.Entries)
	}
	if pi.Tree == nil {
		// pi's getTree may loop forever then; its leaves are by id, ours by
		// entry (the first of two entries with one id is a leaf for us).
		t.Log("ids are not unique: tree and leaf set not compared")
	} else {
		compareTree(t, s, pi.Tree)
		compareLeaves(t, s, pi)
	}
	for _, pc := range pi.contexts {
		leaf := s.Entries[pc.LeafIndex]
		name := fmt.Sprintf("leaf #%d (line %d)", pc.LeafIndex, leaf.Line)
		if s.Header.Version >= 2 && leaf.ID != pc.LeafID {
			t.Errorf("%s: id %q, pi %q", name, leaf.ID, pc.LeafID)
		}
		ctx, err := s.Context(leaf)
		switch {
		case pc.Error == "cycle":
			var ce *CycleError
			if !errors.As(err, &ce) {
				t.Errorf("%s: pi finds a parent cycle, we got %v", name, err)
			}
			st.pairs++
			continue
		case pc.Error != "":
			t.Logf("%s: pi throws (%s); not compared", name, pc.Error)
			st.piErrors++
			continue
		case err != nil:
			t.Errorf("%s: %v", name, err)
			continue
		case usesNewerFeatures(ctx):
			st.newer++
			continue
		}
		st.pairs++
		compareContext(t, name, ctx, pc)
	}
}

// usesNewerFeatures reports whether the context uses what pi 0.73.1 does not
// know (context_edit, compaction retainedTail): the unit tests check those
// against the spec instead.
func usesNewerFeatures(c *Context) bool {
	for i, e := range c.Entries {
		if e.Type == "context_edit" || (i == 0 && e.Type == "compaction" && hasRetainedTail(e)) {
			return true
		}
	}
	return false
}

func compareContext(t *testing.T, name string, ctx *Context, pc piContext) {
	t.Helper()
	if len(ctx.Messages) != len(pc.Messages) {
		t.Errorf("%s: %d messages, pi has %d", name, len(ctx.Messages), len(pc.Messages))
	}
	for i := range min(len(ctx.Messages), len(pc.Messages)) {
		if !jsonEqual(ctx.Messages[i], pc.Messages[i]) {
			t.Errorf("%s: message %d (entry %s) differs:\n ours %s\n pi   %s", name, i, ctx.Sources[i].ID, excerptJSON(ctx.Messages[i]), excerptJSON(pc.Messages[i]))
			break
		}
	}
	var model json.RawMessage = json.RawMessage("null")
	if ctx.Model != nil {
		model, _ = json.Marshal(ctx.Model)
	}
	if !jsonEqual(model, pc.Model) {
		t.Errorf("%s: model %s, pi %s", name, model, pc.Model)
	}
	if !jsonEqual(ctx.ThinkingLevel, pc.ThinkingLevel) {
		t.Errorf("%s: thinkingLevel %s, pi %s", name, ctx.ThinkingLevel, pc.ThinkingLevel)
	}
	for i, want := range pc.Tokens {
		if i < len(ctx.Messages) && want != nil && EstimateTokens(ctx.Messages[i]) != *want {
			t.Errorf("%s: message %d: estimateTokens %d, pi %d", name, i, EstimateTokens(ctx.Messages[i]), *want)
		}
	}
	if pc.ContextTokens != nil && ContextTokens(ctx.Messages) != *pc.ContextTokens {
		t.Errorf("%s: estimateContextTokens %d, pi %d", name, ContextTokens(ctx.Messages), *pc.ContextTokens)
	}
}

// compareTree compares roots, children order and labels with pi's getTree.
func compareTree(t *testing.T, s *Session, pi *piTree) {
	t.Helper()
	tree := s.Tree()
	if got := nodeIndices(tree.Roots); !reflect.DeepEqual(got, nonNil(pi.Roots)) {
		t.Errorf("tree roots %v, pi %v", got, pi.Roots)
	}
	reached := 0
	tree.Walk(func(n *Node, _ int) {
		reached++
		i := n.Entry.Index
		if got := nodeIndices(n.Children); !reflect.DeepEqual(got, nonNil(pi.Children[i])) {
			t.Errorf("children of #%d: %v, pi %v", i, got, pi.Children[i])
		}
		var want string
		if l := pi.Labels[i]; l != nil {
			want = *l
		}
		if n.Label != want || n.HasLabel != (pi.Labels[i] != nil) {
			t.Errorf("label of #%d: %q, pi %v", i, n.Label, pi.Labels[i])
		}
	})
	piReached := 0
	for _, c := range pi.Children {
		if c != nil {
			piReached++
		}
	}
	if reached != piReached || reached+len(tree.Detached) != len(s.Entries) {
		t.Errorf("tree reaches %d entries (%d detached), pi %d", reached, len(tree.Detached), piReached)
	}
}

// compareLeaves checks that pi and we agree on which entries are leaves.
func compareLeaves(t *testing.T, s *Session, pi *piFile) {
	t.Helper()
	var ours, theirs []int
	for _, e := range s.Leaves() {
		ours = append(ours, e.Index)
	}
	if d := s.DefaultLeaf(); d != nil && !contains(ours, d.Index) {
		ours = append(ours, d.Index)
	}
	for _, c := range pi.contexts {
		theirs = append(theirs, c.LeafIndex)
	}
	sort.Ints(ours)
	sort.Ints(theirs)
	if !reflect.DeepEqual(ours, theirs) {
		t.Errorf("leaves %v, pi %v", ours, theirs)
	}
}

func nodeIndices(nodes []*Node) []int {
	out := []int{}
	for _, n := range nodes {
		out = append(out, n.Entry.Index)
	}
	return out
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func contains(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// jsonEqual compares two JSON values as JavaScript sees them (numbers as
// doubles); an absent value equals only an absent value.
func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

func excerptJSON(raw json.RawMessage) string {
	if len(raw) > 400 {
		return string(raw[:400]) + "…"
	}
	return string(raw)
}
