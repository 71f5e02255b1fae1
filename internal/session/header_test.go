package session

import (
	"encoding/json"
	"testing"
)

func tapeOf(t testing.TB, line string) *Tape {
	t.Helper()
	var tape Tape
	if err := tape.Build([]byte(line)); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return &tape
}

// TestHeaderVersion: absent or null is 1 (pi reads `version ?? 1`), a
// number is read as JSON.parse reads it, only 1, 2 and 3 are read.
func TestHeaderVersion(t *testing.T) {
	tests := []struct {
		version string // the member, "" for none
		want    int
		ok      bool
		text    string
	}{
		{"", 1, true, ""},
		{`"version":null,`, 1, true, "null"},
		{`"version":1,`, 1, true, "1"},
		{`"version":2,`, 2, true, "2"},
		{`"version":3,`, 3, true, "3"},
		{`"version":3.0,`, 3, true, "3.0"},
		{`"version":3e0,`, 3, true, "3e0"},
		{`"version":4,`, 4, false, "4"},
		{`"version":0,`, 0, false, "0"},
		{`"version":-1,`, -1, false, "-1"},
		{`"version":2.5,`, 0, false, "2.5"},
		{`"version":1e400,`, 0, false, "1e400"},
		{`"version":"3",`, 0, false, `"3"`},
		{`"version":true,`, 0, false, "true"},
		{`"version":[3],`, 0, false, "[3]"},
		{`"version":2,"version":null,`, 1, true, "null"}, // the last of duplicate keys
	}
	for _, tt := range tests {
		h := ReadHeader(tapeOf(t, `{"type":"session",`+tt.version+`"id":"s"}`))
		if h.Version != tt.want || h.VersionOK != tt.ok || h.VersionText != tt.text {
			t.Errorf("%s: version %d ok %v text %q; want %d %v %q", tt.version, h.Version, h.VersionOK, h.VersionText, tt.want, tt.ok, tt.text)
		}
	}
}

func TestHeaderFields(t *testing.T) {
	h := ReadHeader(tapeOf(t, `{"type":"session","version":1,"id":"s1","timestamp":"ts","cwd":"/w","parentSession":"p.jsonl","branchedFrom":"b.jsonl","provider":"anthropic","modelId":"claude"}`))
	want := Header{Type: "session", ID: "s1", Version: 1, VersionOK: true, VersionText: "1", ParentSession: "p.jsonl",
		BranchedFrom: "b.jsonl", Cwd: "/w", Timestamp: "ts", Provider: "anthropic", ModelID: "claude"}
	if h != want {
		t.Errorf("got %+v\nwant %+v", h, want)
	}
	h = ReadHeader(tapeOf(t, `{"kind":"header","version":4}`))
	if h.Type != "" || h.Kind != "header" || !h.HasKind || h.Version != 4 || h.VersionOK {
		t.Errorf("newer format: %+v", h)
	}
	if h := ReadHeader(tapeOf(t, `{"type":"session","kind":7}`)); !h.HasKind || h.Kind != "" {
		t.Errorf("a kind that is no string: %+v", h)
	}
}

func TestPiEntryTypes(t *testing.T) {
	types := PiEntryTypes()
	if len(types) != 11 {
		t.Fatalf("%d entry types", len(types))
	}
	for _, typ := range types {
		if !IsEntryType(typ) {
			t.Errorf("IsEntryType(%q) is false", typ)
		}
	}
	for _, typ := range []string{"session", "", "Message", "hookMessage", "title_change"} {
		if IsEntryType(typ) {
			t.Errorf("IsEntryType(%q) is true", typ)
		}
	}
	for _, e := range EntryTypes() { // pi's are those of the one list
		if IsEntryType(e.Name) != e.Pi {
			t.Errorf("IsEntryType(%q) is %v, EntryTypes says pi writes it: %v", e.Name, !e.Pi, e.Pi)
		}
	}
	types[0] = "changed"
	if PiEntryTypes()[0] != "message" {
		t.Error("PiEntryTypes shares its list")
	}
}

// FuzzReadHeader: ReadHeader reads what the decoded map holds.
func FuzzReadHeader(f *testing.F) {
	for _, line := range []string{
		`{"type":"session","version":3,"id":"s","cwd":"/w"}`, `{"type":"session","version":null}`,
		`{"kind":"header","version":4}`, `{"type":"session","version":2.0,"parentSession":"p"}`,
		`{"t\u0079pe":"session","version":"3","version":1}`,
	} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var tape Tape
		if _, ok := tape.Line(line); !ok {
			return
		}
		v, err := Decode(line, false)
		if err != nil {
			t.Fatalf("Tape.Line accepted %q, Decode: %v", line, err)
		}
		str := func(key string) string { s, _ := v[key].(string); return s }
		h := ReadHeader(&tape)
		_, hasKind := v["kind"]
		if h.Type != str("type") || h.Kind != str("kind") || h.HasKind != hasKind || h.ID != str("id") ||
			h.ParentSession != str("parentSession") || h.Cwd != str("cwd") || h.ModelID != str("modelId") {
			t.Fatalf("%q: %+v", line, h)
		}
		want, wantOK := 1, true // absent or null
		if version := v["version"]; version != nil {
			n, _ := version.(json.Number)
			f, err := n.Float64()
			want, wantOK = int(f), err == nil && (f == 1 || f == 2 || f == 3)
		}
		if h.VersionOK != wantOK || wantOK && h.Version != want {
			t.Fatalf("%q: version %d ok %v (%q)", line, h.Version, h.VersionOK, h.VersionText)
		}
	})
}

// TestMessageRoles: the roles are pi 1.6.0's eight, each once, and the
// legacy name of custom is not one of them.
func TestMessageRoles(t *testing.T) {
	roles := MessageRoles()
	seen := map[string]bool{}
	for _, r := range roles {
		if seen[r] || r == "" {
			t.Errorf("role %q listed twice or empty", r)
		}
		seen[r] = true
	}
	for _, want := range []string{"user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary", "system"} {
		if !seen[want] {
			t.Errorf("%s missing", want)
		}
	}
	if seen[LegacyCustomRole] {
		t.Errorf("%s is a version-1/2 name, not a role", LegacyCustomRole)
	}
}
