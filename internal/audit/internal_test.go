package audit

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/session"
)

func TestKeyOf(t *testing.T) {
	tests := []struct {
		id     string
		want   uint64
		hashed bool
	}{
		{"0000002a", 42, false},
		{"ffffffff", 0xffffffff, false},
		{"FFFFFFFF", 0, true}, // not pi's lowercase form: hashed, distinct from ffffffff
		{"0000002a0", 0, true},
		{"019ebb22-69c0-77df-8480-5618f0660c02", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got := keyOf(tt.id)
		if tt.hashed && got>>63 != 1 || !tt.hashed && got != tt.want {
			t.Errorf("keyOf(%q) = %#x", tt.id, got)
		}
	}
	if keyOf("a-long-id") == keyOf("a-long-ie") {
		t.Error("different ids, same key")
	}
}

func TestOneLine(t *testing.T) {
	long := ""
	for i := 0; i < 2000; i++ {
		long += "word "
	}
	tests := []struct{ in, want string }{
		{"  a\n\tb  ", "a b"},
		{"exactly 10", "exactly 10"},
		{"one two three four five six", "one two t…"},
		{"héllo wörld ünïcode", "héllo wör…"},
		{long, "word word…"},
	}
	for _, tt := range tests {
		if got := oneLine(tt.in, 10); got != tt.want {
			t.Errorf("oneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// entryOn reads an entry's JSON as validate hands it to the collector.
func entryOn(t *testing.T, line string) *session.Entry {
	t.Helper()
	var tape session.Tape
	if err := tape.Build([]byte(line)); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	var e session.Entry
	e.Read(&tape, session.Figures)
	return &e
}

func TestFirstText(t *testing.T) {
	for _, tt := range []struct{ content, want string }{
		{`"plain"`, "plain"},
		{`[{"type":"image","data":"x"},{"type":"text","text":"  "},{"type":"text","text":"second"}]`, "second"},
		{`[{"type":"text","text":"\n\t "},{"type":"text","text":"caf\u00e9"}]`, "café"},
		{`null`, ""},
		{`3`, ""},
	} {
		e := entryOn(t, `{"type":"message","message":{"role":"user","content":`+tt.content+`}}`)
		if got := e.Message.Text; got != tt.want {
			t.Errorf("text of %s = %q, want %q", tt.content, got, tt.want)
		}
	}
}

func TestUsageOf(t *testing.T) {
	tests := []struct {
		name   string
		u      string
		tokens Tokens
		cost   float64
		price  pricing
	}{
		{"totalTokens wins", `{"input":1,"output":2,"totalTokens":10,"cost":{"total":0.5}}`, Tokens{Input: 1, Output: 2, Total: 10}, 0.5, costKnown},
		{"sum without totalTokens", `{"input":1,"output":2,"cacheRead":3,"cacheWrite":4}`, Tokens{1, 2, 3, 4, 10}, 0, costMissing},
		{"a fractional total", `{"totalTokens":7.6}`, Tokens{Total: 8}, 0, costMissing},
		{"a string is no number", `{"totalTokens":"7","input":2}`, Tokens{Input: 2, Total: 2}, 0, costMissing},
		{"no cost total", `{"totalTokens":1,"cost":{"input":1}}`, Tokens{Total: 1}, 0, costMissing},
		{"cost total null", `{"totalTokens":1,"cost":{"total":null}}`, Tokens{Total: 1}, 0, costMissing},
		{"cost total out of range", `{"totalTokens":1,"cost":{"total":1e400}}`, Tokens{Total: 1}, 0, costMissing},
		{"zero cost for tokens", `{"input":5,"cost":{"total":0}}`, Tokens{Input: 5, Total: 5}, 0, costZero},
		{"zero cost, zero tokens", `{"input":0,"cost":{"total":0}}`, Tokens{}, 0, costKnown},
		{"exponent cost", `{"cost":{"total":1e-3}}`, Tokens{}, 0.001, costKnown},
		{"the last of duplicate keys", `{"input":1,"input":"x","cost":{"total":1},"cost":{"total":2}}`, Tokens{}, 2, costKnown},
	}
	for _, tt := range tests {
		e := entryOn(t, `{"type":"usage","usage":`+tt.u+`}`)
		tokens, cost, price := usageOf(e.Usage)
		if tokens != tt.tokens || cost != tt.cost || price != tt.price {
			t.Errorf("%s: %+v, $%v, pricing %d; want %+v, $%v, %d", tt.name, tokens, cost, price, tt.tokens, tt.cost, tt.price)
		}
	}
}

func TestPeriodOf(t *testing.T) {
	plus3 := time.FixedZone("+03", 3*3600)
	tests := []struct {
		by   Grouping
		at   time.Time
		loc  *time.Location
		want string
	}{
		{ByDay, time.Date(2026, 3, 4, 23, 59, 59, 0, time.UTC), time.UTC, "2026-03-04"},
		{ByDay, time.Date(2026, 3, 4, 23, 0, 0, 0, time.UTC), plus3, "2026-03-05"}, // the date where the user is
		{ByDay, time.Date(1969, 12, 31, 12, 0, 0, 0, time.UTC), time.UTC, "1969-12-31"},
		{ByWeek, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.UTC, "2026-W01"},
		{ByWeek, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), time.UTC, "2026-W53"}, // ISO year
		{ByMonth, time.Date(2026, 1, 31, 22, 0, 0, 0, time.UTC), plus3, "2026-02"},
	}
	for _, tt := range tests {
		if got := PeriodOf(tt.by, tt.at.UnixMilli(), tt.loc); got != tt.want {
			t.Errorf("PeriodOf(%s, %v, %v) = %s, want %s", tt.by, tt.at, tt.loc, got, tt.want)
		}
	}
	if got := PeriodOf(ByDay, noTime, time.UTC); got != Unknown {
		t.Errorf("no time: %s", got)
	}
}

// A message entry without its own timestamp is dated by its message's.
func TestChargeTimeFallback(t *testing.T) {
	c := NewCollector()
	var tape session.Tape
	if err := tape.Build([]byte(`{"type":"session","version":3,"cwd":"/w"}`)); err != nil {
		t.Fatal(err)
	}
	h := session.ReadHeader(&tape)
	c.Header(1, &h, session.Pi)
	c.Entry(2, entryOn(t, `{"type":"message","id":"00000001","message":{"role":"assistant","provider":"p","model":"m","timestamp":1767225600000,"usage":{"totalTokens":5}}}`), session.Link{First: 0, Parent: -1})
	charges := slices.Collect(c.rec.charges.all())
	if len(charges) != 1 || PeriodOf(ByDay, charges[0].at, time.UTC) != "2026-01-01" {
		t.Errorf("charges %+v", charges)
	}
}

func TestResolve(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	recs := []*Record{
		{Path: "a/2026-01-01T00-00-00-000Z_s-one.jsonl", SessionID: "s-one"},
		{Path: "b/session.jsonl", SessionID: "s-two"},
		{Path: "c/session.jsonl", SessionID: "s-three"},
		{Path: "d/fork.jsonl", SessionID: "s-four"},
	}
	idx := newPathIndex(recs)
	tests := []struct {
		name   string
		parent string
		self   int
		want   int
	}{
		{"absolute path", abs("b/session.jsonl"), 3, 1},
		{"absolute path, not clean", abs("b") + "/./session.jsonl", 3, 1},
		{"a file does not fork itself", abs("d/fork.jsonl"), 3, -1},
		{"base name elsewhere", "/home/u/.pi/sessions/x/2026-01-01T00-00-00-000Z_s-one.jsonl", 3, 0},
		{"windows path", `C:\Users\u\.pi\2026-01-01T00-00-00-000Z_s-one.jsonl`, 3, 0},
		{"ambiguous base name", "/elsewhere/session.jsonl", 3, -1},
		{"base name, other than self", "/elsewhere/session.jsonl", 1, 2},
		{"session id in another name", "/old/2025-01-01T00-00-00-000Z_s-three.jsonl", 3, 2},
		{"unknown", "/old/2025-01-01T00-00-00-000Z_nobody.jsonl", 3, -1},
		{"no session id", "/old/notes.txt", 3, -1},
	}
	for _, tt := range tests {
		if got := idx.resolve(tt.parent, tt.self); got != tt.want {
			t.Errorf("%s: resolve(%q) = %d, want %d", tt.name, tt.parent, got, tt.want)
		}
	}
}

// Lineages are transitive: a fork of a fork shares the root's lineage.
func TestLineages(t *testing.T) {
	recs := []*Record{
		{Path: "x/2026-01-03T00-00-00-000Z_c.jsonl", SessionID: "c", parents: []string{"/p/2026-01-02T00-00-00-000Z_b.jsonl"}},
		{Path: "x/2026-01-01T00-00-00-000Z_a.jsonl", SessionID: "a"},
		{Path: "x/2026-01-02T00-00-00-000Z_b.jsonl", SessionID: "b", parents: []string{"/p/2026-01-01T00-00-00-000Z_a.jsonl"}},
		{Path: "x/2026-01-04T00-00-00-000Z_d.jsonl", SessionID: "d"},
	}
	got := lineages(recs)
	if got[0] != got[1] || got[1] != got[2] || got[3] == got[0] {
		t.Errorf("lineage roots %v, want the first three together", got)
	}
}

func TestKnownRole(t *testing.T) {
	for i, role := range session.MessageRoles() {
		if got := knownRole(role); got != i {
			t.Errorf("knownRole(%q) = %d, want %d (its index in session.MessageRoles)", role, got, i)
		}
	}
	for _, role := range []string{"", "User", "tool", "assistant ", "toolresult"} {
		if got := knownRole(role); got != -1 {
			t.Errorf("knownRole(%q) = %d, want -1", role, got)
		}
	}
}

// TestModelTable: a model is numbered by its name, however its halves
// are split, and only the used ones are listed.
func TestModelTable(t *testing.T) {
	m := newModelTable()
	if n := m.number("", ""); n != -1 {
		t.Fatalf(`number("", "") = %d, want -1`, n)
	}
	a := m.number("anthropic", "claude")
	b := m.number("openai", "gpt")
	if m.number("anthropic", "claude") != a || m.number("anthropic/claude", "") != a || a == b {
		t.Fatalf("anthropic/claude numbered %d, again %d, as one half %d; openai/gpt %d",
			a, m.number("anthropic", "claude"), m.number("anthropic/claude", ""), b)
	}
	m.use(b)
	m.use(-1)
	c := m.number("", "solo")
	m.use(c)
	if got, want := m.usedNames(), []string{"openai/gpt", "solo"}; !slices.Equal(got, want) {
		t.Errorf("usedNames = %q, want %q", got, want)
	}
	if got := m.names; len(got) != 3 || got[a] != "anthropic/claude" || got[b] != "openai/gpt" || got[c] != "solo" {
		t.Errorf("names = %q", got)
	}
	if got := newModelTable(); got.usedNames() != nil {
		t.Errorf("usedNames of no model = %q, want nil", got.usedNames())
	}
}
