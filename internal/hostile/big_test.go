//go:build unix

package hostile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/cli"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/session"
)

// bigCases are the big structures: a 100,000-deep chain, 100,000 siblings,
// and a 100,000-long cycle of forward parentIds.
var bigCases = []struct {
	name  string
	gen   func(io.Writer, int) error
	valid bool
}{
	{"chain", Chain, true},
	{"siblings", Siblings, true},
	{"cycle", Cycle, false},
}

func writeBig(t testing.TB, dir, name string, gen func(io.Writer, int) error) string {
	t.Helper()
	path := filepath.Join(dir, name+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := gen(f, deep()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBigStructures runs every command on the big structures with a
// deadline and the memory cap: the views in text and JSON (every format
// of every command in the long run).
func TestBigStructures(t *testing.T) {
	t.Parallel()
	long := envInt(envLong, 0) == 1
	for _, bc := range bigCases {
		t.Run(bc.name, func(t *testing.T) {
			t.Parallel()
			path := writeBig(t, t.TempDir(), bc.name, bc.gen)
			orig, _ := os.ReadFile(path)
			invalid := map[bool]int{true: 0, false: 1}[bc.valid]
			const limit = 2 * time.Minute
			r := the.pisess(t, limit, []int{invalid}, "validate", "--format", "json", path)
			if !bc.valid && !bytes.Contains(r.stdout, []byte(`"forward_parent"`)) {
				t.Errorf("cycle: no forward_parent finding\n%s", r)
			}
			the.pisess(t, limit, []int{invalid}, "audit", "--format", "json", path)
			// A version-3 file has nothing to migrate: unchanged whatever
			// its errors; --strict refuses an invalid one.
			the.pisess(t, limit, []int{0}, "migrate", "--backup", path)
			the.pisess(t, limit, []int{invalid}, "migrate", "--strict", "--backup", path)
			the.pisess(t, limit, []int{0}, "repair", "--backup", path)
			if long {
				the.pisess(t, limit, []int{invalid}, "validate", path)
				the.pisess(t, limit, []int{invalid}, "audit", "--by", "day", path)
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
				t.Errorf("migrate/repair changed a file that needs nothing")
			}
			for _, c := range []string{"validate", "audit", "migrate", "repair"} {
				the.tally.input(c, 1)
			}
			for i, view := range the.available([]string{"tree", "path", "context"}) {
				for j, format := range []string{"text", "json"} {
					if !long && (i+j)%2 == 1 {
						continue // tree text, path json, context text
					}
					r := the.checkView(t, view, format, nil, path)
					// A linear run stays at one indentation: output grows
					// linearly with the entries, never quadratically.
					if max := 400 * (deep() + 1); len(r.stdout) > max {
						t.Errorf("%s --format %s: %d bytes of output for %d entries", view, format, len(r.stdout), deep())
					}
				}
				the.tally.input(view, 1)
			}
		})
	}
}

// stackHelperEnv makes the test binary run pisess in-process with a small
// stack (see TestDeepInputsNeedNoDeepStack).
const stackHelperEnv = "PISESS_HOSTILE_STACK_HELPER"

// smallStack is the most stack any goroutine may use in the helper: what
// a C program gets by default. Recursion as deep as the inputs (100,000
// levels) overflows it; a loop does not.
const smallStack = 8 << 20

// TestDeepInputsNeedNoDeepStack runs the commands in-process, with the
// stack of every goroutine capped at 8 MiB, on the 100,000-deep chain and
// the deeply nested inputs (also the cycle and the siblings in the long
// run). Go's own stacks grow
// to 1 GiB, so recursion over 100,000 levels would pass the binary runs;
// here it is a fatal "stack exceeds limit" of the helper process.
func TestDeepInputsNeedNoDeepStack(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 100,000-deep inputs run in the default and long runs")
	}
	t.Parallel()
	dir := t.TempDir()
	var files []string
	for _, bc := range bigCases {
		if bc.name == "chain" || envInt(envLong, 0) == 1 { // the deep one
			files = append(files, writeBig(t, dir, bc.name, bc.gen))
		}
	}
	for _, in := range Catalogue() {
		if strings.HasPrefix(in.Name, "deep-") {
			files = append(files, write(t, dir, in.Name+".jsonl", in.Data))
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStackHelper$", "-test.v")
	cmd.Env = append(os.Environ(), stackHelperEnv+"="+strings.Join(files, string(os.PathListSeparator)))
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("stack helper: done")) {
		t.Fatalf("in-process run with a %d MiB stack failed: %v\n%s", smallStack>>20, err, tail(out, 4000))
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// TestStackHelper is the child of TestDeepInputsNeedNoDeepStack.
func TestStackHelper(t *testing.T) {
	files := os.Getenv(stackHelperEnv)
	if files == "" {
		t.Skip("helper process of TestDeepInputsNeedNoDeepStack")
	}
	debug.SetMaxStack(smallStack)
	for _, file := range filepath.SplitList(files) {
		runs := [][]string{{"validate", "--format", "json"}, {"tree"}, {"tree", "--format", "json"}, {"path"}, {"context", "--format", "json"}}
		if strings.HasPrefix(filepath.Base(file), "deep-") || envInt(envLong, 0) == 1 {
			runs = append(runs, []string{"validate"}, []string{"audit", "--format", "json"}, []string{"audit"},
				[]string{"migrate", "--dry-run"}, []string{"repair", "--dry-run"},
				[]string{"path", "--format", "json"}, []string{"context"})
		}
		for _, args := range runs {
			if _, missing := the.missing[args[0]]; missing {
				continue
			}
			var stdout, stderr bytes.Buffer
			c := &cli.CLI{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
				Getenv: func(string) string { return "" }, IsTerminal: func(io.Writer) bool { return false }}
			code := c.Run(append(append([]string{"pisess"}, args...), file))
			fmt.Printf("stack helper: %s %s: exit %d, %d bytes\n", strings.Join(args, " "), filepath.Base(file), code, stdout.Len())
		}
	}
	// The library entry points the commands do not reach with a dry run.
	for _, file := range filepath.SplitList(files) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = migrate.Repair(bytes.NewReader(data), io.Discard, migrate.RepairOptions{ZeroTail: true, Limits: session.DefaultLimits()})
		_, _ = migrate.Migrate(bytes.NewReader(data), io.Discard, session.DefaultLimits())
	}
	fmt.Println("stack helper: done")
}

// gib is the length of the endless line.
const gib = 1 << 30

// TestGiBLine: a 1 GiB line without a newline (a sparse file: it takes no
// disk and is never held in memory by the test) through every command at
// the default line limit (the reader keeps up to 256 MiB of a line before
// it gives up on it), and with a small limit; and a 1 GiB run of NUL
// bytes after the last line, which `repair --zero-tail` cuts. Peak RSS is
// measured through the spawner (see measure) and reported.
func TestGiBLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads many GiB")
	}
	t.Parallel()
	dir := t.TempDir()
	head := append(Base(), `{"type":"custom","id":"ffff0009","parentId":"0000000e",`+stamp+`,"customType":"x","data":"`...)
	line := filepath.Join(dir, "gib-line.jsonl")
	if err := WriteSparse(line, append(head, strings.Repeat("A", 1<<16)...), gib); err != nil {
		t.Fatal(err)
	}
	zeros := filepath.Join(dir, "gib-zero-tail.jsonl")
	if err := WriteSparse(zeros, Base(), gib); err != nil {
		t.Fatal(err)
	}
	const limit = 3 * time.Minute
	peak := map[string]int64{}
	orig := fileSum(t, line)
	for _, c := range the.available(commands) {
		var r run
		switch c {
		case "tree", "path", "context":
			r = the.measured(t, limit, []int{0}, c, line)
			if !bytes.Contains(r.stderr, []byte("no entry")) {
				t.Errorf("%s: no warning about the line it skipped\n%s", c, r)
			}
		default:
			r = the.measured(t, limit, []int{1}, c, "--format", "json", line)
			if !bytes.Contains(r.stdout, []byte("line_too_long")) {
				t.Errorf("%s: no line_too_long\n%s", c, r)
			}
		}
		peak["default limit"] = max(peak["default limit"], r.rss)
		the.tally.input(c, 1)
		if c != "validate" && c != "tree" && envInt(envLong, 0) == 0 {
			continue
		}
		// With a small limit the line costs next to nothing.
		r = the.measured(t, limit, []int{0, 1}, c, "--max-line-bytes", "65536", line)
		if r.rss > 64<<20 {
			t.Errorf("%s --max-line-bytes 65536: peak RSS %d MiB for a 1 GiB line", c, r.rss>>20)
		}
		peak["--max-line-bytes 65536"] = max(peak["--max-line-bytes 65536"], r.rss)
		the.tally.input(c, 1)
	}
	if fileSum(t, line) != orig {
		t.Fatalf("%s changed", line)
	}
	r := the.measured(t, limit, []int{1}, "validate", "--format", "json", zeros)
	if !bytes.Contains(r.stdout, []byte(`"zero_fill"`)) {
		t.Errorf("validate: a 1 GiB run of NULs is not zero_fill\n%s", r)
	}
	peak["default limit"] = max(peak["default limit"], r.rss)
	// repair --zero-tail cuts the 1 GiB of NULs: what is left is the
	// session, byte for byte; the backup is the whole original.
	r = the.measured(t, limit, []int{0}, "repair", "--zero-tail", "--backup", "--format", "json", zeros)
	peak["default limit"] = max(peak["default limit"], r.rss)
	if got, _ := os.ReadFile(zeros); !bytes.Equal(got, Base()) {
		t.Errorf("repair --zero-tail left %d bytes, want the %d of the session\n%s", len(got), len(Base()), r)
	}
	if info, err := os.Stat(zeros + ".bak"); err != nil || info.Size() != gib {
		t.Errorf("repair --zero-tail --backup: backup %v, %v", info, err)
	}
	the.tally.input("validate", 1)
	the.tally.input("repair", 1)
	for _, k := range sortedKeys(peak) {
		the.tally.note("1 GiB line, %s: highest peak RSS of any command %d MiB (cap %d MiB).", k, peak[k]>>20, rssCap()>>20)
	}
}

// fileSum is a cheap identity of a big file: size and modification time.
func fileSum(t testing.TB, path string) string {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(info.Size(), info.ModTime().UnixNano())
}

// TestEndlessLineInBoundedMemory streams a 1 GiB line from a generator
// through the reader, the repairer and the migrator in-process: with a
// small limit they allocate a small fraction of it.
func TestEndlessLineInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 3 GiB")
	}
	limits := session.Limits{MaxLineBytes: 1 << 20}
	head := append([]byte(Header(3)+"\n"), `{"type":"custom","data":"`...)
	for _, tt := range []struct {
		name string
		run  func(io.Reader) error
	}{
		{"parse", func(r io.Reader) error {
			rd := session.NewReader(r, limits)
			for rd.Next() {
			}
			if l := rd.Line(); l.Code != "line_too_long" {
				return fmt.Errorf("last line %d: class %v code %q, want line_too_long", l.Num, l.Class, l.Code)
			}
			return rd.Err()
		}},
		{"repair", func(r io.Reader) error {
			_, err := migrate.Repair(r, io.Discard, migrate.RepairOptions{Limits: limits})
			if err == nil {
				return fmt.Errorf("repair accepted a line over the limit")
			}
			return nil
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			if err := tt.run(LongLine(head, 'x', gib)); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("allocated %d MiB to read a 1 GiB line with a 1 MiB limit", alloc>>20)
			}
		})
	}
}
