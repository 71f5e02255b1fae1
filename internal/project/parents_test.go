package project

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// TestParentsAsPiResolvesThem: the index resolves parents while entries
// come (the previous entry, else the id table as it stands) and finish
// retries the rest, or every entry once an id came twice. Whatever the
// order, each parent must be what pi's byId gives once the whole file is
// read: the last entry with that id, anywhere in the file.
func TestParentsAsPiResolvesThem(t *testing.T) {
	type e struct{ id, parent string }
	tests := []struct {
		name    string
		entries []e
	}{
		{"linear", []e{{"a", ""}, {"b", "a"}, {"c", "b"}}},
		{"branch", []e{{"a", ""}, {"b", "a"}, {"c", "a"}, {"d", "b"}}},
		{"parent later in the file", []e{{"b", "a"}, {"a", ""}, {"c", "b"}}},
		{"id again after its child", []e{{"a", ""}, {"b", "a"}, {"x", ""}, {"a", "x"}}},
		{"id again before its child", []e{{"a", ""}, {"a", ""}, {"b", "a"}}},
		{"previous entry's id comes again", []e{{"a", ""}, {"b", "a"}, {"c", "b"}, {"b", ""}}},
		{"self parent", []e{{"a", "a"}, {"b", "a"}}},
		{"parent names no entry", []e{{"a", ""}, {"b", "zz"}}},
		{"entries without ids", []e{{"", ""}, {"b", ""}, {"", "b"}, {"c", ""}}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 4 {
		var es []e
		for i := range 3000 {
			id := fmt.Sprintf("%08x", rng.IntN(2000+k*1000)) // some ids come twice
			parent := ""
			if i > 0 {
				parent = fmt.Sprintf("%08x", rng.IntN(2000+k*1000))
			}
			es = append(es, e{id, parent})
		}
		tests = append(tests, struct {
			name    string
			entries []e
		}{fmt.Sprintf("random %d", k), es})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n")
			last := map[string]int{}
			for i, x := range tt.entries {
				parent := "null"
				if x.parent != "" {
					parent = `"` + x.parent + `"`
				}
				fmt.Fprintf(&b, `{"type":"custom","customType":"t","id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z"}`+"\n", x.id, parent)
				if x.id != "" {
					last[x.id] = i
				}
			}
			s, err := Load(strings.NewReader(b.String()), session.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range tt.entries {
				want := -1
				if j, ok := last[x.parent]; ok && x.parent != "" {
					want = j
				}
				got := -1
				if p := s.Parent(s.Entries[i]); p != nil {
					got = p.Index
				}
				if got != want {
					t.Errorf("entry %d (id %q, parentId %q): parent %d, want %d", i, x.id, x.parent, got, want)
				}
			}
		})
	}
}
