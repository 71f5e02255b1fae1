// Command sessiongen writes a directory of synthetic pi session files for
// benchmarks (`pisess audit`, `validate`) from the shapes of real ones:
// it replays the entries of real version-3 sessions with new ids, parent
// links and timestamps, concatenating them until each file reaches its
// drawn size, adds branch points and forks (files that copy a prefix of
// another with the same ids and name it in parentSession), and copies a
// few version-1 files verbatim. The same flags and seed give the same
// files.
//
//	go run ./scripts/gen/sessiongen -src ../shared/corpus/real -out /tmp/auditgen -files 2000 -bytes 1GiB
//
// One big file (for validate's memory and throughput figures):
//
//	go run ./scripts/gen/sessiongen -src ../shared/corpus/real -out /tmp/big -files 1 -bytes 500MB -sigma 0 -max-file 2GiB -forks 0 -legacy 0
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sessiongen:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	src, out    string
	files       int
	total       int64
	seed        uint64
	forks       float64 // share of files that are forks
	legacy      float64 // share of files that are verbatim version-1 copies
	branchEvery int     // about one branch point per this many user turns
	sigma       float64 // spread of the log-normal file sizes (0: all the same size)
	maxFile     int64   // no file is drawn larger than this
}

func parseFlags() (config, error) {
	var c config
	var size string
	flag.StringVar(&c.src, "src", "", "directory of real pi session files (*.jsonl)")
	flag.StringVar(&c.out, "out", "", "directory to write (created; must be empty or absent)")
	flag.IntVar(&c.files, "files", 2000, "number of files")
	flag.StringVar(&size, "bytes", "1GiB", "total size to aim at (KiB, MiB, GiB, MB, GB suffixes)")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed")
	flag.Float64Var(&c.forks, "forks", 0.1, "share of files that are forks of an earlier file")
	flag.Float64Var(&c.legacy, "legacy", 0.01, "share of files that are verbatim version-1 copies")
	flag.IntVar(&c.branchEvery, "branch-every", 20, "about one branch point per this many user turns (0: none)")
	flag.Float64Var(&c.sigma, "sigma", 1.2, "spread of the log-normal file sizes (0: every file bytes/files)")
	maxFile := flag.String("max-file", "32MiB", "largest file size drawn")
	flag.Parse()
	if c.src == "" || c.out == "" || c.files < 1 {
		return c, errors.New("usage: sessiongen -src DIR -out DIR [-files N] [-bytes SIZE] [-seed N]")
	}
	n, err := parseSize(size)
	c.total = n
	if err != nil {
		return c, err
	}
	c.maxFile, err = parseSize(*maxFile)
	return c, err
}

// parseSize reads 123, 4KiB, 5MiB, 1GiB (and decimal 5MB, 1GB).
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "MB": 1e6, "GB": 1e9} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(n * float64(mult)), nil
}

func run() error {
	c, err := parseFlags()
	if err != nil {
		return err
	}
	src, err := loadSources(c.src)
	if err != nil {
		return err
	}
	if entries, _ := os.ReadDir(c.out); len(entries) > 0 {
		return fmt.Errorf("%s is not empty", c.out)
	}
	out, err := filepath.Abs(c.out)
	if err != nil {
		return err
	}
	g := &generator{cfg: c, src: src, out: out, rng: rand.New(rand.NewPCG(c.seed, 0x5e55))}
	if err := g.all(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "sessiongen: %d files (%d forks, %d version 1), %d bytes in %s\n", g.written, g.forked, g.copied, g.bytes, out)
	return nil
}

// object is one JSON object with its members kept raw.
type object map[string]json.RawMessage

// source is one real session: its cwd and entries.
type source struct {
	name    string
	cwd     string
	entries []object
}

// sources are the shapes to replay and the version-1 files to copy.
type sources struct {
	v3     []source
	legacy [][]byte
}

// loadSources reads the real files: version-3 sessions are split into
// entries, version-1 files are kept whole. Lines that do not decode (the
// damaged files) are skipped.
func loadSources(dir string) (*sources, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no *.jsonl in %s", dir)
	}
	sort.Strings(paths)
	s := &sources{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
		var head object
		if json.Unmarshal(lines[0], &head) != nil {
			continue
		}
		if string(head["version"]) != "3" {
			s.legacy = append(s.legacy, data)
			continue
		}
		src := source{name: filepath.Base(p)}
		json.Unmarshal(head["cwd"], &src.cwd)
		for _, l := range lines[1:] {
			var e object
			if json.Unmarshal(bytes.TrimRight(l, "\r"), &e) == nil {
				src.entries = append(src.entries, e)
			}
		}
		if len(src.entries) > 0 {
			s.v3 = append(s.v3, src)
		}
	}
	if len(s.v3) == 0 {
		return nil, fmt.Errorf("no version-3 session in %s", dir)
	}
	return s, nil
}

// generator writes the files.
type generator struct {
	cfg                     config
	src                     *sources
	out                     string
	rng                     *rand.Rand
	written, forked, copied int
	bytes                   int64
	ids                     map[string]bool // every entry id drawn, so forks' own ids never clash
}

// all writes cfg.files files whose sizes add up to about cfg.total.
func (g *generator) all() error {
	g.ids = map[string]bool{}
	avg := float64(g.cfg.total) / float64(g.cfg.files)
	sigma := g.cfg.sigma
	mu := math.Log(avg) - sigma*sigma/2 // lognormal sizes with mean avg
	for g.written < g.cfg.files {
		size := int64(math.Min(math.Exp(mu+sigma*g.rng.NormFloat64()), float64(g.cfg.maxFile)))
		var err error
		switch r := g.rng.Float64(); {
		case r < g.cfg.legacy && len(g.src.legacy) > 0:
			err = g.legacy()
		default:
			var f *file
			f, err = g.session(size)
			if err == nil && g.written < g.cfg.files && g.rng.Float64() < g.cfg.forks/(1-g.cfg.forks) {
				err = g.fork(f, size)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// file is a written session kept for forking.
type file struct {
	path   string
	cwd    string
	start  time.Time
	lines  [][]byte // entries, without the header
	lastID string
	clock  time.Time
}

// session writes one session of about size bytes.
func (g *generator) session(size int64) (*file, error) {
	src := g.src.v3[g.rng.IntN(len(g.src.v3))]
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.rng.IntN(365*24*3600)) * time.Second)
	f := &file{cwd: src.cwd, start: start, clock: start}
	id := g.uuid(start)
	f.path = g.pathFor(f.cwd, start, id)
	head := g.header(id, f.cwd, start, "")
	f.grow(g, size-int64(len(head)))
	return f, g.write(f.path, head, f.lines)
}

// fork writes a fork of f: a prefix of its entries, same ids, then more
// entries of its own.
func (g *generator) fork(f *file, size int64) error {
	keep := len(f.lines) / 2
	if len(f.lines) > 4 {
		keep = len(f.lines)/4 + g.rng.IntN(len(f.lines)*3/4)
	}
	start := f.clock.Add(time.Hour)
	id := g.uuid(start)
	k := &file{cwd: f.cwd, start: start, clock: start, lines: append([][]byte(nil), f.lines[:keep]...)}
	if keep > 0 {
		var last object
		json.Unmarshal(k.lines[keep-1], &last)
		json.Unmarshal(last["id"], &k.lastID)
	}
	k.path = g.pathFor(k.cwd, start, id)
	head := g.header(id, k.cwd, start, f.path)
	k.grow(g, size/2)
	g.forked++
	return g.write(k.path, head, k.lines)
}

// legacy copies a version-1 file verbatim.
func (g *generator) legacy() error {
	data := g.src.legacy[g.rng.IntN(len(g.src.legacy))]
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.rng.IntN(150*24*3600)) * time.Second)
	path := g.pathFor("/home/dev/legacy", start, g.uuid(start))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	g.copied++
	g.written++
	g.bytes += int64(len(data))
	return os.WriteFile(path, data, 0o644)
}

// grow appends replayed entries until the file holds about budget more
// bytes, concatenating passes over a source (each pass continues the chain).
func (f *file) grow(g *generator, budget int64) {
	src := g.src.v3[g.rng.IntN(len(g.src.v3))]
	var added int64
	for added < budget {
		ids := map[string]string{} // source id → new id, for this pass
		var beforeTurn string      // the leaf before the last user message
		for _, e := range src.entries {
			if added >= budget {
				return
			}
			line := f.replay(g, e, ids, &beforeTurn)
			f.lines = append(f.lines, line)
			added += int64(len(line)) + 1
		}
		src = g.src.v3[g.rng.IntN(len(g.src.v3))]
	}
}

// replay re-ids one source entry and links it into the file's chain.
func (f *file) replay(g *generator, e object, ids map[string]string, beforeTurn *string) []byte {
	out := make(object, len(e))
	for k, v := range e {
		out[k] = v
	}
	var oldID, oldParent string
	json.Unmarshal(e["id"], &oldID)
	json.Unmarshal(e["parentId"], &oldParent)
	id := g.entryID()
	ids[oldID] = id
	parent, ok := ids[oldParent]
	if !ok {
		parent = f.lastID // a root of the source continues the file's chain
	}
	if isUserMessage(e) {
		if g.cfg.branchEvery > 0 && *beforeTurn != "" && g.rng.IntN(g.cfg.branchEvery) == 0 {
			parent = *beforeTurn // ask again from before the previous question: a branch point
		}
		*beforeTurn = parent
	}
	if kept, ok := e["firstKeptEntryId"]; ok {
		var old string
		json.Unmarshal(kept, &old)
		if n, ok := ids[old]; ok {
			out["firstKeptEntryId"] = quote(n)
		}
	}
	for _, key := range []string{"fromId", "targetId"} { // a branch summary's origin, a label's or an edit's target
		if ref, ok := e[key]; ok {
			var old string
			json.Unmarshal(ref, &old)
			if n, ok := ids[old]; ok {
				out[key] = quote(n)
			}
		}
	}
	f.clock = f.clock.Add(time.Duration(1+g.rng.IntN(90)) * time.Second)
	out["id"] = quote(id)
	out["parentId"] = json.RawMessage("null")
	if parent != "" {
		out["parentId"] = quote(parent)
	}
	out["timestamp"] = quote(f.clock.Format("2006-01-02T15:04:05.000Z"))
	f.lastID = id
	return marshal(out)
}

func isUserMessage(e object) bool {
	var m struct {
		Role string `json:"role"`
	}
	return string(e["type"]) == `"message"` && json.Unmarshal(e["message"], &m) == nil && m.Role == "user"
}

// header is a version-3 header line; parent, when set, makes it a fork.
func (g *generator) header(id, cwd string, at time.Time, parent string) []byte {
	h := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":%s`, id, at.Format("2006-01-02T15:04:05.000Z"), quote(cwd))
	if parent != "" {
		h += `,"parentSession":` + string(quote(parent))
	}
	return []byte(h + "}")
}

// pathFor is pi's layout: sessions/--<cwd>--/<time>_<id>.jsonl.
func (g *generator) pathFor(cwd string, at time.Time, id string) string {
	dir := "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(strings.TrimPrefix(cwd, "/")) + "--"
	name := strings.NewReplacer(":", "-", ".", "-").Replace(at.Format("2006-01-02T15:04:05.000Z")) + "_" + id + ".jsonl"
	return filepath.Join(g.out, dir, name)
}

// write writes a header and entry lines, newline-terminated.
func (g *generator) write(path string, head []byte, lines [][]byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := w.Write(head)
	w.WriteByte('\n')
	total := int64(n + 1)
	for _, l := range lines {
		n, _ := w.Write(l)
		w.WriteByte('\n')
		total += int64(n + 1)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	g.written++
	g.bytes += total
	return f.Close()
}

// entryID draws a fresh 8-hex id, as pi does.
func (g *generator) entryID() string {
	for {
		id := fmt.Sprintf("%08x", g.rng.Uint32())
		if !g.ids[id] {
			g.ids[id] = true
			return id
		}
	}
}

// uuid draws a UUIDv7-shaped session id for time at.
func (g *generator) uuid(at time.Time) string {
	ms := uint64(at.UnixMilli())
	a, b := g.rng.Uint64(), g.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-7%03x-%04x-%012x", ms>>16, ms&0xffff, a&0xfff, 0x8000|(b>>48)&0x3fff, b&0xffffffffffff)
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// marshal writes an object with "type", "id", "parentId", "timestamp"
// first, as pi does, then the other members sorted.
func marshal(o object) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	first := []string{"type", "id", "parentId", "timestamp"}
	rest := make([]string, 0, len(o))
	for k := range o {
		if k != "type" && k != "id" && k != "parentId" && k != "timestamp" {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for i, k := range append(first, rest...) {
		v, ok := o[k]
		if !ok {
			continue
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(quote(k))
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}
