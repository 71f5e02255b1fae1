// Command runner times pisess validate against pi's own load path, ajv
// with pisess's schemas and jq on the same inputs, and on a set of one
// file the views (context, path, tree) beside validate and pi 1.6.0's own
// load + buildSessionContext, for `make bench`
// (bench/run.sh prepares the inputs and the tools; docs/performance.md
// explains the method and keeps the results).
//
// Every round runs each command of a set once, in an order rotated by one
// from round to round (A B C, B C A, C A B, ...), so that no command always
// runs first or after the same neighbour. Each run is timed by
// /usr/bin/time -f '%e %M' (wall seconds, peak RSS in KiB). The report
// gives per command the median wall time, its spread (min-max), the median
// peak RSS and the throughput, and per pair the ratio of the medians.
//
//	go run ./bench/runner -out bench/out -rounds 5 -set big500=bench/out/data/big500 ...
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "runner:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	out    string
	pisess string
	node   string
	rounds int
	before string // another pisess build to time beside this one, or ""
	only   string // time only the commands whose name starts with this
	sets   []inputSet
	rssOf  []inputSet // sets measured for peak RSS only (/usr/bin/time -v)
}

// inputSet is a named list of session files.
type inputSet struct {
	name  string
	files []string
	bytes int64
	views bool // one file, also timed with the views (-views)
}

type setFlag struct {
	sets  *[]inputSet
	views bool
}

func (f setFlag) String() string { return "" }

// Set reads NAME=PATH[,PATH...]; a directory stands for its *.jsonl files,
// and "top:N:DIR" for the N largest *.jsonl files of DIR.
func (f setFlag) Set(v string) error {
	name, paths, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want NAME=PATH[,PATH...], got %q", v)
	}
	s := inputSet{name: name, views: f.views}
	for _, p := range strings.Split(paths, ",") {
		files, err := expand(p)
		if err != nil {
			return err
		}
		s.files = append(s.files, files...)
	}
	if len(s.files) == 0 {
		return fmt.Errorf("set %s: no *.jsonl files", name)
	}
	if s.views && len(s.files) != 1 {
		return fmt.Errorf("views set %s: %d files, want one", name, len(s.files))
	}
	for _, file := range s.files {
		info, err := os.Stat(file)
		if err != nil {
			return err
		}
		s.bytes += info.Size()
	}
	*f.sets = append(*f.sets, s)
	return nil
}

// expand lists the session files a set argument names.
func expand(p string) ([]string, error) {
	if rest, ok := strings.CutPrefix(p, "top:"); ok {
		n, dir, ok := strings.Cut(rest, ":")
		count, err := strconv.Atoi(n)
		if !ok || err != nil {
			return nil, fmt.Errorf("want top:N:DIR, got %q", p)
		}
		files, err := expand(dir)
		if err != nil {
			return nil, err
		}
		sort.Slice(files, func(i, j int) bool { return size(files[i]) > size(files[j]) })
		return files[:min(count, len(files))], nil
	}
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			files = append(files, path)
		}
		return err
	})
	sort.Strings(files)
	return files, err
}

func size(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

func parseFlags() (config, error) {
	c := config{}
	flag.StringVar(&c.out, "out", "bench/out", "directory for results.tsv and results.md")
	flag.StringVar(&c.pisess, "pisess", "bench/out/pisess", "the pisess binary")
	flag.StringVar(&c.node, "node", "bench/node", "directory of the Node.js scripts (npm ci done)")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds per set")
	flag.StringVar(&c.before, "before", "", "another pisess binary (say, the previous commit's) timed beside -pisess")
	flag.StringVar(&c.only, "only", "", "time only the commands whose name starts with this (\"pisess\")")
	flag.Var(setFlag{sets: &c.sets}, "set", "NAME=PATH[,PATH...] (repeatable): an input set timed with every command")
	flag.Var(setFlag{sets: &c.sets, views: true}, "views", "NAME=FILE (repeatable): one session file timed with every command and the views (tree, path, context) and pi 1.6.0's own load")
	flag.Var(setFlag{sets: &c.rssOf}, "rss", "NAME=PATH: a set whose peak RSS pisess alone is measured (/usr/bin/time -v)")
	flag.Parse()
	if len(c.sets) == 0 && len(c.rssOf) == 0 {
		return c, errors.New("no -set")
	}
	return c, nil
}

// command is one tool's invocation on a set.
type command struct {
	name  string   // as the report shows it
	argv  []string // the files are appended
	okRC  []int    // exit codes that are not failures
	inner bool     // prints "ms T": its own time after startup
	one   bool     // takes one file: timed only on views sets
}

// commands are what every set is timed with. jobs is the CPU count.
func (c config) commands(jobs int) []command {
	node := func(script string) []string {
		return []string{"node", filepath.Join(c.node, script)}
	}
	j := strconv.Itoa(jobs)
	cmds := []command{
		{name: "pisess validate", argv: []string{c.pisess, "validate", "--format", "json", "--jobs", j}, okRC: []int{0, 1}},
		{name: "pisess validate --no-schema", argv: []string{c.pisess, "validate", "--no-schema", "--format", "json", "--jobs", j}, okRC: []int{0, 1}},
		{name: "pisess validate --jobs 1", argv: []string{c.pisess, "validate", "--format", "json", "--jobs", "1"}, okRC: []int{0, 1}},
		{name: "pisess validate --no-schema --jobs 1", argv: []string{c.pisess, "validate", "--no-schema", "--format", "json", "--jobs", "1"}, okRC: []int{0, 1}},
		{name: "pi load (Node.js)", argv: node("pi-load.mjs"), okRC: []int{0}, inner: true},
		{name: "ajv, our schemas (Node.js)", argv: node("ajv-validate.mjs"), okRC: []int{0}, inner: true},
		{name: "jq -c . (parse floor)", argv: []string{"jq", "-c", "."}, okRC: []int{0, 2, 5}},
		{name: "pisess context --format json", argv: []string{c.pisess, "context", "--format", "json"}, okRC: []int{0}, one: true},
		{name: "pisess context", argv: []string{c.pisess, "context"}, okRC: []int{0}, one: true},
		{name: "pisess path --format json", argv: []string{c.pisess, "path", "--format", "json"}, okRC: []int{0}, one: true},
		{name: "pisess path", argv: []string{c.pisess, "path"}, okRC: []int{0}, one: true},
		{name: "pisess tree --format json", argv: []string{c.pisess, "tree", "--format", "json"}, okRC: []int{0}, one: true},
		{name: "pisess tree", argv: []string{c.pisess, "tree"}, okRC: []int{0}, one: true},
		{name: "pisess tree --compact", argv: []string{c.pisess, "tree", "--compact"}, okRC: []int{0}, one: true},
		{name: "pi 1.6.0 load + buildSessionContext (Node.js)", argv: append(node("pi-load.mjs"), "--pi", "1.6.0"), okRC: []int{0}, inner: true, one: true},
	}
	if c.before != "" {
		cmds = append(cmds,
			command{name: "pisess validate (before)", argv: []string{c.before, "validate", "--format", "json", "--jobs", j}, okRC: []int{0, 1}},
			command{name: "pisess validate --jobs 1 (before)", argv: []string{c.before, "validate", "--format", "json", "--jobs", "1"}, okRC: []int{0, 1}})
	}
	var kept []command
	for _, cmd := range cmds {
		if strings.HasPrefix(cmd.name, c.only) {
			kept = append(kept, cmd)
		}
	}
	return kept
}

// sample is one timed run.
type sample struct {
	set, cmd string
	round    int
	wall     float64 // seconds
	rssKiB   int64
	innerMS  float64 // -1 when the command does not report it
	rc       int
}

func run() error {
	c, err := parseFlags()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	tsv, err := os.Create(filepath.Join(c.out, "results.tsv"))
	if err != nil {
		return err
	}
	defer tsv.Close()
	fmt.Fprintln(tsv, "set\tcommand\tround\twall_s\tpeak_rss_kib\tinner_ms\texit")
	var report strings.Builder
	header(&report, c)
	for _, s := range c.sets {
		samples, load, err := c.timeSet(s, tsv)
		if err != nil {
			return err
		}
		summarize(&report, s, c.commandsFor(s), samples, load)
	}
	for _, s := range c.rssOf {
		if err := c.rssSet(&report, s); err != nil {
			return err
		}
	}
	fmt.Print(report.String())
	return os.WriteFile(filepath.Join(c.out, "results.md"), []byte(report.String()), 0o644)
}

func header(w *strings.Builder, c config) {
	host, _ := os.Hostname()
	fmt.Fprintf(w, "# pisess benchmark, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(w, "Host %s: %d CPUs, %s; %s; %s; %s; node %s. %d rounds per set, commands interleaved (the order rotates by one each round).\n",
		host, runtime.NumCPU(), cpuModel(), memTotal(), runtime.Version(), version(c.pisess, "--version"), version("node", "--version"), c.rounds)
}

// commandsFor are the commands timed on set s: those that take one file
// only on a views set.
func (c config) commandsFor(s inputSet) []command {
	var out []command
	for _, cmd := range c.commands(runtime.NumCPU()) {
		if !cmd.one || s.views {
			out = append(out, cmd)
		}
	}
	return out
}

// timeSet runs the rounds of one set.
func (c config) timeSet(s inputSet, tsv *os.File) ([]sample, [2]string, error) {
	cmds := c.commandsFor(s)
	before, err := fingerprint(s.files)
	if err != nil {
		return nil, [2]string{}, err
	}
	warm(s.files)
	load := [2]string{loadavg(), ""}
	fmt.Fprintf(os.Stderr, "runner: %s: %d files, %.1f MB, %d rounds of %d commands (load %s)\n", s.name, len(s.files), float64(s.bytes)/1e6, c.rounds, len(cmds), load[0])
	var out []sample
	for r := 0; r < c.rounds; r++ {
		for i := range cmds {
			cmd := cmds[(i+r)%len(cmds)]
			smp, err := timeOne(cmd, s.files)
			if err != nil {
				return nil, load, fmt.Errorf("%s: %s: %w", s.name, cmd.name, err)
			}
			smp.set, smp.round = s.name, r+1
			out = append(out, smp)
			fmt.Fprintf(tsv, "%s\t%s\t%d\t%.3f\t%d\t%.1f\t%d\n", s.name, cmd.name, r+1, smp.wall, smp.rssKiB, smp.innerMS, smp.rc)
			fmt.Fprintf(os.Stderr, "runner:   round %d %-38s %7.2f s %7.1f MiB\n", r+1, cmd.name, smp.wall, float64(smp.rssKiB)/1024)
		}
	}
	load[1] = loadavg()
	after, err := fingerprint(s.files)
	if err != nil {
		return nil, load, err
	}
	if after != before {
		return nil, load, fmt.Errorf("set %s: an input file changed while it was timed", s.name)
	}
	return out, load, nil
}

// timeOne runs cmd on files under /usr/bin/time.
func timeOne(cmd command, files []string) (sample, error) {
	tf, err := os.CreateTemp("", "runner-time-*")
	if err != nil {
		return sample{}, err
	}
	tf.Close()
	defer os.Remove(tf.Name())
	args := append([]string{"-f", "%e %M", "-o", tf.Name()}, cmd.argv...)
	args = append(args, files...)
	x := exec.Command("/usr/bin/time", args...)
	var stdout, stderr strings.Builder
	x.Stdout, x.Stderr = &stdout, &stderr
	rc := 0
	if err := x.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return sample{}, err
		}
		rc = exit.ExitCode()
	}
	if !contains(cmd.okRC, rc) {
		return sample{}, fmt.Errorf("exit %d\n%s", rc, tail(stderr.String()))
	}
	timing, err := os.ReadFile(tf.Name())
	if err != nil {
		return sample{}, err
	}
	// With a non-zero exit, time writes "Command exited with non-zero status N" first.
	lines := strings.Split(strings.TrimSpace(string(timing)), "\n")
	var smp sample
	if _, err := fmt.Sscanf(lines[len(lines)-1], "%f %d", &smp.wall, &smp.rssKiB); err != nil {
		return sample{}, fmt.Errorf("reading /usr/bin/time output %q: %v", timing, err)
	}
	smp.cmd, smp.rc, smp.innerMS = cmd.name, rc, -1
	if cmd.inner {
		f := strings.Fields(stdout.String())
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "ms" {
				smp.innerMS, _ = strconv.ParseFloat(f[i+1], 64)
			}
		}
	}
	return smp, nil
}

// rssSet measures pisess's peak RSS on a set with /usr/bin/time -v.
func (c config) rssSet(w *strings.Builder, s inputSet) error {
	fmt.Fprintf(w, "\n## %s: peak RSS of pisess validate (%d file(s), %.1f MB)\n\n", s.name, len(s.files), float64(s.bytes)/1e6)
	fmt.Fprintf(w, "| command | wall (median) | peak RSS (median, max) |\n|---|---:|---:|\n")
	warm(s.files)
	for _, jobs := range []string{"1", "2"} {
		var walls []float64
		var rss []float64
		for r := 0; r < 3; r++ {
			args := append([]string{"-v", c.pisess, "validate", "--format", "json", "--jobs", jobs}, s.files...)
			x := exec.Command("/usr/bin/time", args...)
			var stderr strings.Builder
			x.Stderr = &stderr
			if err := x.Run(); err != nil {
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() > 1 {
					return fmt.Errorf("%s: %v\n%s", s.name, err, tail(stderr.String()))
				}
			}
			wall, kib := parseTimeV(stderr.String())
			walls, rss = append(walls, wall), append(rss, float64(kib)/1024)
			fmt.Fprintf(os.Stderr, "runner: %s --jobs %s: %.2f s, %.1f MiB\n", s.name, jobs, wall, float64(kib)/1024)
		}
		fmt.Fprintf(w, "| `/usr/bin/time -v pisess validate --format json --jobs %s` | %.2f s | %.1f MiB, %.1f MiB |\n", jobs, median(walls), median(rss), maxOf(rss))
	}
	return nil
}

// parseTimeV reads wall seconds and peak RSS (KiB) from time -v's report.
func parseTimeV(report string) (float64, int64) {
	var wall float64
	var kib int64
	sc := bufio.NewScanner(strings.NewReader(report))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "Maximum resident set size (kbytes): "); ok {
			kib, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "Elapsed (wall clock) time (h:mm:ss or m:ss): "); ok {
			parts := strings.Split(v, ":")
			for _, p := range parts {
				f, _ := strconv.ParseFloat(p, 64)
				wall = wall*60 + f
			}
		}
	}
	return wall, kib
}

// stats are one command's figures on a set.
type stats struct {
	wall, lo, hi, rss float64
	inner             string
}

func statsOf(name string, samples []sample) stats {
	var walls, rss, inner []float64
	for _, smp := range samples {
		if smp.cmd != name {
			continue
		}
		walls, rss = append(walls, smp.wall), append(rss, float64(smp.rssKiB)/1024)
		if smp.innerMS >= 0 {
			inner = append(inner, smp.innerMS/1000)
		}
	}
	st := stats{wall: median(walls), lo: minOf(walls), hi: maxOf(walls), rss: median(rss), inner: "-"}
	if len(inner) > 0 {
		st.inner = fmt.Sprintf("%.2f s", median(inner))
	}
	return st
}

// summarize writes a set's table.
func summarize(w *strings.Builder, s inputSet, cmds []command, samples []sample, load [2]string) {
	fmt.Fprintf(w, "\n## %s: %d file(s), %.1f MB\n\n", s.name, len(s.files), float64(s.bytes)/1e6)
	fmt.Fprintf(w, "Load average (1, 5, 15 min) before / after: %s / %s.\n\n", load[0], load[1])
	fmt.Fprintf(w, "| command | wall (median) | spread (min-max) | MB/s | peak RSS (median) | in-process (median) | ÷ `pisess validate` |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|\n")
	st := map[string]stats{}
	for _, c := range cmds {
		st[c.name] = statsOf(c.name, samples)
	}
	base := st["pisess validate"].wall
	for _, c := range cmds {
		x := st[c.name]
		rel := "-"
		if base > 0 {
			rel = fmt.Sprintf("%.2f", x.wall/base)
		}
		fmt.Fprintf(w, "| %s | %.2f s | %.2f-%.2f s | %.0f | %.1f MiB | %s | %s |\n",
			c.name, x.wall, x.lo, x.hi, float64(s.bytes)/1e6/x.wall, x.rss, x.inner, rel)
	}
	n := runtime.NumCPU()
	full, noSchema := st["pisess validate"].wall, st["pisess validate --no-schema"].wall
	var ratios []string
	add := func(format string, a, b float64) {
		if a > 0 && b > 0 {
			ratios = append(ratios, fmt.Sprintf(format, a/b))
		}
	}
	add("pisess validate ÷ pi load = **%.2f**", full, st["pi load (Node.js)"].wall)
	add("ajv ÷ pisess validate = **%.2f×**", st["ajv, our schemas (Node.js)"].wall, full)
	add(fmt.Sprintf("`--jobs 1` ÷ `--jobs %d` = **%%.2f×** (full)", n), st["pisess validate --jobs 1"].wall, full)
	add(fmt.Sprintf("`--jobs 1` ÷ `--jobs %d` = %%.2f× (`--no-schema`)", n), st["pisess validate --no-schema --jobs 1"].wall, noSchema)
	add("pisess validate ÷ jq = %.2f", full, st["jq -c . (parse floor)"].wall)
	for _, view := range []string{"pisess context --format json", "pisess path --format json", "pisess path", "pisess tree --format json", "pisess tree"} {
		add("`"+strings.TrimPrefix(view, "pisess ")+"` ÷ validate = **%.2f**", st[view].wall, full)
	}
	add("`context --format json` ÷ pi 1.6.0 load + buildSessionContext = **%.2f**", st["pisess context --format json"].wall, st["pi 1.6.0 load + buildSessionContext (Node.js)"].wall)
	add("before ÷ now = **%.2f×**", st["pisess validate (before)"].wall, full)
	add("before ÷ now, `--jobs 1` = %.2f×", st["pisess validate --jobs 1 (before)"].wall, st["pisess validate --jobs 1"].wall)
	fmt.Fprintf(w, "\nRatios of the medians: %s.\n", strings.Join(ratios, "; "))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// fingerprint sums the sizes and modification times of files, to notice
// a tool that rewrites its input (pi's SessionManager.open would).
func fingerprint(files []string) (string, error) {
	var n, t int64
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			return "", err
		}
		n += info.Size()
		t ^= info.ModTime().UnixNano()
	}
	return fmt.Sprint(n, t), nil
}

// warm reads the files once so that every command finds them cached.
func warm(files []string) {
	buf := make([]byte, 1<<20)
	for _, f := range files {
		if fh, err := os.Open(f); err == nil {
			for {
				if _, err := fh.Read(buf); err != nil {
					break
				}
			}
			fh.Close()
		}
	}
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "? RAM"
	}
	var kib int64
	fmt.Sscanf(string(b), "MemTotal: %d kB", &kib)
	return fmt.Sprintf("%.0f GiB RAM", float64(kib)/(1<<20))
}

func version(cmd string, args ...string) string {
	out, err := exec.Command(cmd, args...).Output()
	if err != nil {
		return cmd + " ?"
	}
	return strings.TrimSpace(string(out))
}
