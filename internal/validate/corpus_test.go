package validate

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// corpusDir holds our hand-written sessions (testdata/corpus/README.md).
const corpusDir = "../../testdata/corpus"

// want is the parsed sidecar NAME.want of a corpus file NAME.jsonl:
//
//	# flags: --max-line-bytes 300 --require-version 3
//	# kind: too-new
//	# any other comment
//	LINE CODE POINTER      (POINTER "-" = the whole line)
type want struct {
	opts     Options
	kind     Kind // "" = not checked (valid/ and tolerated/ always expect Session)
	findings []key
}

// key is what a finding is compared by.
type key struct {
	line    int
	code    finding.Code
	pointer string
}

func (k key) String() string {
	p := k.pointer
	if p == "" {
		p = "-"
	}
	return fmt.Sprintf("%d %s %s", k.line, k.code, p)
}

// TestCorpus validates every file of testdata/corpus and compares the
// findings with its .want sidecar, exactly: a missing finding and an
// unexpected one both fail.
//
//   - valid/: status valid, no errors; no findings besides its .want (the
//     needs_migration warning of v1/v2 files); no .want = no findings.
//   - tolerated/: a torn tail, a torn line or a missing final newline,
//     warnings only.
//   - other/: files that are not v1-v3 sessions; .want names the kind.
//   - invalid/: one file per finding code.
func TestCorpus(t *testing.T) {
	schemas, err := CompileSchemas()
	if err != nil {
		t.Fatalf("CompileSchemas: %v", err)
	}
	files := corpusFiles(t)
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			checkCorpusFile(t, rel, schemas)
		})
	}
}

func checkCorpusFile(t *testing.T, rel string, schemas *Schemas) {
	category, _, _ := strings.Cut(rel, "/")
	path := filepath.Join(corpusDir, filepath.FromSlash(rel))
	w, err := readWant(strings.TrimSuffix(path, ".jsonl")+".want", category == "valid" || category == "omp")
	if err != nil {
		t.Fatal(err)
	}
	w.opts.Schemas = schemas
	rep, err := File(path, w.opts)
	if err != nil {
		t.Fatalf("File: %v", err)
	}
	compareFindings(t, rep, w.findings)
	checkSeverities(t, rep, w.opts)
	if got, exp := rep.Status, expectedStatus(w.findings, w.opts, rep.Version); got != exp {
		t.Errorf("status %s, want %s", got, exp)
	}
	switch category {
	case "valid", "tolerated":
		if rep.Kind != Session {
			t.Errorf("kind %s, want %s", rep.Kind, Session)
		}
		if n := rep.Errors(); n != 0 {
			t.Errorf("%d errors in a %s/ file", n, category)
		}
	case "omp": // written by oh-my-pi's own code (docs/omp.md)
		if rep.Kind != Session || rep.Dialect != session.Omp || rep.Errors() != 0 {
			t.Errorf("kind %s, dialect %q, %d errors; want a session of dialect omp without errors", rep.Kind, rep.Dialect, rep.Errors())
		}
	case "other":
		if w.kind == "" {
			t.Fatalf("other/ files need a \"# kind:\" line in their .want")
		}
	case "invalid":
	default:
		t.Fatalf("unknown corpus category %q", category)
	}
	if w.kind != "" && rep.Kind != w.kind {
		t.Errorf("kind %s, want %s", rep.Kind, w.kind)
	}
}

// compareFindings fails on every expected finding that is missing and every
// reported finding that was not expected (as multisets, order-insensitive).
func compareFindings(t *testing.T, rep *Report, expected []key) {
	t.Helper()
	left := make(map[key]int)
	for _, k := range expected {
		left[k]++
	}
	var unexpected []string
	for _, f := range rep.Findings {
		k := key{line: f.Line, code: f.Code, pointer: f.Pointer}
		if left[k] > 0 {
			left[k]--
			continue
		}
		unexpected = append(unexpected, fmt.Sprintf("%s   (%s)", k, f))
	}
	var missing []string
	for k, n := range left {
		for ; n > 0; n-- {
			missing = append(missing, k.String())
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("missing finding: %s", m)
	}
	for _, u := range unexpected {
		t.Errorf("unexpected finding: %s", u)
	}
}

// warningCodes are the codes cli.md gives severity warning; every other
// code is an error. needs_migration is an error only under --require-version.
var warningCodes = map[finding.Code]bool{
	finding.PartialTail:           true,
	finding.TornLine:              true,
	finding.BlankLine:             true,
	finding.MissingFinalNewline:   true,
	finding.NeedsMigration:        true,
	finding.DanglingFirstKept:     true,
	finding.UnpairedToolInContext: true,
	finding.UnansweredToolCall:    true,
}

func expectedSeverity(code finding.Code, opts Options, version int) finding.Severity {
	if code == finding.NeedsMigration && opts.RequireVersion > version {
		return finding.Error
	}
	if warningCodes[code] {
		return finding.Warning
	}
	return finding.Error
}

// checkSeverities checks each finding's severity against cli.md's table.
func checkSeverities(t *testing.T, rep *Report, opts Options) {
	t.Helper()
	for _, f := range rep.Findings {
		if exp := expectedSeverity(f.Code, opts, rep.Version); f.Severity != exp {
			t.Errorf("%s has severity %s, want %s", f, f.Severity, exp)
		}
	}
}

// expectedStatus derives cli.md's status from the expected findings.
func expectedStatus(expected []key, opts Options, version int) Status {
	status := Valid
	for _, k := range expected {
		if expectedSeverity(k.code, opts, version) == finding.Error {
			return Invalid
		}
		if k.code == finding.PartialTail || k.code == finding.TornLine {
			status = Tolerated
		}
	}
	return status
}

// corpusFiles lists the corpus's .jsonl files as slash paths relative to
// corpusDir, and fails on a .want without its .jsonl.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(corpusDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(corpusDir, path)
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".jsonl":
			files = append(files, filepath.ToSlash(rel))
		case ".want":
			if _, err := os.Stat(strings.TrimSuffix(path, ".want") + ".jsonl"); err != nil {
				t.Errorf("%s has no .jsonl beside it", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the corpus: %v", err)
	}
	if len(files) == 0 {
		t.Fatalf("no .jsonl files under %s", corpusDir)
	}
	return files
}

// readWant parses a .want file. optional: a missing file means no findings.
func readWant(path string, optional bool) (*want, error) {
	w := &want{opts: Options{Limits: session.DefaultLimits()}}
	f, err := os.Open(path)
	if err != nil {
		if optional && os.IsNotExist(err) {
			return w, nil
		}
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if err := w.parseLine(strings.TrimSpace(sc.Text())); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return w, sc.Err()
}

func (w *want) parseLine(line string) error {
	if rest, ok := strings.CutPrefix(line, "#"); ok {
		rest = strings.TrimSpace(rest)
		if flags, ok := strings.CutPrefix(rest, "flags:"); ok {
			return w.parseFlags(strings.Fields(flags))
		}
		if kind, ok := strings.CutPrefix(rest, "kind:"); ok {
			w.kind = Kind(strings.TrimSpace(kind))
		}
		return nil // a comment
	}
	if line == "" {
		return nil
	}
	fields := strings.Fields(line)
	if len(fields) != 3 {
		return fmt.Errorf("want LINE CODE POINTER, got %q", line)
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil {
		return fmt.Errorf("bad line number %q", fields[0])
	}
	ptr := fields[2]
	if ptr == "-" {
		ptr = ""
	}
	w.findings = append(w.findings, key{line: n, code: finding.Code(fields[1]), pointer: ptr})
	return nil
}

// parseFlags reads the validate flags a corpus file needs.
func (w *want) parseFlags(args []string) error {
	if len(args)%2 != 0 {
		return fmt.Errorf("flags come in pairs: %q", args)
	}
	for i := 0; i < len(args); i += 2 {
		n, err := strconv.ParseInt(args[i+1], 10, 64)
		if err != nil {
			return fmt.Errorf("flag %s: %w", args[i], err)
		}
		switch args[i] {
		case "--max-line-bytes":
			w.opts.Limits.MaxLineBytes = int(n)
		case "--max-file-bytes":
			w.opts.Limits.MaxFileBytes = n
		case "--require-version":
			w.opts.RequireVersion = int(n)
		default:
			return fmt.Errorf("unknown flag %s", args[i])
		}
	}
	return nil
}

// TestCorpusCoversEveryCode checks that every finding code a session file
// can produce is expected by at least one corpus file.
func TestCorpusCoversEveryCode(t *testing.T) {
	codes := []finding.Code{
		finding.PartialTail, finding.TornLine, finding.BOM, finding.InvalidJSON, finding.InvalidUTF8, finding.TrailingData,
		finding.ConcatenatedObjects, finding.NotObject, finding.BlankLine, finding.MissingFinalNewline,
		finding.ZeroFill, finding.LineTooLong, finding.FileTooLarge,
		finding.MissingHeader, finding.MisplacedHeader, finding.UnsupportedVersion, finding.NeedsMigration,
		finding.NotASession, finding.UnknownEntryType,
		finding.Schema, finding.DuplicateID, finding.MissingParent, finding.ForwardParent, finding.SelfParent,
		finding.OrphanToolResult, finding.ToolNameMismatch, finding.DanglingReference,
		finding.ContextEditTarget, finding.DanglingFirstKept, finding.UnpairedToolInContext,
		finding.UnansweredToolCall,
	}
	covered := make(map[finding.Code]bool)
	for _, rel := range corpusFiles(t) {
		path := filepath.Join(corpusDir, filepath.FromSlash(rel))
		w, err := readWant(strings.TrimSuffix(path, ".jsonl")+".want", true)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range w.findings {
			covered[k.code] = true
		}
	}
	for _, c := range codes {
		if !covered[c] {
			t.Errorf("no corpus file expects %s", c)
		}
	}
}
