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
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/session"
)

// The conformance test runs pi's own code (conformance/pi-context.mjs) on
// every corpus file, on this package's fixtures and on generated sessions
// (gen_test.go), with two pinned pis side by side:
//
//   - pi 1.6.0 (@earendil-works/pi-coding-agent), the reference for
//     projection: for every leaf, the messages, the entry behind each
//     message, model and thinking level of buildSessionProjection, pi's token
//     estimates, and getTree (roots, children order, labels);
//   - pi 0.73.1 (@mariozechner/pi-coding-agent), the last of the old
//     package: the same, on every leaf whose context uses nothing pi 1.x
//     changed (see changedSince073).
//
// For version-1 and version-2 files it also compares, with both, the
// records pi's migrateSessionEntries produces with what migrate.Migrate
// writes and what Load migrates in memory.
//
//	cd conformance && npm ci --ignore-scripts && cd ..
//	PISESS_CONFORMANCE=1 go test ./internal/project -run Conformance -v
//
// With PISESS_CONFORMANCE_REPORT=FILE the per-pi counts are also written to
// FILE (make conformance prints them).
const (
	conformanceEnv = "PISESS_CONFORMANCE"
	reportEnv      = "PISESS_CONFORMANCE_REPORT"
	conformanceDir = "../../conformance"
	testCorpus     = "../../testdata/corpus"
	realCorpus     = "../../../shared/corpus/real"
	piTimeout      = 2 * time.Minute // pi-context.mjs takes seconds; never hang the test
)

// The two pinned pis, as pi-context.mjs names them.
const (
	pi16 = "1.6.0"
	pi07 = "0.73.1"
)

var piModules = map[string]string{
	pi16: "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js",
	pi07: "node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js",
}

// piFile and piContext are the records pi-context.mjs prints.
type piFile struct {
	File     string                       `json:"file"`
	Session  bool                         `json:"session"`
	Error    string                       `json:"error"` // pi throws on the file
	Entries  int                          `json:"entries"`
	Version  float64                      `json:"version"`
	Trees    map[string]*piTree           `json:"trees"`    // nil tree: getTree cannot be run safely
	Migrated map[string][]json.RawMessage `json:"migrated"` // version 1 and 2 files
	// Rewritten: what pi 1.6.0's SessionManager.open wrote when it
	// migrated a copy of a version-1/2 file (records, or {"error": …}).
	Rewritten json.RawMessage `json:"rewritten"`
	contexts  []piContext
}

type piTree struct {
	Roots    []int     `json:"roots"`
	Children [][]int   `json:"children"`
	Labels   []*string `json:"labels"`
}

type piContext struct {
	Pi            string            `json:"pi"`
	LeafIndex     int               `json:"leafIndex"`
	LeafID        json.RawMessage   `json:"leafId"`
	Default       bool              `json:"default"`
	Error         string            `json:"error"`
	Messages      []json.RawMessage `json:"messages"`
	Sources       []*int            `json:"sources"` // pi 1.6.0 only
	Model         json.RawMessage   `json:"model"`
	ThinkingLevel json.RawMessage   `json:"thinkingLevel"`
	Tokens        []*int            `json:"tokens"`
	ContextTokens *int              `json:"contextTokens"`
}

// corpusFile is one file under test and what pi is run on.
type corpusFile struct {
	path   string // the file as in the corpus
	group  string // where it comes from, for the counts
	piPath string // what pi reads: the file, or a copy with concatenated objects split
	split  []int  // lines of concatenated objects that were split for pi
	skip   string // why pi cannot be compared on this file at all
}

// The groups of files.
const (
	groupCorpus    = "testdata/corpus"
	groupReal      = "real corpus"
	groupFixtures  = "fixtures"
	groupGenerated = "generated"
)

var groups = []string{groupCorpus, groupReal, groupFixtures, groupGenerated}

func TestConformance(t *testing.T) {
	if os.Getenv(conformanceEnv) != "1" {
		t.Skipf("conformance with pi is off: set %s=1 (after `npm ci --ignore-scripts` in conformance/) to compare with pi 1.6.0 and pi 0.73.1", conformanceEnv)
	}
	for _, module := range piModules {
		if _, err := os.Stat(filepath.Join(conformanceDir, module)); err != nil {
			t.Fatalf("%s=1 but pi is not installed: run `npm ci --ignore-scripts` in conformance/ (%v)", conformanceEnv, err)
		}
	}
	files := conformanceFiles(t)
	if len(files) == 0 {
		t.Fatal("no corpus files found")
	}
	results := runPi(t, files)
	st := newConformanceStats()
	for _, cf := range files {
		t.Run(cf.group+"/"+filepath.Base(cf.path), func(t *testing.T) {
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
			compareFile(t, cf, pi, st)
		})
	}
	report := st.report()
	t.Log("\n" + report)
	if path := os.Getenv(reportEnv); path != "" {
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
			t.Error(err)
		}
	}
	for _, name := range []string{pi16, pi07} {
		if st.oracles[name].pairs == 0 {
			t.Errorf("pi %s: no (file, leaf) pair was compared", name)
		}
	}
	if gen := st.oracles[pi16].byGroup[groupGenerated]; gen < 300 {
		t.Errorf("pi %s: only %d generated (file, leaf) pairs compared; the generator should give at least 300", pi16, gen)
	}
}

// oracleStats counts what was compared with one pi.
type oracleStats struct {
	pairs       int            // (file, leaf) pairs compared
	differing   int            // of those, pairs with a difference
	byGroup     map[string]int // pairs per group of files
	skipped     map[string]int // pairs not compared, per reason
	trees       int            // trees compared
	migrations  int            // version 1/2 files whose migration was compared
	migrateDiff int            // of those, files with a difference
}

type conformanceStats struct {
	files, notSessions, skippedFiles int
	oracles                          map[string]*oracleStats
	rewrites, rewriteDiff            int // v1/v2 files whose rewrite by pi 1.6.0's open() was compared, and those that differ
}

func newConformanceStats() *conformanceStats {
	st := &conformanceStats{oracles: map[string]*oracleStats{}}
	for _, name := range []string{pi16, pi07} {
		st.oracles[name] = &oracleStats{byGroup: map[string]int{}, skipped: map[string]int{}}
	}
	return st
}

// report is the summary: one line of counts per pi, then the details.
func (st *conformanceStats) report() string {
	var b strings.Builder
	for _, name := range []string{pi16, pi07} {
		o := st.oracles[name]
		fmt.Fprintf(&b, "pi %s: %d (file, leaf) pairs compared, %d with differences; %d trees; migration of %d v1/v2 files, %d with differences\n",
			name, o.pairs, o.differing, o.trees, o.migrations, o.migrateDiff)
	}
	for _, name := range []string{pi16, pi07} {
		o := st.oracles[name]
		var parts []string
		for _, g := range groups {
			parts = append(parts, fmt.Sprintf("%s %d", g, o.byGroup[g]))
		}
		fmt.Fprintf(&b, "  pi %s pairs by source: %s\n", name, strings.Join(parts, ", "))
		reasons := make([]string, 0, len(o.skipped))
		for r := range o.skipped {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		for _, r := range reasons {
			fmt.Fprintf(&b, "  pi %s pairs not compared: %d %s\n", name, o.skipped[r], r)
		}
	}
	fmt.Fprintf(&b, "  pi %s open(): the rewrite of %d v1/v2 files compared with migrate's, %d with differences\n", pi16, st.rewrites, st.rewriteDiff)
	fmt.Fprintf(&b, "  %d session files compared, %d files not sessions (refused by pi and pisess alike), %d files skipped\n",
		st.files, st.notSessions, st.skippedFiles)
	return b.String()
}

// conformanceFiles lists testdata/corpus/**/*.jsonl, the real corpus, this
// package's fixtures (fixtures_test.go) and the generated sessions
// (gen_test.go), preparing split copies of files with concatenated objects.
func conformanceFiles(t *testing.T) []corpusFile {
	tmp := t.TempDir()
	var files []corpusFile
	add := func(group string, paths ...string) {
		for _, p := range paths {
			cf := prepare(t, p, filepath.Join(tmp, fmt.Sprintf("split-%d.jsonl", len(files))))
			cf.group = group
			files = append(files, cf)
		}
	}
	var corpus []string
	_ = filepath.WalkDir(testCorpus, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			corpus = append(corpus, p)
		}
		return nil
	})
	add(groupCorpus, corpus...)
	real, _ := filepath.Glob(filepath.Join(realCorpus, "*.jsonl"))
	if len(real) == 0 {
		t.Logf("no real corpus at %s: it is not compared", realCorpus)
	}
	add(groupReal, real...)
	add(groupFixtures, writeFixtures(t, tmp)...)
	add(groupFixtures, writeRefusalCases(t, tmp)...)
	add(groupGenerated, writeGenerated(t, tmp)...)
	return files
}

// writeGenerated writes the generated sessions into dir.
func writeGenerated(t *testing.T, dir string) []string {
	var paths []string
	for n := range genSessions {
		p := filepath.Join(dir, fmt.Sprintf("gen-%03d.jsonl", n))
		if err := os.WriteFile(p, []byte(genSession(n)), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
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
	r := session.NewReader(bytes.NewReader(data), session.DefaultLimits())
	header := false // an object was seen: lines before it are RefuseAsPi's to judge, as pi's loader does
	for r.Next() {
		l := r.Line()
		switch {
		case !header:
			header = l.Class == session.Object || l.Class == session.Concatenated
		case l.Class == session.Concatenated:
			cf.split = append(cf.split, l.Num)
			for k := range l.Objects {
				out.Write(l.Object(k))
				out.WriteByte('\n')
			}
			continue
		case l.Class == session.Corrupt && (l.Code == finding.InvalidUTF8 || l.Code == finding.NotObject):
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
	if session.SniffDialect(data[:min(len(data), session.SniffBytes)]) == session.Omp {
		cf.skip = "an oh-my-pi file: compared with omp's own code (TestOmpConformance)"
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
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatalf("reading pi's output: %v", err)
		}
		var rec struct {
			Kind string `json:"kind"`
			File string `json:"file"`
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

// compareFile compares one file's tree, migration and every leaf's context
// with both pis.
func compareFile(t *testing.T, cf corpusFile, pi *piFile, st *conformanceStats) {
	s, err := RefuseAsPi(LoadFile(cf.path, session.DefaultLimits()))
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
	for _, name := range []string{pi16, pi07} {
		tree := pi.Trees[name]
		if tree == nil {
			// pi's getTree may loop forever then; its leaves are by id, ours by
			// entry (the first of two entries with one id is a leaf for us).
			t.Logf("pi %s: ids are not unique: tree and leaf set not compared", name)
			continue
		}
		st.oracles[name].trees++
		compareTree(t, name, s, tree)
		compareLeaves(t, name, s, pi)
	}
	if pi.Version < 3 {
		for _, name := range []string{pi16, pi07} {
			st.oracles[name].migrations++
			if !compareMigration(t, name, cf.piPath, s, pi.Migrated[name]) {
				st.oracles[name].migrateDiff++
			}
		}
		compareRewrite(t, cf.piPath, pi.Rewritten, st)
	}
	contexts := map[int]*Context{}
	for _, pc := range pi.contexts {
		o := st.oracles[pc.Pi]
		if o == nil {
			t.Fatalf("context of an unknown pi %q", pc.Pi)
		}
		leaf := s.Entries[pc.LeafIndex]
		name := fmt.Sprintf("pi %s: leaf #%d (line %d)", pc.Pi, pc.LeafIndex, leaf.Line)
		if s.Header.Version >= 2 && leaf.ID() != "" && !jsonEqual(session.Quote(leaf.ID()), pc.LeafID) {
			t.Errorf("%s: id %q, pi %s", name, leaf.ID(), pc.LeafID)
		}
		ctx, ok := contexts[pc.LeafIndex]
		if !ok {
			ctx, err = s.Context(leaf)
			if err != nil {
				ctx = nil
			}
			contexts[pc.LeafIndex] = ctx
		}
		switch {
		case pc.Error == "cycle":
			var ce *CycleError
			if _, err := s.Context(leaf); !errors.As(err, &ce) {
				t.Errorf("%s: pi finds a parent cycle, we got %v", name, err)
				o.differing++
			}
			o.pairs++
			o.byGroup[cf.group]++
			continue
		case pc.Error != "":
			t.Logf("%s: pi throws (%s); not compared", name, pc.Error)
			o.skipped["pi throws"]++
			continue
		case ctx == nil:
			_, err := s.Context(leaf)
			t.Errorf("%s: %v", name, err)
			o.differing++
			continue
		}
		skip := ""
		if pc.Pi == pi16 {
			skip = unknownTo16(ctx)
		} else {
			skip = changedSince073(s, ctx)
		}
		if skip != "" {
			o.skipped[skip]++
			continue
		}
		o.pairs++
		o.byGroup[cf.group]++
		if !compareContext(t, name, ctx, pc) {
			o.differing++
		}
	}
}

// unknownTo16 says why pi 1.6.0 cannot be compared on a context: a leading
// compaction with a retainedTail (the spec's newer checkpoint, which pi
// 1.6.0 does not know; the unit tests check it against the spec).
func unknownTo16(c *Context) string {
	if len(c.Entries) > 0 && c.Entries[0].Type() == "compaction" && entryRetainsTail(c.Entries[0]) {
		return "retainedTail (unknown to pi 1.6.0)"
	}
	return ""
}

// changedSince073 says why a context cannot be compared with pi 0.73.1: it
// uses something pi 1.x projects differently (pi 1.6.0 is followed there;
// docs/format.md lists the changes), or retainedTail, which neither knows.
func changedSince073(s *Session, c *Context) string {
	if reason := unknownTo16(c); reason != "" {
		return reason
	}
	ci := -1 // the leading compaction's position on the path
	if len(c.Entries) > 0 && c.Entries[0].Type() == "compaction" {
		for i, e := range c.Path {
			if e == c.Entries[0] {
				ci = i
			}
		}
	}
	for i, e := range c.Path {
		switch {
		case e.Type() == "context_edit":
			return "context_edit (unknown to pi 0.73.1)"
		case i == ci && session.JSTruthy(fieldOf(e, "systemMessage")):
			return "compaction systemMessage (unknown to pi 0.73.1)"
		case i < ci && e.Role() == "system":
			return "system message before a compaction (pi 1.x drops it from the kept range)"
		case hasNullContent(e):
			return "null or absent content (pi 1.x normalises it)"
		}
	}
	return ""
}

// hasNullContent reports whether pi 1.6.0 normalises the content of the
// entry's message.
func hasNullContent(e *Entry) bool {
	switch e.Type() {
	case "custom_message":
		content := fieldOf(e, "content")
		return len(content) == 0 || isNull(content)
	case "message":
		m := e.Message()
		if !isObject(m) {
			return false
		}
		if content := memberValue(m, "content"); len(content) > 0 && !isNull(content) {
			return false
		}
		switch e.Role() {
		case "system", "user", "assistant", "toolResult":
			return true
		}
	}
	return false
}

// estimateChanged reports whether pi 1.x estimates a message differently
// from pi 0.73.1: system messages (0 before), images in user content (not
// counted before) and assistant usage that counts no tokens (pi 0.73.1
// took it as the context size).
func estimateChanged(m json.RawMessage) bool {
	if !isObject(m) {
		return false
	}
	role, _ := rawString(memberValue(m, "role"))
	stop, _ := rawString(memberValue(m, "stopReason"))
	if role == "system" {
		return true
	}
	if role == "assistant" && stop != "aborted" && stop != "error" && session.JSTruthy(memberValue(m, "usage")) {
		if _, usable := assistantUsage(m); !usable {
			return true
		}
	}
	if role == "user" {
		for _, b := range messageBlocks(m) {
			if b.Type == "image" {
				return true
			}
		}
	}
	return false
}

// compareContext compares one leaf's context; false if anything differs.
func compareContext(t *testing.T, name string, ctx *Context, pc piContext) bool {
	t.Helper()
	same := true
	differ := func(format string, args ...any) {
		t.Errorf(name+": "+format, args...)
		same = false
	}
	if len(ctx.Messages) != len(pc.Messages) {
		differ("%d messages, pi has %d", len(ctx.Messages), len(pc.Messages))
	}
	for i := range min(len(ctx.Messages), len(pc.Messages)) {
		if !jsonEqual(ctx.Messages[i], pc.Messages[i]) {
			differ("message %d (entry %s) differs:\n ours %s\n pi   %s", i, ctx.Sources[i].ID(), excerptJSON(ctx.Messages[i]), excerptJSON(pc.Messages[i]))
			break
		}
	}
	if pc.Sources != nil {
		for i := range min(len(ctx.Sources), len(pc.Sources)) {
			if pc.Sources[i] == nil || ctx.Sources[i].Index != *pc.Sources[i] {
				differ("message %d comes from entry #%d, pi says %v", i, ctx.Sources[i].Index, derefInt(pc.Sources[i]))
				break
			}
		}
	}
	var model json.RawMessage = json.RawMessage("null")
	if ctx.Model != nil {
		model, _ = json.Marshal(ctx.Model)
	}
	if !jsonEqual(model, pc.Model) {
		differ("model %s, pi %s", model, pc.Model)
	}
	if !jsonEqual(ctx.ThinkingLevel, pc.ThinkingLevel) {
		differ("thinkingLevel %s, pi %s", ctx.ThinkingLevel, pc.ThinkingLevel)
	}
	estimatesComparable := true
	for i, want := range pc.Tokens {
		if i >= len(ctx.Messages) || want == nil {
			continue
		}
		if pc.Pi == pi07 && estimateChanged(ctx.Messages[i]) {
			estimatesComparable = false
			continue
		}
		if got := EstimateTokens(ctx.Messages[i]); got != *want {
			differ("message %d: estimateTokens %d, pi %d", i, got, *want)
		}
	}
	if pc.ContextTokens != nil && estimatesComparable && ContextTokens(ctx.Messages) != *pc.ContextTokens {
		differ("estimateContextTokens %d, pi %d", ContextTokens(ctx.Messages), *pc.ContextTokens)
	}
	return same
}

func derefInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// compareMigration compares, record by record, what pi's
// migrateSessionEntries made of a version-1/2 file with what migrate.Migrate
// writes (values and top-level key order) and with the entries Load migrates
// in memory. Ids are compared by the record they name (pi draws random
// ids for version-1 entries).
func compareMigration(t *testing.T, name, path string, s *Session, piRecords []json.RawMessage) bool {
	t.Helper()
	same := true
	differ := func(format string, args ...any) {
		t.Errorf("pi %s: migration: "+format, append([]any{name}, args...)...)
		same = false
	}
	theirs := canonicalRecords(piRecords)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if _, err := migrate.Migrate(f, &out, session.DefaultLimits()); err != nil {
		t.Logf("pi %s: migrate refuses the file (%v): only the in-memory migration is compared", name, err)
	} else {
		var lines []json.RawMessage
		for _, l := range bytes.Split(out.Bytes(), []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines = append(lines, l)
			}
		}
		ours := canonicalRecords(lines)
		if len(ours) != len(theirs) {
			differ("migrate writes %d records, pi has %d", len(ours), len(theirs))
		}
		for i := range min(len(ours), len(theirs)) {
			if forgiveFirstKept(&ours[i], theirs[i], i) {
				t.Logf("pi %s: migration: record %d: pi drops a firstKeptEntryIndex it cannot resolve, migrate writes a firstKeptEntryId that keeps nothing as well (docs/migration.md)", name, i)
			}
			if !reflect.DeepEqual(ours[i].value, theirs[i].value) {
				differ("record %d: migrate writes\n %s\npi\n %s", i, excerptJSON(lines[i]), excerptJSON(piRecords[i]))
				break
			}
			if !reflect.DeepEqual(ours[i].keys, theirs[i].keys) {
				differ("record %d: key order %v, pi %v", i, ours[i].keys, theirs[i].keys)
				break
			}
		}
	}
	// Load: the entries, header and misplaced headers left out as pi does.
	var loaded, piEntries []json.RawMessage
	for _, e := range s.Entries {
		raw := recordJSON(e)
		loaded = append(loaded, raw)
	}
	for _, r := range piRecords[1:] {
		if typ, _ := rawString(memberValue(r, "type")); typ != "session" {
			piEntries = append(piEntries, r)
		}
	}
	ours, want := canonicalRecords(loaded), canonicalRecords(piEntries)
	if len(ours) != len(want) {
		differ("Load has %d entries, pi %d", len(ours), len(want))
	}
	for i := range min(len(ours), len(want)) {
		if !reflect.DeepEqual(ours[i].value, want[i].value) {
			differ("entry %d: Load has\n %s\npi\n %s", i, excerptJSON(loaded[i]), excerptJSON(piEntries[i]))
			break
		}
	}
	return same
}

// compareRewrite compares the file pi 1.6.0's SessionManager.open wrote
// when it migrated a copy of a version-1/2 file with the records
// migrate.Migrate writes (compareMigration without Load's entries): the
// file migrate leaves is the file pi would have left, random ids aside.
func compareRewrite(t *testing.T, path string, rewritten json.RawMessage, st *conformanceStats) {
	t.Helper()
	var records []json.RawMessage
	if err := json.Unmarshal(rewritten, &records); err != nil {
		t.Errorf("pi %s open(): no rewrite to compare: %s", pi16, rewritten)
		return
	}
	st.rewrites++
	same := true
	differ := func(format string, args ...any) {
		t.Errorf("pi %s open(): "+format, append([]any{pi16}, args...)...)
		same = false
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if _, err := migrate.Migrate(f, &out, session.DefaultLimits()); err != nil {
		t.Logf("pi %s open(): migrate refuses the file (%v)", pi16, err)
		return
	}
	var lines []json.RawMessage // the records: pi's rewrite drops torn lines, migrate keeps them
	for _, l := range bytes.Split(out.Bytes(), []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 && json.Valid(l) {
			lines = append(lines, l)
		}
	}
	ours, theirs := canonicalRecords(lines), canonicalRecords(records)
	if len(ours) != len(theirs) {
		differ("migrate writes %d records, pi's open() %d", len(ours), len(theirs))
	}
	for i := range min(len(ours), len(theirs)) {
		forgiveFirstKept(&ours[i], theirs[i], i)
		if !reflect.DeepEqual(ours[i].value, theirs[i].value) || !reflect.DeepEqual(ours[i].keys, theirs[i].keys) {
			differ("record %d: migrate writes\n %s\npi's open()\n %s", i, excerptJSON(lines[i]), excerptJSON(records[i]))
			break
		}
	}
	if !same {
		st.rewriteDiff++
	}
}

// forgiveFirstKept removes from our record i the one documented difference
// of migrate's output (docs/migration.md): where pi's migration drops a
// compaction's firstKeptEntryIndex because it names a later record, the
// header or nothing, migrate writes the id of that later record or the
// compaction's own id. Either keeps nothing before the compaction, as pi's
// missing id does (the projections are compared anyway).
func forgiveFirstKept(ours *canonicalRecord, theirs canonicalRecord, i int) bool {
	if _, has := theirs.value["firstKeptEntryId"]; has || theirs.value["type"] != "compaction" {
		return false
	}
	ref, _ := ours.value["firstKeptEntryId"].(string)
	var j int
	if _, err := fmt.Sscanf(ref, "#%d", &j); err != nil || j < i {
		return false
	}
	delete(ours.value, "firstKeptEntryId")
	keys := ours.keys[:0:0]
	for _, k := range ours.keys {
		if k != "firstKeptEntryId" {
			keys = append(keys, k)
		}
	}
	ours.keys = keys
	return true
}

// canonicalRecord is a record decoded for comparison, with the ids that
// name a record replaced by "#index".
type canonicalRecord struct {
	value map[string]any
	keys  []string // top-level keys in order
}

func canonicalRecords(raws []json.RawMessage) []canonicalRecord {
	out := make([]canonicalRecord, len(raws))
	index := map[string]int{}
	for i, raw := range raws {
		_ = json.Unmarshal(raw, &out[i].value)
		out[i].keys = keysOf(raw)
		if id, ok := out[i].value["id"].(string); ok && out[i].value["type"] != "session" {
			index[id] = i
		}
	}
	for _, r := range out {
		if r.value["type"] == "session" {
			continue
		}
		for _, key := range []string{"id", "parentId", "firstKeptEntryId"} {
			if id, ok := r.value[key].(string); ok {
				if i, ok := index[id]; ok {
					r.value[key] = fmt.Sprintf("#%d", i)
				}
			}
		}
	}
	return out
}

// compareTree compares roots, children order and labels with pi's getTree.
func compareTree(t *testing.T, name string, s *Session, pi *piTree) {
	t.Helper()
	tree := s.Tree()
	if got := nodeIndices(tree.Roots); !reflect.DeepEqual(got, nonNil(pi.Roots)) {
		t.Errorf("pi %s: tree roots %v, pi %v", name, got, pi.Roots)
	}
	reached := 0
	tree.Walk(func(i, _ int) {
		reached++
		if got := nodeIndices(tree.Children(i)); !reflect.DeepEqual(got, nonNil(pi.Children[i])) {
			t.Errorf("pi %s: children of #%d: %v, pi %v", name, i, got, pi.Children[i])
		}
		var want string
		if l := pi.Labels[i]; l != nil {
			want = *l
		}
		label, has := s.Label(s.Entries[i].ID())
		if label != want || has != (pi.Labels[i] != nil) {
			t.Errorf("pi %s: label of #%d: %q, pi %v", name, i, label, pi.Labels[i])
		}
	})
	piReached := 0
	for _, c := range pi.Children {
		if c != nil {
			piReached++
		}
	}
	if reached != piReached || reached+len(tree.Detached) != len(s.Entries) {
		t.Errorf("pi %s: tree reaches %d entries (%d detached), pi %d", name, reached, len(tree.Detached), piReached)
	}
}

// compareLeaves checks that pi and we agree on which entries are leaves.
func compareLeaves(t *testing.T, name string, s *Session, pi *piFile) {
	t.Helper()
	var ours, theirs []int
	for _, e := range s.Leaves() {
		ours = append(ours, e.Index)
	}
	if d := s.DefaultLeaf(); d != nil && !contains(ours, d.Index) {
		ours = append(ours, d.Index)
	}
	for _, c := range pi.contexts {
		if c.Pi == name {
			theirs = append(theirs, c.LeafIndex)
		}
	}
	sort.Ints(ours)
	sort.Ints(theirs)
	if !reflect.DeepEqual(ours, theirs) {
		t.Errorf("pi %s: leaves %v, pi %v", name, ours, theirs)
	}
}

func nodeIndices(nodes []int32) []int {
	out := []int{}
	for _, n := range nodes {
		out = append(out, int(n))
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
