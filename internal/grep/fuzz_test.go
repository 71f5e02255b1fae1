package grep

import (
	"slices"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// FuzzPrefilter: on any user message whose content is written with any
// escapes JSON allows, the prefilters (the raw line's, the decoded
// string's, the folded start's) change no match.
func FuzzPrefilter(f *testing.F) {
	f.Add(`caf\u00e9 \"menu\"`, "café", true, false)
	f.Add(`\u0041BC`, "abc", true, true)
	f.Add(`a\/b`, "a/b", true, false)
	f.Add(`rate\nlimit`, `rate\s+limit`, false, true)
	f.Add(`\u212a`, "k", true, true)
	f.Fuzz(func(t *testing.T, body, pattern string, fixed, fold bool) {
		line := header + `{"type":"message","id":"x","parentId":null,"timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"` + body + `"}}` + "\n"
		var tape session.Tape
		if _, ok := tape.Line([]byte(strings.TrimSuffix(line[len(header):], "\n"))); !ok || strings.Contains(body, "\n") {
			return // not one JSON line
		}
		m, err := Compile(Options{Pattern: pattern, Fixed: fixed, IgnoreCase: fold, Limits: session.DefaultLimits()})
		if err != nil {
			return
		}
		with := run(t, m, line)
		m.filter = prefilter{}
		if without := run(t, m, line); !slices.Equal(with, without) {
			t.Fatalf("%q in %q: with the prefilters %q, without %q", pattern, body, with, without)
		}
	})
}
