package audit

import (
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// noTime marks a charge whose entry has no usable timestamp.
const noTime = math.MinInt64

// firstMessageRunes is how long the first user message may get. oneLine
// looks at 8 bytes a rune of it: within session.TextLimit.
const firstMessageRunes = 72

// Collector gathers one file's figures as its validation pass streams
// past: its Header and Entry methods make it validate's Observer (cli
// wires the two). It keeps nothing of the records it sees but the
// figures themselves.
type Collector struct {
	rec      *Record
	version  int
	observed int          // entries seen
	children *childCounts // the children of each entry key
	models   modelTable
	current  int32        // the model in use at this point of the file (its number), or -1
	ids      *session.IDs // a version-1 file's derived entry ids
	dialect  session.Dialect
	titled   bool // omp: the name is the title slot's or the header's, which a title_change does not move
	earliest time.Time
	latest   time.Time
	roles    [8]int // messages of pi's roles, by session.MessageRoles' index
	lone     bool   // the only file audited (Lone)
}

// NewCollector returns a Collector for one file.
func NewCollector() *Collector {
	return &Collector{
		rec:      &Record{Messages: map[string]int{}},
		children: newChildCounts(),
		models:   newModelTable(),
		current:  -1,
	}
}

// Lone tells the collector that its file is the only one audited: no
// other file can hold copies of its entries, so it keeps no entry keys
// (Total compares them only between the files of one lineage), and its
// charges name no entry.
func (c *Collector) Lone() { c.lone = true }

// Header takes the file's header and dialect (validate.Observer).
func (c *Collector) Header(_ int, h *session.Header, dialect session.Dialect) {
	c.rec.CWD = strings.Clone(h.Cwd)
	c.version = h.Version
	c.dialect = dialect
	if dialect == session.Omp {
		c.rec.Name = ompTitle(h.Title)
		c.titled = h.TitleFromSlot || c.rec.Name != ""
	}
	for _, p := range []string{h.ParentSession, h.BranchedFrom} {
		if p != "" {
			p = strings.Clone(p)
			c.rec.parents = append(c.rec.parents, p)
			if c.rec.ParentSession == "" {
				c.rec.ParentSession = p
			}
		}
	}
	// Version 1 headers name the model the session started with.
	c.current = c.models.number(h.Provider, h.ModelID)
	if h.Version < 2 {
		c.ids = session.NewIDs(strings.Clone(h.ID)) // h shares the file
	}
}

// Entry takes one entry and its place in the tree (validate.Observer).
func (c *Collector) Entry(line int, e *session.Entry, link session.Link) {
	c.observed++
	at := e.At // the zero time when absent or bad
	if at.After(c.latest) {
		c.latest = at
	}
	if !at.IsZero() && (c.earliest.IsZero() || at.Before(c.earliest)) {
		c.earliest = at
	}
	key := c.tree(line, e, link)
	switch e.Type {
	case "message":
		c.message(&e.Message, key, at)
	case "model_change":
		if e.SetsDefaultModel() { // omp: a smol, slow, ... model is not the one in use
			c.current = c.models.number(e.Provider, e.Model)
		}
	case "usage", "model_usage": // model_usage: omp's titles, summaries, ... outside the transcript
		model := c.models.number(e.Provider, e.Model)
		c.models.use(model)
		c.charge(e.Usage, key, at, model)
	case "compaction":
		c.rec.Compactions++
		c.charge(e.Usage, key, at, c.current) // never its retainedTail
	case "branch_summary":
		c.charge(e.Usage, key, at, c.current)
	case "session_info":
		if c.dialect != session.Omp { // omp names a session by its title
			c.rec.Name = strings.Clone(session.JSTrim(e.Name)) // pi trims it; a blank name clears it
		}
	case "title_change":
		if c.dialect == session.Omp && !c.titled { // a file whose header never got its title
			c.rec.Name = ompTitle(e.Name)
		}
	}
}

// ompTitle is a title as omp lists it (session-listing.ts,
// sanitizeSessionName): its first line, control characters removed,
// trimmed; "" when nothing is left. A copy: title may share the file.
func ompTitle(title string) string {
	first, _, _ := strings.Cut(title, "\n")
	first = strings.TrimSuffix(first, "\r")
	first = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, first)
	return strings.Clone(session.JSTrim(first))
}

// tree records the entry's place in the tree (link) and returns its key
// index, or -1 when it has no id or the collector is Lone. Entries are
// known by the key of their id, so the file's bytes are never kept.
func (c *Collector) tree(line int, e *session.Entry, link session.Link) int32 {
	switch {
	case c.version < 2:
		// A version-1 entry is keyed by the id pisess reads it with, the
		// one migrate writes (session.IDs: from the session id and the
		// line), so that copies of a v1 file, and the v3 file migrate made
		// of it, are known as snapshots. A v1 file is one chain: its tree
		// needs no nodes.
		if c.lone || c.ids == nil || e.Type == "session" { // a misplaced header is no entry
			return -1
		}
		return int32(c.rec.keys.add(keyOf(c.ids.For(line))))
	case e.ID == "":
		return -1
	}
	c.children.entry(e.ID, link, e.ParentID, e.HasParent)
	if c.lone {
		return -1
	}
	return int32(c.rec.keys.add(keyOf(e.ID)))
}

// message gathers one message entry.
func (c *Collector) message(msg *session.Message, key int32, at time.Time) {
	if i := knownRole(msg.Role); i >= 0 {
		c.roles[i]++
	} else {
		c.rec.Messages[strings.Clone(msg.Role)]++ // a map keeps the key it is last given, and msg shares the file
	}
	if at.IsZero() && msg.Millis > 0 {
		at = time.UnixMilli(msg.Millis)
	}
	switch msg.Role {
	case "user":
		if c.rec.FirstMessage == "" {
			c.rec.FirstMessage = strings.Clone(oneLine(msg.Text, firstMessageRunes)) // msg shares the file
		}
	case "assistant":
		model := c.models.number(msg.Provider, msg.Model)
		c.current = model
		c.models.use(model)
		c.charge(msg.Usage, key, at, model)
	case "toolResult":
		usage := msg.Usage
		if c.dialect == session.Omp && msg.ToolName == "task" {
			usage = msg.TaskUsage // omp counts its subagents' usage, and only that (entryUsage)
		}
		c.charge(usage, key, at, c.current)
	}
}

// knownRole is r's index in session.MessageRoles (pi's roles, counted in
// an array as they come, Collector.roles, and into Record.Messages at the
// end), -1 when it is none of them: a switch, which compiles to a few
// length and byte compares (TestKnownRole holds it to the list).
func knownRole(r string) int {
	switch r {
	case "user":
		return 0
	case "assistant":
		return 1
	case "toolResult":
		return 2
	case "bashExecution":
		return 3
	case "custom":
		return 4
	case "branchSummary":
		return 5
	case "compactionSummary":
		return 6
	case "system":
		return 7
	}
	return -1
}

// charge counts one usage record, when u is one; model is its model's
// number, or -1.
func (c *Collector) charge(u session.Usage, key int32, at time.Time, model int32) {
	if !u.Present {
		return
	}
	tokens, cost, price := usageOf(u)
	c.rec.Usage.add(tokens, cost, price)
	ch := charge{tokens: tokens, cost: cost, price: price, entry: key, at: noTime, model: model}
	if !at.IsZero() {
		ch.at = at.UnixMilli()
	}
	c.rec.charges.add(ch)
}

// Record finishes the figures of the file at path, once its validation
// pass has ended with v; modified is its modification time.
func (c *Collector) Record(path string, v Validation, modified time.Time) *Record {
	r := c.rec
	for i, name := range session.MessageRoles() {
		if c.roles[i] > 0 {
			r.Messages[name] += c.roles[i]
		}
	}
	r.Path = path
	r.Verdict = verdictOf(&v)
	r.Status = v.Status
	r.Version = v.Version
	r.Dialect = v.Dialect
	r.SessionID = v.SessionID
	r.Entries = v.Entries
	if i := slices.IndexFunc(v.Findings, func(f finding.Finding) bool { return f.Severity == finding.Error }); i >= 0 {
		f := v.Findings[i] // the first error finding, by line
		r.FirstError = &f
	}
	r.Stuck = v.has(finding.UnansweredToolCall) || v.has(finding.UnpairedToolInContext)
	r.Interleaved = v.has(finding.InterleavedAppends)
	r.Bytes = v.Bytes
	r.Modified = modified
	r.FirstActivity, r.LastActivity = c.earliest, c.latest
	if r.LastActivity.IsZero() {
		r.FirstActivity, r.LastActivity = modified, modified
	}
	r.models = c.models.names
	r.Models = c.models.usedNames()
	switch {
	case c.version >= 2:
		r.Leaves, r.Branches = c.children.counts()
	case c.observed > 0: // one linear chain
		r.Leaves = 1
	}
	return r
}

// modelName is "provider/model", or whichever half is known.
func modelName(provider, model string) string {
	switch {
	case provider == "":
		return model
	case model == "":
		return provider
	}
	return provider + "/" + model
}

// oneLine squeezes whitespace and cuts s to at most n runes (ending in …).
func oneLine(s string, n int) string {
	if limit := 8 * n; len(s) > limit { // look at the start only
		s = s[:limit]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return strings.TrimSpace(string(runes[:n-1])) + "…"
}

// keyOf turns an entry id into a compact dedup key: pi's usual 8
// lowercase hex digits exactly, anything else a 63-bit FNV-1a hash with the
// top bit set (so the two kinds never meet).
func keyOf(id string) uint64 {
	if v, ok := session.HexID(id); ok {
		return uint64(v)
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return h | 1<<63
}
