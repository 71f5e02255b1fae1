package validate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/session"
)

// longSession is a session whose entries 2, 4 and 5 carry text of n
// bytes: a valid user message, one with a schema error (content is no
// array of blocks), and a torn line in the middle of the file.
func longSession(n int) string {
	text := strings.Repeat("x", n)
	entry := func(id, parent, message string) string {
		return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-02T03:04:05.678Z","message":%s}`, id, parent, message)
	}
	user := func(text string) string {
		return fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1767323045678}`, text)
	}
	lines := []string{
		`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-00000000cafe","timestamp":"2026-01-02T03:04:05.678Z","cwd":"/p"}`,
		entry("00000001", "null", user("hello")),
		entry("00000002", `"00000001"`, user(text)),
		entry("00000003", `"00000002"`, user("short")),
		entry("00000004", `"00000003"`, fmt.Sprintf(`{"role":"user","content":%q,"timestamp":"not a number"}`, text)),
		entry("00000005", `"00000004"`, user(text))[:n/2], // torn
		entry("00000006", `"00000004"`, user(text)),
		entry("00000007", `"00000006"`, user("last")),
	}
	return strings.Join(lines, "\n") + "\n"
}

// Entries longer than a batch keeps are taken from the reader and
// inspected as batches of their own: the report is the one of the same
// file with short texts, however it is read and on any number of workers.
func TestLongLinesOwnBatches(t *testing.T) {
	schemas := compileForTest(t)
	validate := func(t *testing.T, input string, workers int, file bool) *Report {
		t.Helper()
		opts := Options{Limits: session.DefaultLimits(), Schemas: schemas, Workers: workers}
		var rep *Report
		var err error
		if file {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(input), 0o600); err != nil {
				t.Fatal(err)
			}
			rep, err = File(path, opts)
			rep.File = "f"
		} else {
			rep, err = Stream("f", strings.NewReader(input), opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		rep.Bytes = 0
		return rep
	}
	want := validate(t, longSession(400), 1, false)
	if len(want.Findings) < 2 {
		t.Fatalf("the short file has %d findings, want the schema error and the torn line: %v", len(want.Findings), want.Findings)
	}
	long := longSession(3 * keepBatchBytes)
	for _, workers := range []int{1, 2} {
		for _, file := range []bool{false, true} {
			got := validate(t, long, workers, file)
			for i := range got.Findings {
				got.Findings[i].Message = want.Findings[min(i, len(want.Findings)-1)].Message // sizes differ
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%d workers, file %v:\ngot  %+v\nwant %+v", workers, file, got, want)
			}
		}
	}
}

// A long entry of a file is held about once while it is validated: not
// again in the reader's pieces, nor copied into a batch.
func TestLongLineHeldOnce(t *testing.T) {
	const n = 32 << 20
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(longSession(n)), 0o600); err != nil {
		t.Fatal(err)
	}
	schemas := compileForTest(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rep, err := File(path, Options{Limits: session.DefaultLimits(), Schemas: schemas, Workers: 2})
	runtime.ReadMemStats(&after)
	if err != nil || rep.Entries != 6 {
		t.Fatalf("%v, %d entries", err, rep.Entries)
	}
	// Four long lines (the torn one is half as long), each read once, and
	// the one jsonschema explains not copied for it.
	if alloc, max := after.TotalAlloc-before.TotalAlloc, uint64(7*n/2+8<<20); alloc > max {
		t.Errorf("validating four lines of up to %d MiB allocated %d MiB, want at most %d", n>>20, alloc>>20, max>>20)
	}
}

// Once a file is validated, nothing of its long lines stays reachable:
// not in the batches kept for the next file (a line held there costs a
// migrate, which validates twice and reads three times, a second copy).
func TestLongLinesLetGo(t *testing.T) {
	const n = 16 << 20
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(longSession(n)), 0o600); err != nil {
		t.Fatal(err)
	}
	schemas := compileForTest(t)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, workers := range []int{1, 2} {
		before := heap()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Stream(path, f, Options{Limits: session.DefaultLimits(), Schemas: schemas, Workers: workers})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if after := heap(); after > before+n/2 {
			t.Errorf("%d workers: %d MiB still reachable after the file was validated", workers, (after-before)>>20)
		}
	}
}

// A long value is quoted in a message as a short one is, without quoting
// all of it first.
func TestQuoteValueLong(t *testing.T) {
	for _, s := range []string{strings.Repeat("x", 1000), strings.Repeat("é", 500), strings.Repeat("<&>", 300), "\xff" + strings.Repeat("a\n", 200), strings.Repeat("x", 121)} {
		b, _ := json.Marshal(s)
		n := quoteMax
		for n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		if got, want := quoteValue(s), string(b[:n])+"…"; got != want {
			t.Errorf("quoteValue(%.20q...) = %s, want %s", s, got, want)
		}
	}
}
