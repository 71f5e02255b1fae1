//go:build unix

package hostile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/cli"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// isRefusal reports whether a migrate/repair code is a refusal that
// protects data (exit 1) rather than an I/O failure (exit 2), which no
// file content may cause.
func isRefusal(code string) bool {
	return (&safefile.Error{Code: safefile.Code(code)}).ExitCode() == cli.ExitInvalid
}

// batch is a set of hostile inputs written as files of one directory, so
// the commands that take many files check them all in one run.
type batch struct {
	name  string
	flags []string
	files map[string][]byte // file name -> content
}

// newBatches groups inputs by their flags.
func newBatches(name string, inputs []Input) []*batch {
	byFlags := map[string]*batch{}
	var out []*batch
	for _, in := range inputs {
		key := strings.Join(in.Flags, " ")
		b := byFlags[key]
		if b == nil {
			b = &batch{name: name, flags: in.Flags, files: map[string][]byte{}}
			byFlags[key] = b
			out = append(out, b)
		}
		b.files[in.Name+".jsonl"] = in.Data
	}
	return out
}

// materialise writes the batch's files into a new directory.
func (b *batch) materialise(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), b.name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range b.files {
		write(t, dir, name, data)
	}
	return dir
}

// depth says how thoroughly a batch is checked.
type depth struct {
	viewStride int  // run the one-file views on every viewStride-th file (0: none)
	formats    bool // also every other output format (text, github, table, csv, --by)
}

// checkBatch runs every command on the batch: the many-file commands once
// on the whole directory, the one-file views on every viewStride-th file.
func (s *suite) checkBatch(t *testing.T, b *batch, d depth) {
	t.Helper()
	s.checkValidate(t, b, d.formats)
	s.checkAudit(t, b, d.formats)
	s.checkRewrite(t, b, "migrate")
	s.checkRewrite(t, b, "repair")
	s.checkViews(t, b, d.viewStride)
	s.checkDu(t, b)
}

// timeoutFor bounds a run over n files.
func timeoutFor(n int) time.Duration { return 60*time.Second + time.Duration(n)*20*time.Millisecond }

// jsonLines decodes a run's JSON Lines output.
func jsonLines(t testing.TB, r run) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(r.stdout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("stdout is not JSON Lines: %v: %q\n%s", err, sc.Bytes(), r)
		}
		out = append(out, v)
	}
	return out
}

// codesKnown fails for a finding code no package declares.
func (s *suite) codesKnown(t testing.TB, file string, obj map[string]any) {
	t.Helper()
	fs, _ := obj["findings"].([]any)
	for _, f := range fs {
		code, _ := f.(map[string]any)["code"].(string)
		if !s.codes[code] {
			t.Errorf("%s: finding code %q is not declared in internal/finding", file, code)
		}
	}
}

// isolate runs a failing many-file command again on each file alone, to
// name the inputs that fail.
func (s *suite) isolate(t *testing.T, dir string, args []string, want []int) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	bad := 0
	for _, e := range ents {
		if bad == 5 {
			t.Errorf("(more inputs may fail; stopped after 5)")
			return
		}
		if _, ok := s.try(t, timeoutFor(1), want, append(args, filepath.Join(dir, e.Name()))...); !ok {
			bad++
		}
	}
}

func (s *suite) checkValidate(t *testing.T, b *batch, formats bool) {
	dir := b.materialise(t)
	args := append([]string{"validate", "--format", "json", "--jobs", "1"}, b.flags...)
	r, ok := s.try(t, timeoutFor(len(b.files)), []int{0, 1}, append(args, dir)...)
	if !ok {
		s.isolate(t, dir, args, []int{0, 1})
		return
	}
	s.tally.input("validate", len(b.files))
	reports := jsonLines(t, r)
	if len(reports) != len(b.files) {
		t.Errorf("validate: %d reports for %d files\n%s", len(reports), len(b.files), r)
	}
	invalid := false
	for _, rep := range reports {
		file, _ := rep["file"].(string)
		switch rep["status"] {
		case "valid", "tolerated":
		case "invalid":
			invalid = true
		default:
			t.Errorf("%s: status %v", file, rep["status"])
		}
		s.codesKnown(t, file, rep)
	}
	if want := map[bool]int{false: 0, true: 1}[invalid]; r.code != want {
		t.Errorf("validate: exit %d, want %d (a file is invalid: %v)", r.code, want, invalid)
	}
	// The same findings whatever the parallelism, and in every format.
	par := s.pisess(t, timeoutFor(len(b.files)), []int{r.code}, append([]string{"validate", "--format", "json", "--jobs", "4"}, append(b.flags, dir)...)...)
	if !bytes.Equal(par.stdout, r.stdout) {
		t.Errorf("validate --jobs 4 differs from --jobs 1")
	}
	if !formats {
		return
	}
	for _, format := range []string{"text", "github"} {
		s.pisess(t, timeoutFor(len(b.files)), []int{r.code}, append([]string{"validate", "--format", format}, append(b.flags, dir)...)...)
	}
	s.pisess(t, timeoutFor(len(b.files)), []int{0, 1}, append([]string{"validate", "--strict", "--no-schema", "--require-version", "3"}, append(b.flags, dir)...)...)
}

func (s *suite) checkAudit(t *testing.T, b *batch, formats bool) {
	dir := b.materialise(t)
	args := append([]string{"audit", "--format", "json"}, b.flags...)
	r, ok := s.try(t, timeoutFor(len(b.files)), []int{0, 1}, append(args, dir)...)
	if !ok {
		s.isolate(t, dir, args, []int{0, 1})
		return
	}
	s.tally.input("audit", len(b.files))
	lines := jsonLines(t, r)
	if len(lines) != len(b.files)+1 {
		t.Fatalf("audit: %d lines for %d files (+ summary)\n%s", len(lines), len(b.files), r)
	}
	corrupt := false
	verdicts := map[any]bool{"ok": true, "needs-migration": true, "repairable": true, "corrupt": true, "too-new": true, "not-a-session": true}
	for _, rec := range lines[:len(lines)-1] {
		file, _ := rec["file"].(string)
		if !verdicts[rec["verdict"]] {
			t.Errorf("%s: verdict %v", file, rec["verdict"])
		}
		corrupt = corrupt || rec["verdict"] == "corrupt"
		s.codesKnown(t, file, rec)
	}
	if _, ok := lines[len(lines)-1]["summary"]; !ok {
		t.Errorf("audit: last line is not the summary: %v", lines[len(lines)-1])
	}
	if want := map[bool]int{false: 0, true: 1}[corrupt]; r.code != want {
		t.Errorf("audit: exit %d, want %d", r.code, want)
	}
	if !formats {
		return
	}
	for _, format := range []string{"table", "csv"} {
		s.pisess(t, timeoutFor(len(b.files)), []int{r.code}, append([]string{"audit", "--format", format}, append(b.flags, dir)...)...)
	}
	for _, by := range []string{"project", "model", "day"} {
		s.pisess(t, timeoutFor(len(b.files)), []int{r.code}, append([]string{"audit", "--by", by}, append(b.flags, dir)...)...)
	}
}

// checkRewrite runs migrate or repair --backup on the batch: a file that
// was not rewritten is byte-identical and has no backup; one that was is
// a clean new generation with a byte-identical backup; no temp file is
// left; a second run rewrites nothing.
func (s *suite) checkRewrite(t *testing.T, b *batch, cmd string) {
	dir := b.materialise(t)
	extra := []string{}
	if cmd == "repair" {
		extra = []string{"--zero-tail"}
	}
	args := append(append([]string{cmd, "--format", "json", "--backup"}, extra...), b.flags...)
	r, ok := s.try(t, timeoutFor(len(b.files)), []int{0, 1}, append(args, dir)...)
	if !ok {
		s.isolate(t, b.materialise(t), args, []int{0, 1})
		return
	}
	s.tally.input(cmd, len(b.files))
	results := jsonLines(t, r)
	if len(results) != len(b.files) {
		t.Fatalf("%s: %d results for %d files\n%s", cmd, len(results), len(b.files), r)
	}
	done := map[string]string{"migrate": "migrated", "repair": "repaired"}[cmd]
	refused := false
	var rewritten, backups []string
	for _, res := range results {
		file, _ := res["file"].(string)
		name := filepath.Base(file)
		orig, ok := b.files[name]
		if !ok {
			t.Errorf("%s: result for unknown file %q", cmd, file)
			continue
		}
		now, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		backup, _ := res["backup"].(string)
		switch res["action"] {
		case done:
			rewritten = append(rewritten, file)
			backups = append(backups, backup)
			s.checkNewGeneration(t, cmd, file, orig, now, backup)
		case "unchanged", "refused":
			if !bytes.Equal(now, orig) {
				t.Errorf("%s %s: action %v but the file changed", cmd, name, res["action"])
			}
			if backup != "" {
				t.Errorf("%s %s: action %v but backup %q", cmd, name, res["action"], backup)
			}
			if res["action"] == "refused" {
				refused = true
				code, _ := res["code"].(string)
				if !isRefusal(code) {
					t.Errorf("%s %s: refused with %q: file content must be refused with a refusal code (exit 1), not an I/O code: %v", cmd, name, code, res["reason"])
				}
			}
		default:
			t.Errorf("%s %s: action %v", cmd, name, res["action"])
		}
	}
	if want := map[bool]int{false: 0, true: 1}[refused]; r.code != want {
		t.Errorf("%s: exit %d, want %d", cmd, r.code, want)
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("%s left temp files: %v", cmd, left)
	}
	if cmd == "migrate" && len(rewritten) > 0 {
		s.checkMigratedStatus(t, b, rewritten, backups)
	}
	again := s.pisess(t, timeoutFor(len(b.files)), []int{r.code}, append(append([]string{cmd, "--format", "json"}, extra...), append(b.flags, dir)...)...)
	for _, res := range jsonLines(t, again) {
		if res["action"] == done {
			t.Errorf("%s is not idempotent: %v was rewritten again", cmd, res["file"])
		}
	}
}

// checkMigratedStatus: every migrated file validates as version 3 with
// the status its original (the backup) has: a valid file stays valid, one
// migrate took with only warnings (a torn line, no final newline) is
// tolerated as before, and one it took with errors in its entries (as pi
// 1.6.0 takes it) is invalid as before, or better where the migration
// itself removed the error (a firstKeptEntryIndex that is no index).
func (s *suite) checkMigratedStatus(t *testing.T, b *batch, rewritten, backups []string) {
	t.Helper()
	validate := func(version string, files []string) []map[string]any {
		args := append([]string{"validate", "--format", "json"}, b.flags...)
		if version != "" {
			args = append(args, "--require-version", version)
		}
		// exit 1 when an original was invalid: the statuses are compared file by file
		return jsonLines(t, s.pisess(t, timeoutFor(len(files)), []int{0, 1}, append(args, files...)...))
	}
	now, before := validate("3", rewritten), validate("", backups)
	if len(now) != len(rewritten) || len(before) != len(backups) {
		t.Fatalf("migrate: %d/%d reports for %d migrated files and their backups", len(now), len(before), len(rewritten))
	}
	for i, rep := range now {
		if rep["status"] != before[i]["status"] && before[i]["status"] != "invalid" || rep["version"] != float64(3) {
			t.Errorf("migrated %v: status %v, version %v; its original (%v) was %v", rep["file"], rep["status"], rep["version"], before[i]["file"], before[i]["status"])
		}
	}
}

// checkNewGeneration checks a file migrate or repair says it rewrote.
func (s *suite) checkNewGeneration(t *testing.T, cmd, file string, orig, now []byte, backup string) {
	t.Helper()
	if bytes.Equal(now, orig) {
		t.Errorf("%s %s: reported rewritten, but the bytes did not change", cmd, file)
	}
	if backup == "" {
		t.Errorf("%s %s: --backup made no backup", cmd, file)
	} else if old, err := os.ReadFile(backup); err != nil || !bytes.Equal(old, orig) {
		t.Errorf("%s %s: the backup %s is not byte-identical to the original (%v)", cmd, file, backup, err)
	}
	if cmd == "repair" {
		if problem := parseProblem(now); problem != "" {
			t.Errorf("repaired %s still has %s", file, problem)
		}
	}
}

// parseProblem returns the first parse-level problem a repaired file must
// not have: anything but complete objects ending in a newline and blank
// lines (a warning, which repair leaves alone).
func parseProblem(data []byte) string { return parseProblemWith(data, session.DefaultLimits()) }

// parseProblemWith is parseProblem with other limits.
func parseProblemWith(data []byte, limits session.Limits) string {
	rd := session.NewReader(bytes.NewReader(data), limits)
	for rd.Next() {
		l := rd.Line()
		if (l.Class != session.Object && l.Class != session.Blank) || (l.Class == session.Object && !l.Newline) {
			f, _ := l.Finding()
			return string(f.Code) + " on line " + strconv.Itoa(l.Num)
		}
	}
	if rd.Err() != nil {
		return rd.Err().Error()
	}
	return ""
}

// checkViews runs tree, path and context (text and JSON) on every
// stride-th file: exit 0 with output, or 1 with nothing on stdout.
func (s *suite) checkViews(t *testing.T, b *batch, stride int) {
	views := s.available([]string{"tree", "path", "context"})
	if len(views) == 0 || stride < 1 {
		return
	}
	dir := b.materialise(t)
	names := make([]string, 0, len(b.files))
	for name := range b.files {
		names = append(names, name)
	}
	sort.Strings(names)
	var picked []string
	for i := 0; i < len(names); i += stride {
		picked = append(picked, names[i])
	}
	parallel(len(picked)*len(views), func(i int) {
		file, view := filepath.Join(dir, picked[i/len(views)]), views[i%len(views)]
		format := []string{"text", "json"}[(i/len(views))%2]
		s.checkView(t, view, format, b.flags, file)
	})
	for _, v := range views {
		s.tally.input(v, len(picked))
	}
}

// checkView runs one view on one file.
func (s *suite) checkView(t testing.TB, view, format string, flags []string, file string) run {
	t.Helper()
	args := append(append([]string{view, "--format", format}, flags...), file)
	r := s.pisess(t, 60*time.Second, []int{0, 1}, args...)
	switch {
	case r.code == 1 && len(r.stdout) > 0:
		t.Errorf("%s failed but wrote to stdout\n%s", view, r)
	case r.code == 0 && format == "json" && !oneObject(r.stdout):
		t.Errorf("%s --format json: stdout is not one JSON document\n%s", view, r)
	}
	return r
}

// parallel runs work(0..n-1) on as many goroutines as there are CPUs.
func parallel(n int, work func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				work(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// oneObject reports whether b is one JSON object and a newline. (The
// non-recursive classifier, not encoding/json, which stops at 10,000
// levels of nesting.)
func oneObject(b []byte) bool {
	var c session.Classifier
	line, ok := bytes.CutSuffix(b, []byte("\n"))
	return ok && c.Classify(line, false).Class == session.Object
}
