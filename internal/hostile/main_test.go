//go:build unix

package hostile

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The suite's knobs. Defaults keep `make test` fast; docs/reliability.md
// gives the values of the full run.
const (
	envLong   = "PISESS_HOSTILE_LONG"   // 1: the long run (more sources, every offset, more kills)
	envKills  = "PISESS_HOSTILE_KILLS"  // SIGKILLs per rewrite command (default 100; long 500)
	envStride = "PISESS_HOSTILE_STRIDE" // truncation step for the one-file views (default 8; long 1)
	envFlips  = "PISESS_HOSTILE_FLIPS"  // byte-flipped variants per source (default 150; long 2000)
	envReport = "PISESS_HOSTILE_REPORT" // write the figures as Markdown to this file
	envRSS    = "PISESS_HOSTILE_RSS_MIB"
	envTmp    = "PISESS_HOSTILE_TMPDIR" // scratch directory (default /dev/shm when present)
)

// size picks a budget by the run's size: -short, the default, or the long
// run (PISESS_HOSTILE_LONG=1).
func size[T any](short, def, long T) T {
	switch {
	case envInt(envLong, 0) == 1:
		return long
	case testing.Short():
		return short
	}
	return def
}

// useScratch points the temp directory (t.TempDir, os.MkdirTemp) at
// PISESS_HOSTILE_TMPDIR, else at /dev/shm when it is a writable tmpfs.
func useScratch() string {
	dir := os.Getenv(envTmp)
	if dir == "" {
		if info, err := os.Stat("/dev/shm"); err != nil || !info.IsDir() {
			return os.TempDir()
		}
		if probe, err := os.MkdirTemp("/dev/shm", "pisess-probe-"); err != nil {
			return os.TempDir()
		} else {
			os.Remove(probe)
		}
		dir = "/dev/shm"
	}
	os.Setenv("TMPDIR", dir)
	return dir
}

// progress logs a line a person watching `go test -v` can follow.
func progress(t testing.TB, format string, a ...any) {
	t.Helper()
	if testing.Verbose() {
		t.Logf(format, a...)
	}
}

// rssCap is the most memory (peak RSS) any single run may use.
func rssCap() int64 { return int64(envInt(envRSS, 512)) << 20 }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

// Commands are the pisess commands that read session files.
var commands = []string{"validate", "migrate", "repair", "tree", "path", "context", "audit"}

// suite is what every test shares: the binary, the declared codes and the
// tally of what was tried.
type suite struct {
	bin     string // the pisess binary
	work    string // scratch directory, removed at the end
	codes   map[string]bool
	missing map[string]string // command -> why it cannot be tested yet
	tally   tally
}

var the *suite

func TestMain(m *testing.M) {
	if os.Getenv(measureEnv) != "" {
		os.Exit(measure(os.Args[1:]))
	}
	flag.Parse() // testing.Short and testing.Verbose need the flags
	if err := setup(useScratch()); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
	code := m.Run()
	if peak := hwm(); peak > rssCap() {
		the.tally.note("the test process itself peaked at %d MiB, above the cap: direct runs' RSS figures (which include it) could not be held to the cap", peak>>20)
	}
	if code == 0 {
		if path := os.Getenv(envReport); path != "" {
			if err := os.WriteFile(path, []byte(the.tally.markdown()), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "hostile:", err)
				code = 1
			}
		}
		if testing.Verbose() {
			fmt.Print(the.tally.markdown())
		}
	}
	os.RemoveAll(the.work)
	os.Exit(code)
}

// fuzzing reports whether the test binary runs a fuzzer (or is one of its
// workers).
func fuzzing() bool {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.fuzz") {
			return true
		}
	}
	return false
}

// measureEnv makes the test binary a spawner (see measure).
const measureEnv = "PISESS_HOSTILE_MEASURE"

// measure runs argv with the spawner's standard streams, writes the
// child's peak RSS in bytes and the signal that killed it (0 if none) to
// file descriptor 3, and exits with the child's status.
//
// Why a spawner: Go starts children with vfork, and Linux folds the peak
// RSS of the memory the child shared until exec — the parent's — into the
// child's ru_maxrss. A direct child of the test process, which holds big
// outputs, reports at least the test process's own peak; a child of this
// small process reports its own.
func measure(argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, measureEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err := cmd.Run()
	ps := cmd.ProcessState
	if ps == nil {
		fmt.Fprintln(os.Stderr, "hostile spawner:", err)
		return 127
	}
	sig := 0
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig = int(ws.Signal())
	}
	report := os.NewFile(3, "report")
	fmt.Fprintf(report, "%d %d\n", ps.SysUsage().(*syscall.Rusage).Maxrss<<10, sig)
	report.Close()
	if sig != 0 {
		return 128 + sig
	}
	return ps.ExitCode()
}

// hwm is the test process's own peak RSS: a direct child's figure may be
// this much even if the child used less (see measure).
func hwm() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kib << 10
		}
	}
	return 0
}

// setup builds pisess (static, so no loader opens show up under strace)
// into a scratch directory every user can traverse (some runs drop root).
func setup(scratch string) error {
	work, err := os.MkdirTemp("", "pisess-hostile-")
	if err != nil {
		return err
	}
	if err := os.Chmod(work, 0o755); err != nil {
		return err
	}
	the = &suite{work: work, bin: filepath.Join(work, "pisess"), missing: map[string]string{}}
	the.tally.init()
	the.tally.note("scratch files in %s.", scratch)
	if os.Getenv(stackHelperEnv) != "" || fuzzing() {
		return nil // the in-process helper and the fuzzers need no binary
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	build := exec.Command(gobin, "build", "-o", the.bin, "../../cmd/pisess")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	if the.codes, err = declaredCodes(); err != nil {
		return err
	}
	for _, cmd := range commands {
		r := the.exec(context.Background(), nil, cmd, "--help")
		if r.code != 0 || strings.Contains(string(r.stdout), "not implemented") {
			the.missing[cmd] = "not implemented in this build"
		}
	}
	return nil
}

// declaredCodes reads every finding and refusal code the packages declare
// (constants of type Code in internal/finding and internal/safefile): a
// command must never print any other.
func declaredCodes() (map[string]bool, error) {
	codes := map[string]bool{}
	for _, file := range []string{"../finding/finding.go", "../safefile/errors.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok || spec.Type == nil || fmt.Sprint(spec.Type) != "Code" {
				return true
			}
			for _, v := range spec.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					codes[s] = true
				}
			}
			return true
		})
	}
	if len(codes) < 20 {
		return nil, fmt.Errorf("found only %d declared codes: has the layout of internal/finding changed?", len(codes))
	}
	return codes, nil
}

// run is one finished pisess run.
type run struct {
	args           []string
	stdout, stderr []byte
	code           int // exit code; -1 when killed by a signal
	signal         syscall.Signal
	rss            int64 // peak resident set size in bytes
	elapsed        time.Duration
	timedOut       bool
}

func (r run) String() string {
	return fmt.Sprintf("pisess %s: exit %d (%.2fs, %d MiB)\nstdout: %s\nstderr: %s",
		quoteArgs(r.args), r.code, r.elapsed.Seconds(), r.rss>>20, clip(r.stdout), clip(r.stderr))
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

func clip(b []byte) string {
	const max = 1500
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return strconv.Quote(string(b))
}

// exec runs the binary with args; cfg may adjust the command (user, dir).
func (s *suite) exec(ctx context.Context, cfg func(*exec.Cmd), args ...string) run {
	return s.execPrefix(ctx, cfg, nil, args...)
}

// execPrefix runs prefix (e.g. strace and its flags) followed by the
// binary and args.
func (s *suite) execPrefix(ctx context.Context, cfg func(*exec.Cmd), prefix []string, args ...string) run {
	return s.execFull(ctx, cfg, nil, prefix, args...)
}

// execFull is execPrefix that calls started once the process runs.
func (s *suite) execFull(ctx context.Context, cfg func(*exec.Cmd), started func(*os.Process), prefix []string, args ...string) run {
	return s.start(ctx, cfg, started, false, prefix, args...)
}

// measured runs the binary through the spawner, for a true peak RSS, with
// the checks of pisess.
func (s *suite) measured(t testing.TB, timeout time.Duration, want []int, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r := s.start(ctx, nil, nil, true, nil, args...)
	s.sane(t, r, want)
	return r
}

// start runs prefix, the binary and args (through the spawner when
// measure is set), in a process group of its own that is killed as a
// whole when ctx ends.
func (s *suite) start(ctx context.Context, cfg func(*exec.Cmd), started func(*os.Process), measure bool, prefix []string, args ...string) run {
	argv := append(append(append([]string{}, prefix...), s.bin), args...)
	if measure {
		argv = append([]string{os.Args[0]}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.work, "PI_CODING_AGENT_DIR=" + filepath.Join(s.work, "no-pi"), "NO_COLOR=1", "LC_ALL=C.UTF-8"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var report *os.File
	if measure {
		rd, wr, err := os.Pipe()
		if err != nil {
			panic(err)
		}
		defer rd.Close()
		report = rd
		cmd.ExtraFiles = []*os.File{wr}
		cmd.Env = append(cmd.Env, measureEnv+"=1")
		defer wr.Close()
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if cfg != nil {
		cfg(cmd)
	}
	start := time.Now()
	err := cmd.Start()
	if err == nil {
		if started != nil {
			started(cmd.Process)
		}
		err = cmd.Wait()
	}
	r := run{args: args, stdout: stdout.Bytes(), stderr: stderr.Bytes(), elapsed: time.Since(start)}
	r.timedOut = ctx.Err() != nil
	if ps := cmd.ProcessState; ps != nil {
		r.code = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = ws.Signal()
		}
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			r.rss = ru.Maxrss << 10 // KiB on Linux
		}
		if report != nil {
			r.rss, r.signal = 0, 0
			cmd.ExtraFiles[0].Close()
			var sig int
			if _, err := fmt.Fscan(report, &r.rss, &sig); err == nil && sig != 0 {
				r.signal, r.code = syscall.Signal(sig), -1
			}
		}
	} else if err != nil {
		r.code = -1
		r.stderr = append(r.stderr, []byte("\nexec: "+err.Error())...)
	}
	return r
}

// pisess runs the binary with a deadline and checks what must hold for
// every run: it ended by itself in time, within the memory cap, without a
// panic, with an exit code in want.
func (s *suite) pisess(t testing.TB, timeout time.Duration, want []int, args ...string) run {
	t.Helper()
	r, _ := s.try(t, timeout, want, args...)
	return r
}

// try is pisess that also reports whether the run was sane.
func (s *suite) try(t testing.TB, timeout time.Duration, want []int, args ...string) (run, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r := s.exec(ctx, nil, args...)
	return r, s.sane(t, r, want)
}

// sane checks a finished run.
func (s *suite) sane(t testing.TB, r run, want []int) bool {
	t.Helper()
	ok := true
	fail := func(format string, a ...any) {
		t.Errorf(format+"\n%s", append(a, r)...)
		ok = false
	}
	switch {
	case r.timedOut:
		fail("no hang: the run was stopped after %v", r.elapsed.Round(time.Millisecond))
	case r.signal != 0:
		fail("killed by signal %v", r.signal)
	case crashed(r.stderr):
		fail("no panic: stderr shows a crash")
	case !contains(want, r.code):
		fail("exit code %d, want one of %v", r.code, want)
	}
	// A direct child's figure includes the test process's own peak (see
	// measure): over the cap, it is the child's only if it is above that.
	if r.rss > rssCap() && r.rss > hwm() {
		fail("memory: peak RSS %d MiB, cap %d MiB", r.rss>>20, rssCap()>>20)
	}
	return ok
}

// crashed reports the marks of a Go panic or runtime failure.
func crashed(stderr []byte) bool {
	for _, mark := range []string{"panic:", "goroutine ", "fatal error:", "runtime error", "SIGSEGV"} {
		if bytes.Contains(stderr, []byte(mark)) {
			return true
		}
	}
	return false
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// available lists the commands this build has.
func (s *suite) available(cmds []string) []string {
	var out []string
	for _, c := range cmds {
		if _, missing := s.missing[c]; !missing {
			out = append(out, c)
		}
	}
	return out
}

// tally counts what the suite tried, for docs/reliability.md.
type tally struct {
	mu     sync.Mutex
	inputs map[string]int            // command -> inputs tried
	faults map[string]map[string]int // syscall -> where the fault landed -> count
	runs   map[string]int            // fault runs per syscall
	kills  map[string]map[string]int // command -> state the kill left -> count
	notes  []string
}

func (t *tally) init() {
	t.inputs, t.faults, t.runs, t.kills = map[string]int{}, map[string]map[string]int{}, map[string]int{}, map[string]map[string]int{}
}

func (t *tally) input(cmd string, n int) {
	t.mu.Lock()
	t.inputs[cmd] += n
	t.mu.Unlock()
}

func (t *tally) fault(syscall, where string) {
	t.mu.Lock()
	if t.faults[syscall] == nil {
		t.faults[syscall] = map[string]int{}
	}
	t.faults[syscall][where]++
	t.mu.Unlock()
}

func (t *tally) faultRun(syscall string) {
	t.mu.Lock()
	t.runs[syscall]++
	t.mu.Unlock()
}

func (t *tally) kill(cmd, state string) {
	t.mu.Lock()
	if t.kills[cmd] == nil {
		t.kills[cmd] = map[string]int{}
	}
	t.kills[cmd][state]++
	t.mu.Unlock()
}

func (t *tally) note(format string, a ...any) {
	t.mu.Lock()
	t.notes = append(t.notes, fmt.Sprintf(format, a...))
	t.mu.Unlock()
}

// markdown renders the tally as the tables of docs/reliability.md.
func (t *tally) markdown() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	b.WriteString("| command | inputs tried |\n|---|---:|\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "| `%s` | %d |\n", c, t.inputs[c])
	}
	b.WriteString("\n| syscall | runs | faults injected | where they landed |\n|---|---:|---:|---|\n")
	allRuns, allFaults := 0, 0
	for _, sc := range sortedKeys(t.runs) {
		total, where := 0, []string{}
		for _, w := range sortedKeys(t.faults[sc]) {
			total += t.faults[sc][w]
			where = append(where, fmt.Sprintf("%s %d", w, t.faults[sc][w]))
		}
		allRuns, allFaults = allRuns+t.runs[sc], allFaults+total
		fmt.Fprintf(&b, "| `%s` | %d | %d | %s |\n", sc, t.runs[sc], total, strings.Join(where, ", "))
	}
	fmt.Fprintf(&b, "| all | %d | %d | |\n", allRuns, allFaults)
	b.WriteString("\n| command | SIGKILLs | state the kill left |\n|---|---:|---|\n")
	for _, c := range sortedKeys(t.kills) {
		total, states := 0, []string{}
		for _, st := range sortedKeys(t.kills[c]) {
			total += t.kills[c][st]
			states = append(states, fmt.Sprintf("%s %d", st, t.kills[c][st]))
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", c, total, strings.Join(states, ", "))
	}
	if len(t.notes) > 0 {
		b.WriteString("\n")
		for _, n := range t.notes {
			b.WriteString("* " + n + "\n")
		}
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// realCorpus is the directory of real pi files, or "" when absent.
func realCorpus() string {
	dir := "../../../shared/corpus/real"
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// source reads a real session by name when the corpus is present, else
// the named file of testdata/corpus.
func source(t testing.TB, realName, fallback string) (string, []byte) {
	t.Helper()
	if dir := realCorpus(); dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, realName)); err == nil {
			return realName, b
		}
	}
	b, err := os.ReadFile(filepath.Join("../../testdata/corpus", fallback))
	if err != nil {
		t.Fatal(err)
	}
	return fallback, b
}

// write puts data in a new file dir/name and returns its path.
func write(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tempFiles lists the rewrite protocol's temp files left in dir.
func tempFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*pisess-tmp*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
