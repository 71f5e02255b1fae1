// Command hugegen writes one huge synthetic pi session (version 3) of the
// kind that no longer opens: turns whose tool results carry base64
// screenshots and large tool outputs, an extension's custom state
// snapshot every few turns, and a branch now and then. Most of its bytes
// (over 90 %) are images and tool output, the shape of the sessions of
// issue 26. The same flags give the same file.
//
//	go run ./scripts/gen/hugegen -out /tmp/huge.jsonl -bytes 1GiB
//
// It is the input of bench/huge.sh (pisess slim --rewrite beside validate
// and pi 1.6.0's loader).
package main

import (
	"bufio"
	"encoding/base64"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

func main() {
	out := flag.String("out", "", "the session file to write (must not exist)")
	size := flag.String("bytes", "1GiB", "size to reach (KiB, MiB, GiB suffixes)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	total, err := parseSize(*size)
	if err == nil && *out == "" {
		err = fmt.Errorf("-out is required")
	}
	if err == nil {
		err = write(*out, total, *seed)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hugegen:", err)
		os.Exit(1)
	}
}

func parseSize(s string) (int64, error) {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			return int64(v * float64(u.mult)), err
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

// gen is the state of one file being written.
type gen struct {
	w       *bufio.Writer
	rnd     *rand.Rand
	pool    string // base64 of random bytes: images are slices of it
	text    string // tool output lines, JSON-escaped
	n       int    // entries written
	parent  string
	written int64
	turns   []string // the assistant entries that end a turn (branch points)
}

func write(path string, total int64, seed uint64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	g := &gen{w: bufio.NewWriterSize(f, 1<<20), rnd: rand.New(rand.NewPCG(seed, 2))}
	raw := make([]byte, 6<<20)
	for i := range raw {
		raw[i] = byte(g.rnd.Uint32())
	}
	g.pool = base64.StdEncoding.EncodeToString(raw)
	var lines strings.Builder
	for i := 0; lines.Len() < 2<<20; i++ {
		fmt.Fprintf(&lines, `%06d  ok  src/module_%d/file.go:%d: \"value\" = %d\n`, i, i%97, i%1013, g.rnd.IntN(1e6))
	}
	g.text = lines.String()
	g.line(`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-0000000000aa","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w/app"}`)
	for turn := 0; g.written < total; turn++ {
		g.turn(turn)
	}
	if err := g.w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (g *gen) line(s string) {
	g.w.WriteString(s)
	g.w.WriteByte('\n')
	g.written += int64(len(s)) + 1
}

// entry writes an entry of type typ with the given members after the
// common ones, as the next child of g.parent.
func (g *gen) entry(typ, members string) string {
	g.n++
	id := fmt.Sprintf("%08x", g.n*2654435761%(1<<32))
	parent := "null"
	if g.parent != "" {
		parent = `"` + g.parent + `"`
	}
	ts := fmt.Sprintf("2026-01-01T%02d:%02d:%02d.000Z", g.n/3600%24, g.n/60%60, g.n%60)
	g.line(fmt.Sprintf(`{"type":%q,"id":%q,"parentId":%s,"timestamp":%q,%s}`, typ, id, parent, ts, members))
	g.parent = id
	return id
}

const usage = `"usage":{"input":1200,"output":80,"cacheRead":0,"cacheWrite":0,"totalTokens":1280,"cost":{"input":0.0036,"output":0.0012,"cacheRead":0,"cacheWrite":0,"total":0.0048}}`

func (g *gen) assistant(content, stop string) string {
	return g.entry("message", `"message":{"role":"assistant","content":[`+content+`],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",`+usage+`,"stopReason":"`+stop+`","timestamp":1767225602000}`)
}

// turn is a user message, a tool call and its result (a screenshot or a
// large output), and the assistant's answer; every 8th turn adds a state
// snapshot, every 50th starts from an earlier turn (a branch).
func (g *gen) turn(i int) {
	if i%50 == 49 && len(g.turns) > 10 {
		g.parent = g.turns[g.rnd.IntN(len(g.turns))]
	}
	g.entry("message", fmt.Sprintf(`"message":{"role":"user","content":[{"type":"text","text":"step %d: check the page again"}],"timestamp":1767225601000}`, i))
	call := fmt.Sprintf("call_%d", i)
	tool := "screenshot"
	if i%3 == 2 {
		tool = "bash"
	}
	g.assistant(fmt.Sprintf(`{"type":"text","text":"Looking."},{"type":"toolCall","id":%q,"name":%q,"arguments":{"command":"run %d"}}`, call, tool, i), "toolUse")
	var content string
	if tool == "screenshot" {
		content = `{"type":"text","text":"Screenshot of the page"},{"type":"image","data":"` + g.image() + `","mimeType":"image/png"}`
	} else {
		content = `{"type":"text","text":"` + g.output() + `"}`
	}
	g.entry("message", fmt.Sprintf(`"message":{"role":"toolResult","toolCallId":%q,"toolName":%q,"content":[%s],"isError":false,"timestamp":1767225603000}`, call, tool, content))
	g.turns = append(g.turns, g.assistant(`{"type":"text","text":"The page shows the form; next I fill in the name."}`, "stop"))
	if i%8 == 7 {
		g.entry("custom", fmt.Sprintf(`"customType":"plan-state","data":{"step":%d,"todo":[%s]}`, i, strings.Repeat(`"a pending item of the plan",`, 60)+`"last"`))
	}
}

// image is a base64 PNG stand-in of 150 KiB to 1.5 MiB.
func (g *gen) image() string {
	n := (150<<10 + g.rnd.IntN(1350<<10)) / 4 * 4
	at := g.rnd.IntN((len(g.pool)-n)/4) * 4
	return g.pool[at : at+n]
}

// output is 64 KiB to 1 MiB of tool output lines (JSON-escaped).
func (g *gen) output() string {
	n := 64<<10 + g.rnd.IntN(960<<10)
	at := g.rnd.IntN(len(g.text) - n)
	s := g.text[at : at+n]
	s = s[strings.Index(s, `\n`)+2:]
	return s[:strings.LastIndex(s, `\n`)+2]
}
