package validate

import (
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// TestQuickKeysNumbered: every schema a check can reach has its key table
// by number in the schemas' keys (CompileSchemas numbers them after the
// flat ones are made), the keys extend session.EntryKeys, and a tape built
// with them, or without, gets the same verdicts.
func TestQuickKeysNumbered(t *testing.T) {
	s := compileForTest(t)
	if !s.keys.Extends(session.EntryKeys()) {
		t.Fatal("the schemas' keys do not extend session.EntryKeys")
	}
	checks := []check{s.header, s.omp.title, s.omp.header}
	for _, c := range s.omp.entries {
		checks = append(checks, c)
	}
	for v := 1; v <= 3; v++ {
		vs := s.versions[v]
		checks = append(checks, vs.untyped, vs.message)
		for _, c := range vs.entries {
			checks = append(checks, c)
		}
		for _, c := range vs.roles {
			checks = append(checks, c)
		}
	}
	seen := map[*quickSchema]bool{}
	var all []*quickSchema
	for _, c := range checks {
		all = reachable(c.quick, seen, all)
	}
	tables := 0
	for _, q := range all {
		if q.vocab != s.keys {
			t.Fatalf("a schema (names %v) is not numbered in the schemas' keys", q.names)
		}
		if len(q.names) > 0 {
			tables++
			if len(q.byNumber) != s.keys.Len()+1 {
				t.Fatalf("schema of %v: table of %d, want %d", q.names, len(q.byNumber), s.keys.Len()+1)
			}
			for i, name := range q.names {
				if n := s.keys.Number(name); n == 0 || int(q.byNumber[n]) != i+1 {
					t.Fatalf("schema of %v: %q is not at its number", q.names, name)
				}
			}
		}
		if q.cases != nil && (q.cases.vocab != s.keys || q.cases.number == 0) {
			t.Fatalf("switch on %q not numbered", q.cases.key)
		}
	}
	t.Logf("%d schemas, %d key tables of %d bytes", len(all), tables, s.keys.Len()+1)

	for _, line := range []string{
		`{"type":"message",` + baseV3 + `,"message":` + userMsg + `}`,
		`{"type":"message",` + baseV3 + `,"message":` + assistantMsg + `}`,
		`{"type":"message",` + baseV3 + `,"message":{"role":"user","content":"hi","timestamp":1},"message":{"role":1}}`,
		`{"t\u0079pe":"message",` + baseV3 + `,"m\u0065ssage":` + toolResultMsg + `}`,
	} {
		var verdicts []bool
		for _, keys := range []*session.Keys{nil, session.EntryKeys(), s.keys} {
			var tape session.Tape
			tape.SetKeys(keys)
			if _, ok := tape.Line([]byte(line)); !ok {
				t.Fatalf("refused %s", line)
			}
			verdicts = append(verdicts, len(s.CheckTape(3, 2, &tape)) == 0)
		}
		if verdicts[0] != verdicts[1] || verdicts[0] != verdicts[2] {
			t.Errorf("%s: verdicts without keys, with the entry's, with the schemas': %v", line, verdicts)
		}
	}
}
