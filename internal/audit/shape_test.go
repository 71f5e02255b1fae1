package audit_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Leaves and branch points count the entry ids as a map of every id's
// children does (an id is a node once, its children every entry with a
// non-empty id whose parentId names it, wherever that entry is), on files
// that break the tree every way validate's linker meets: duplicate ids,
// parents named before their entry, self-parents, parents never seen,
// entries without an id or with the id "", hex and other ids.
func TestShapeOfBrokenTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	for round := 0; round < 150; round++ {
		n := 1 + rng.IntN(60)
		space := 1 + rng.IntN(2*n)
		idOf := func(k int) string {
			if k%3 == 0 {
				return fmt.Sprintf("id-%d", k) // not pi's hex shape
			}
			return fmt.Sprintf("%08x", k)
		}
		type node struct {
			exists   bool
			children int
		}
		ref := map[string]*node{}
		at := func(id string) *node {
			if ref[id] == nil {
				ref[id] = &node{}
			}
			return ref[id]
		}
		lines := []string{header(fmt.Sprintf("s%d", round), "/w", "")}
		for i := 0; i < n; i++ {
			id := idOf(rng.IntN(space))
			idJSON := fmt.Sprintf(`"id":%q,`, id)
			switch rng.IntN(12) {
			case 0:
				id, idJSON = "", ""
			case 1:
				id, idJSON = "", `"id":"",`
			}
			var parent string
			parentJSON := `"parentId":null,`
			hasParent := false
			switch r := rng.IntN(10); {
			case r == 0:
				parentJSON = ""
			case r == 1 && id != "":
				parent, hasParent = id, true // a self-parent
			case r == 2:
				parent, hasParent = "", true
			case r > 2:
				parent, hasParent = idOf(rng.IntN(space)), true
			}
			if hasParent {
				parentJSON = fmt.Sprintf(`"parentId":%q,`, parent)
			}
			lines = append(lines, fmt.Sprintf(`{"type":"label",%s%s"timestamp":"2026-01-01T00:00:00.000Z","targetId":null,"label":"x"}`, idJSON, parentJSON))
			if id == "" {
				continue
			}
			at(id).exists = true
			if hasParent && parent != "" {
				at(parent).children++
			}
		}
		var leaves, branches int
		for _, nd := range ref {
			switch {
			case !nd.exists:
			case nd.children == 0:
				leaves++
			case nd.children > 1:
				branches++
			}
		}
		r := fileOf(t, write(t, dir, fmt.Sprintf("r%d.jsonl", round), lines...))
		if r.Leaves != leaves || r.Branches != branches || r.Entries != n {
			t.Fatalf("round %d: %d entries, %d leaves, %d branch points; want %d, %d, %d\n%s", round, r.Entries, r.Leaves, r.Branches, n, leaves, branches, lines)
		}
	}
}
