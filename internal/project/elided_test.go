package project

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// TestElidedStringsComeBack: the index keeps no parentId that is the id of
// the entry before and no timestamp that is its time value's ISO form
// (entry.go, elided), and ParentID and Timestamp give back the strings the
// record holds, on every version-3 session of our corpus and of the real
// one and on a session built to trip the elision: a misplaced header, a
// corrupt line and concatenated objects between an entry and its child,
// a child whose parent is the misplaced header's id, timestamps pi does
// not write, non-string timestamps and a parentId that names an entry
// further back.
func TestElidedStringsComeBack(t *testing.T) {
	entry := func(id, parent, stamp string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":` + stamp +
			`,"message":{"role":"user","content":"hi"}}`
	}
	iso := `"2026-01-02T03:04:05.678Z"`
	tricky := strings.Join([]string{
		`{"type":"session","version":3,"id":"s","timestamp":` + iso + `,"cwd":"/"}`,
		entry("a", `null`, iso),
		entry("b", `"a"`, iso),
		`{"type":"session","version":3,"id":"h2","timestamp":` + iso + `,"cwd":"/"}`,
		entry("c", `"h2"`, iso),
		`{"type":"session","version":3,"id":"h3","timestamp":` + iso + `,"cwd":"/"}`,
		entry("c2", `"c"`, `"2026-01-02T03:04:05Z"`),
		`{"type":"message","id":`,
		entry("d", `"c2"`, `"2026-01-02T03:04:05.678+00:00"`) + entry("e", `"d"`, `1767323045678`),
		entry("f", `"h2"`, `null`),
		entry("g", `"e"`, `"+020000-01-01T00:00:00.000Z"`),
		entry("h", `"g"`, `"1970-01-01T00:00:00.000Z"`),
		entry("i", `"h"`, `""`),
	}, "\n") + "\n"
	check := func(t *testing.T, name string, s *Session) {
		t.Helper()
		elided := 0
		for _, e := range s.Entries {
			r, err := s.Read(e)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got, want := e.ParentID(), r.Str("parentId"); got != want {
				t.Errorf("%s line %d: ParentID %q, the record's %q", name, e.Line, got, want)
			}
			if got, want := e.Timestamp(), r.Str("timestamp"); got != want {
				t.Errorf("%s line %d: Timestamp %q, the record's %q", name, e.Line, got, want)
			}
			if got, want := string(e.AppendTimestamp([]byte("x"))), "x"+r.Str("timestamp"); got != want {
				t.Errorf("%s line %d: AppendTimestamp %q, want %q", name, e.Line, got, want)
			}
			if e.elided != 0 {
				elided++
			}
		}
		if elided == 0 && len(s.Entries) > 1 {
			t.Errorf("%s: no string was elided: the test compares nothing", name)
		}
	}
	s, err := Load(strings.NewReader(tricky), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 10 {
		t.Fatalf("the tricky session has %d entries, want 10", len(s.Entries))
	}
	check(t, "tricky", s)
	files, _ := filepath.Glob("../../testdata/corpus/*/*.jsonl")
	real, _ := filepath.Glob("../../../shared/corpus/real/*.jsonl")
	if len(real) == 0 {
		t.Log("no real corpus at ../../../shared/corpus/real: our corpus only (CI has it)")
	}
	for _, f := range append(files, real...) {
		s, err := Open(f, session.DefaultLimits())
		if err != nil || s.Header.Version != CurrentVersion || s.Dialect != session.Pi {
			continue
		}
		check(t, f, s)
		s.Close()
	}
}
