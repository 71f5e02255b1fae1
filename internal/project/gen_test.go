package project

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// Generated sessions: trees written the way pi 1.6.0 writes them, with every
// entry type and message role it knows, for the conformance test (pi 1.6.0
// must project every leaf as we do) and for validate (every one must be
// valid). A seed gives the same file on every run and machine.
//
// Each session is a random walk of pi actions: a user turn (with tool
// calls answered in order), system-message patches, model and thinking
// changes, usage entries, bash executions, extension entries and messages,
// labels, session names, compactions carrying a systemMessage, context
// edits (several of one target, some left behind on abandoned branches or
// before a compaction cut), branches with and without summaries, new roots,
// and null content where pi 1.6.0 tolerates it.

// genSessions is how many sessions the conformance test generates.
const genSessions = 90

// genEntry is what the generator remembers of an entry it wrote.
type genEntry struct {
	id, parent string
	typ, role  string
	calls      []string // tool call blocks (JSON) of an assistant message
}

// editable reports whether pi's appendContextEdit accepts the entry as a
// target.
func (e *genEntry) editable() bool {
	return e.typ == "custom_message" || (e.typ == "message" && (e.role == "user" || e.role == "assistant" || e.role == "toolResult"))
}

type sessionGen struct {
	r        *rand.Rand
	lines    []string
	entries  []*genEntry
	byID     map[string]*genEntry
	leaf     string // "" before the first entry or after a reset
	sec      int    // clock, seconds after the session start
	lastEdit string // target of the last context edit
	tools    []string
}

// genSession returns the text of generated session number n.
func genSession(n int) string {
	g := &sessionGen{
		r:     rand.New(rand.NewPCG(uint64(n)+1, 0x9e3779b97f4a7c15)),
		byID:  map[string]*genEntry{},
		tools: []string{"read", "bash", "edit", "write"},
	}
	g.lines = append(g.lines, fmt.Sprintf(`{"type":"session","version":3,"id":"019b%04x-0000-7000-8000-%012x","timestamp":%q,"cwd":"/work/gen-%d"}`,
		n, n, g.iso(), n))
	if g.r.IntN(4) > 0 {
		g.systemMessage(true)
	}
	steps := 12 + g.r.IntN(30)
	for range steps {
		g.step()
	}
	return strings.Join(g.lines, "\n") + "\n"
}

// step performs one random action.
func (g *sessionGen) step() {
	switch k := g.r.IntN(100); {
	case k < 30:
		g.turn()
	case k < 36:
		g.systemMessage(false)
	case k < 40:
		g.add("model_change", fmt.Sprintf(`"provider":%q,"modelId":%q`, g.pick("anthropic", "openai", "google"), g.pick("m-large", "m-small", "m-fast")))
	case k < 44:
		g.add("thinking_level_change", fmt.Sprintf(`"thinkingLevel":%q`, g.pick("off", "minimal", "low", "medium", "high", "xhigh")))
	case k < 47:
		g.add("usage", `"kind":"cache_warm","provider":"anthropic","model":"m-large","usage":`+g.usage())
	case k < 51:
		g.message("bashExecution", fmt.Sprintf(`"command":"ls %d","output":"a\nb","exitCode":%d,"cancelled":false,"truncated":false`, g.sec, g.r.IntN(2)), nil)
	case k < 56:
		g.customMessage()
	case k < 58:
		g.add("custom", fmt.Sprintf(`"customType":"state","data":{"n":%d}`, g.r.IntN(100)))
	case k < 60:
		g.add("session_info", fmt.Sprintf(`"name":"session %d"`, g.r.IntN(10)))
	case k < 64:
		g.label()
	case k < 71:
		g.compaction()
	case k < 85:
		g.contextEdit()
	case k < 97:
		g.branch()
	default:
		g.newRoot()
	}
}

func (g *sessionGen) pick(choices ...string) string { return choices[g.r.IntN(len(choices))] }

// iso is the entry timestamp of the current clock; tick advances it (now
// and then not at all, so siblings can share a timestamp).
func (g *sessionGen) iso() string {
	return fmt.Sprintf("2026-02-01T10:%02d:%02d.%03dZ", g.sec/60%60, g.sec%60, g.sec%7)
}

func (g *sessionGen) ms() int64 { return 1769940000000 + int64(g.sec)*1000 + int64(g.sec%7) }

func (g *sessionGen) tick() {
	if g.r.IntN(10) > 0 {
		g.sec++
	}
}

func (g *sessionGen) newID() string {
	for {
		id := fmt.Sprintf("%08x", g.r.Uint32())
		if _, taken := g.byID[id]; !taken {
			return id
		}
	}
}

// add appends an entry of type typ under the current leaf and makes it the
// leaf.
func (g *sessionGen) add(typ, members string) *genEntry {
	g.tick()
	e := &genEntry{id: g.newID(), parent: g.leaf, typ: typ}
	p := "null"
	if g.leaf != "" {
		p = strconv.Quote(g.leaf)
	}
	line := fmt.Sprintf(`{"type":%q,"id":%q,"parentId":%s,"timestamp":%q`, typ, e.id, p, g.iso())
	if members != "" {
		line += "," + members
	}
	g.lines = append(g.lines, line+"}")
	g.entries = append(g.entries, e)
	g.byID[e.id] = e
	g.leaf = e.id
	return e
}

// message appends a message entry whose message has the role, the members
// in body and a timestamp; calls are an assistant's tool call blocks.
func (g *sessionGen) message(role, body string, calls []string) *genEntry {
	msg := fmt.Sprintf(`{"role":%q,%s,"timestamp":%d}`, role, body, g.ms())
	e := g.add("message", `"message":`+msg)
	e.role, e.calls = role, calls
	return e
}

func (g *sessionGen) usage() string {
	in, out := g.r.IntN(5000), g.r.IntN(800)
	read := g.r.IntN(3) * 1000
	return fmt.Sprintf(`{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":0,"totalTokens":%d,"cost":{"input":0.001,"output":0.002,"cacheRead":0,"cacheWrite":0,"total":0.003}}`,
		in, out, read, in+out+read)
}

// text returns a short text; now and then one with characters whose
// JavaScript length differs from their UTF-8 length.
func (g *sessionGen) text(what string) string {
	s := fmt.Sprintf("%s %d", what, g.r.IntN(1000))
	if g.r.IntN(6) == 0 {
		s += " é😀 \"quoted\"\n" + strings.Repeat("x", g.r.IntN(60))
	}
	return s
}

func (g *sessionGen) textBlock(what string) string {
	return fmt.Sprintf(`{"type":"text","text":%s}`, session.Quote(g.text(what)))
}

const imageBlock = `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`

// userContent is a string, blocks (with an image now and then) or null.
func (g *sessionGen) userContent() string {
	switch k := g.r.IntN(20); {
	case k == 0:
		return `"content":null`
	case k < 9:
		return `"content":` + string(session.Quote(g.text("ask")))
	case k < 12:
		return `"content":[` + g.textBlock("look") + `,` + imageBlock + `]`
	default:
		return `"content":[` + g.textBlock("ask") + `]`
	}
}

// turn is a user message and the assistant's answer: tool calls, each
// answered in order, then a final text; or an aborted or failed reply.
func (g *sessionGen) turn() {
	g.message("user", g.userContent(), nil)
	for round := 0; round < 3; round++ {
		switch k := g.r.IntN(12); {
		case k == 0:
			call := g.toolCall()
			g.assistant("aborted", []string{g.textBlock("stopped"), call}, []string{call})
			return
		case k == 1:
			if g.r.IntN(2) == 0 {
				g.assistantRaw("error", `"content":null`, nil)
			} else {
				g.assistantRaw("error", `"content":[]`, nil)
			}
			return
		case k < 6 && round < 2:
			calls := []string{g.toolCall()}
			if g.r.IntN(3) == 0 {
				calls = append(calls, g.toolCall())
			}
			blocks := append([]string{`{"type":"thinking","thinking":` + string(session.Quote(g.text("think"))) + `}`}, calls...)
			g.assistant("toolUse", blocks, calls)
			for _, c := range calls {
				g.toolResult(c)
			}
		default:
			g.assistant("stop", []string{g.textBlock("answer")}, nil)
			return
		}
	}
}

func (g *sessionGen) toolCall() string {
	id := fmt.Sprintf("call_%s", g.newID())
	return fmt.Sprintf(`{"type":"toolCall","id":%q,"name":%q,"arguments":{"path":"src/%d.go","n":%d.5,"deep":{"a":[1,2,{"b":null}]}}}`,
		id, g.pick(g.tools...), g.r.IntN(50), g.r.IntN(9))
}

func (g *sessionGen) assistant(stop string, blocks, calls []string) *genEntry {
	return g.assistantRaw(stop, `"content":[`+strings.Join(blocks, ",")+`]`, calls)
}

func (g *sessionGen) assistantRaw(stop, content string, calls []string) *genEntry {
	extra := ""
	if g.r.IntN(3) == 0 {
		extra = `,"thinkingLevel":"medium","responseId":"resp_1"`
	}
	if stop == "error" {
		extra += `,"errorMessage":"overloaded"`
	}
	body := fmt.Sprintf(`%s,"api":"anthropic-messages","provider":%q,"model":%q,"usage":%s,"stopReason":%q%s`,
		content, g.pick("anthropic", "openai"), g.pick("m-large", "m-small"), g.usage(), stop, extra)
	return g.message("assistant", body, calls)
}

// toolResult answers a toolCall block.
func (g *sessionGen) toolResult(call string) {
	id := between(call, `"id":"`, `"`)
	name := between(call, `"name":"`, `"`)
	content := `"content":[` + g.textBlock("output") + `]`
	switch g.r.IntN(12) {
	case 0:
		content = `"content":null`
	case 1:
		content = `"content":[` + imageBlock + `,` + g.textBlock("caption") + `]`
	}
	g.message("toolResult", fmt.Sprintf(`"toolCallId":%q,"toolName":%q,%s,"isError":%t,"details":{"exit":0}`, id, name, content, g.r.IntN(8) == 0), nil)
}

func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(rest, to)
	return v
}

// systemMessage is a system prompt: the first one declares sections and
// tools, later ones patch sections (null removes one) and tools.
func (g *sessionGen) systemMessage(first bool) {
	var b strings.Builder
	switch g.r.IntN(8) {
	case 0:
		b.WriteString(`"content":null`)
	case 1, 2:
		b.WriteString(`"content":` + string(session.Quote(g.text("You are a careful assistant."))))
	case 3:
		b.WriteString(`"content":[` + g.textBlock("rules") + `]`)
	default:
		b.WriteString(`"content":""`)
	}
	if first {
		b.WriteString(`,"sections":{"preamble":"You are an expert coding assistant.","cwd":"/work"},"toolsAdded":[{"name":"read","description":"Read a file","parameters":{"type":"object"}},{"name":"bash","description":"Run a command","parameters":{}}]`)
	} else {
		fmt.Fprintf(&b, `,"sections":{"skills":%s,"cwd":null}`, session.Quote(g.text("skills")))
		if g.r.IntN(2) == 0 {
			b.WriteString(`,"toolsRemoved":[{"name":"write"}]`)
		} else {
			b.WriteString(`,"toolsAdded":[{"name":"edit","description":"Edit a file","parameters":{"type":"object","properties":{}}}]`)
		}
	}
	g.message("system", b.String(), nil)
}

func (g *sessionGen) customMessage() {
	content := `"content":` + string(session.Quote(g.text("injected")))
	switch g.r.IntN(8) {
	case 0:
		content = `"content":null`
	case 1:
		content = `"content":[` + g.textBlock("injected") + `,` + imageBlock + `]`
	}
	details := ""
	if g.r.IntN(2) == 0 {
		details = `,"details":{"source":"ext"}`
	}
	g.add("custom_message", fmt.Sprintf(`"customType":"ext",%s,"display":%t%s`, content, g.r.IntN(2) == 0, details))
}

// path returns the entries from the root to the leaf.
func (g *sessionGen) path() []*genEntry {
	var up []*genEntry
	for id := g.leaf; id != ""; id = g.byID[id].parent {
		up = append(up, g.byID[id])
	}
	for l, r := 0, len(up)-1; l < r; l, r = l+1, r-1 {
		up[l], up[r] = up[r], up[l]
	}
	return up
}

// label sets, changes or clears the label of any earlier entry.
func (g *sessionGen) label() {
	if len(g.entries) == 0 {
		return
	}
	target := g.entries[g.r.IntN(len(g.entries))].id
	if g.r.IntN(4) == 0 {
		g.add("label", fmt.Sprintf(`"targetId":%q`, target))
		return
	}
	g.add("label", fmt.Sprintf(`"targetId":%q,"label":%q`, target, g.pick("checkpoint", "good", "try-again")))
}

// compaction summarizes the path up to a kept entry (never a tool result,
// whose call would be cut off) or keeps nothing, with the system prompt
// checkpoint pi 1.6.0 stores.
func (g *sessionGen) compaction() {
	path := g.path()
	if len(path) < 2 {
		return
	}
	id := g.newID()
	firstKept := id
	if g.r.IntN(5) > 0 {
		var candidates []string
		for _, e := range path[len(path)/2:] {
			if e.role != "toolResult" {
				candidates = append(candidates, e.id)
			}
		}
		if len(candidates) > 0 {
			firstKept = candidates[g.r.IntN(len(candidates))]
		}
	}
	members := fmt.Sprintf(`"summary":%s,"firstKeptEntryId":%q,"tokensBefore":%d,"details":{"readFiles":["a.go"],"modifiedFiles":[]}`,
		session.Quote(g.text("## Goal\nsummary")), firstKept, 1000+g.r.IntN(50000))
	if g.r.IntN(3) == 0 {
		members += `,"usage":` + g.usage()
	}
	if g.r.IntN(4) == 0 {
		members += `,"fromHook":false`
	}
	if g.r.IntN(5) > 0 {
		members += fmt.Sprintf(`,"systemMessage":{"role":"system","content":%s,"sections":{"preamble":"You are an expert coding assistant."},"toolsAdded":[{"name":"read","description":"Read a file","parameters":{}}],"timestamp":%d}`,
			session.Quote(g.text("checkpoint prompt")), g.ms())
	}
	// The id was drawn before the entry: write it by hand.
	g.tick()
	e := &genEntry{id: id, parent: g.leaf, typ: "compaction"}
	g.lines = append(g.lines, fmt.Sprintf(`{"type":"compaction","id":%q,"parentId":%q,"timestamp":%q,%s}`, id, g.leaf, g.iso(), members))
	g.entries = append(g.entries, e)
	g.byID[id] = e
	g.leaf = id
}

// contextEdit edits an editable entry on the current path (pi refuses
// others), often the one edited last. Omitting or rewriting a tool call or
// result would unpair them: those keep their calls.
func (g *sessionGen) contextEdit() {
	var targets []*genEntry
	for _, e := range g.path() {
		if e.editable() {
			targets = append(targets, e)
		}
	}
	if len(targets) == 0 {
		return
	}
	target := targets[g.r.IntN(len(targets))]
	if last, ok := g.byID[g.lastEdit]; ok && g.r.IntN(2) == 0 && g.onPath(last) && last.editable() {
		target = last
	}
	g.lastEdit = target.id
	var repl string
	switch {
	case target.role == "toolResult":
		repl = `{"content":[{"type":"text","text":"(elided)"}]}`
		if g.r.IntN(3) == 0 {
			repl = `{"content":"(elided as a string)"}`
		}
	case target.role == "assistant" && len(target.calls) > 0:
		repl = `{"content":[` + g.textBlock("shortened") + `,` + strings.Join(target.calls, ",") + `]}`
	case g.r.IntN(3) == 0:
		repl = `null`
	case target.role == "assistant":
		repl = `{"content":[` + g.textBlock("rewritten") + `]}`
		if g.r.IntN(2) == 0 {
			repl = `{"content":` + string(session.Quote(g.text("rewritten as a string"))) + `}`
		}
	case g.r.IntN(2) == 0:
		repl = `{"content":` + string(session.Quote(g.text("redacted"))) + `}`
	default:
		repl = `{"content":[` + g.textBlock("redacted") + `,` + imageBlock + `]}`
	}
	g.add("context_edit", fmt.Sprintf(`"targetId":%q,"replacement":%s`, target.id, repl))
}

func (g *sessionGen) onPath(e *genEntry) bool {
	for _, p := range g.path() {
		if p == e {
			return true
		}
	}
	return false
}

// branch moves the leaf back to an earlier entry (never an assistant
// message waiting for its tool results) and, as pi's /tree does, usually
// leaves a branch summary of the abandoned path.
func (g *sessionGen) branch() {
	var points []*genEntry
	for _, e := range g.entries {
		if e.role != "assistant" || len(e.calls) == 0 {
			points = append(points, e)
		}
	}
	if len(points) < 2 {
		return
	}
	from := g.leaf
	if from == "" {
		from = "root"
	}
	to := points[g.r.IntN(len(points)-1)]
	g.leaf = to.id
	if g.r.IntN(3) > 0 {
		summary := g.text("The abandoned branch tried")
		if g.r.IntN(8) == 0 {
			summary = "" // pi keeps it out of the context
		}
		g.add("branch_summary", fmt.Sprintf(`"fromId":%q,"summary":%s,"details":{"readFiles":[],"modifiedFiles":[]},"fromHook":false`, from, session.Quote(summary)))
	}
}

// newRoot starts a new tree in the same file (pi's resetLeaf), sometimes
// with a root branch summary.
func (g *sessionGen) newRoot() {
	from := g.leaf
	g.leaf = ""
	if from != "" && g.r.IntN(2) == 0 {
		g.add("branch_summary", fmt.Sprintf(`"fromId":%q,"summary":%s`, from, session.Quote(g.text("Before the reset"))))
	}
}

// genFeatures counts, over the generated sessions, what the generator
// promises to cover.
func genFeatures(t *testing.T) map[string]int {
	got := map[string]int{}
	for n := range genSessions {
		s, err := Load(strings.NewReader(genSession(n)), session.DefaultLimits())
		if err != nil {
			t.Fatalf("generated session %d: %v", n, err)
		}
		edits := map[string]int{}
		for _, e := range s.Entries {
			got["type "+e.Type()]++
			if e.Type() == "message" {
				got["role "+e.Role()]++
			}
			if hasNullContent(e) {
				got["null content in "+e.Type()+" "+e.Role()]++
			}
			switch e.Type() {
			case "compaction":
				if _, ok := e.Field("systemMessage"); ok {
					got["compaction with systemMessage"]++
				}
				if e.StringField("firstKeptEntryId") == e.ID() {
					got["compaction keeping nothing"]++
				}
			case "context_edit":
				edits[e.StringField("targetId")]++
				if r, _ := e.Field("replacement"); isNull(r) {
					got["edit omitting"]++
				} else if _, ok := rawString(memberValue(r, "content")); ok {
					got["edit with string content"]++
				}
			case "label":
				if e.StringField("label") == "" {
					got["label cleared"]++
				}
			case "branch_summary":
				if e.StringField("summary") == "" {
					got["empty branch summary"]++
				}
			}
		}
		for _, k := range edits {
			if k > 1 {
				got["several edits of one target"]++
			}
		}
		if len(s.Tree().Roots) > 1 {
			got["several roots"]++
		}
		leaves := s.Leaves()
		if len(leaves) > 1 {
			got["branches"]++
		}
		for _, leaf := range leaves {
			c, err := s.Context(leaf)
			if err != nil {
				t.Fatalf("generated session %d: %v", n, err)
			}
			onPath := map[*Entry]bool{}
			for _, e := range c.Path {
				onPath[e] = true
			}
			for _, e := range s.Entries {
				if e.Type() == "context_edit" && !onPath[e] {
					got["edit off the leaf's path"]++
				}
			}
			inContext := map[string]bool{}
			for _, e := range c.Entries {
				inContext[e.ID()] = true
			}
			for i, e := range c.Entries {
				switch {
				case e.Type() == "context_edit" && !inContext[e.StringField("targetId")]:
					got["edit of an entry not in the context"]++
				case i > 0 && e.Type() == "compaction":
					got["older compaction in the kept range"]++
				}
			}
			if len(c.Entries) > 0 && c.Entries[0].Type() == "compaction" {
				firstKept := c.Entries[0].StringField("firstKeptEntryId")
				kept := false
				for _, e := range c.Path {
					if e == c.Entries[0] {
						break
					}
					kept = kept || e.ID() == firstKept
					if kept && e.Role() == "system" {
						got["system message in a kept range"]++
					}
				}
			}
		}
	}
	return got
}

// TestGeneratorCoverage holds the generator to what it promises: every
// entry type and message role pi 1.6.0 writes, and each projection case.
func TestGeneratorCoverage(t *testing.T) {
	got := genFeatures(t)
	want := []string{
		"type message", "type model_change", "type thinking_level_change", "type usage",
		"type compaction", "type context_edit", "type branch_summary", "type custom",
		"type custom_message", "type label", "type session_info",
		"role system", "role user", "role assistant", "role toolResult", "role bashExecution",
		"null content in message system", "null content in message user", "null content in message assistant",
		"null content in message toolResult", "null content in custom_message ",
		"compaction with systemMessage", "compaction keeping nothing", "older compaction in the kept range",
		"system message in a kept range",
		"edit omitting", "edit with string content", "several edits of one target",
		"edit off the leaf's path", "edit of an entry not in the context",
		"label cleared", "empty branch summary", "several roots", "branches",
	}
	for _, w := range want {
		if got[w] == 0 {
			t.Errorf("no generated session has %s", w)
		}
	}
	t.Logf("%v", got)
}
