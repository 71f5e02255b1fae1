package session

import (
	"fmt"
	"testing"
)

func TestKeysNumbers(t *testing.T) {
	base := NewKeys(nil, "type", "id", "", "type", "parentId")
	if base.Len() != 4 {
		t.Fatalf("Len = %d, want 4 (a repeated name keeps its first number)", base.Len())
	}
	for n, name := range []string{"type", "id", "", "parentId"} {
		if got := base.Number(name); got != n+1 {
			t.Errorf("Number(%q) = %d, want %d", name, got, n+1)
		}
		if got := base.Name(n + 1); got != name {
			t.Errorf("Name(%d) = %q, want %q", n+1, got, name)
		}
	}
	for _, name := range []string{"typ", "types", "Type", "parentID", "i", "d", "role"} {
		if got := base.Number(name); got != 0 {
			t.Errorf("Number(%q) = %d, want 0", name, got)
		}
	}
	ext := NewKeys(base, "role", "id", "content")
	if ext.Len() != 6 || ext.Number("id") != 2 || ext.Number("role") != 5 || ext.Number("content") != 6 {
		t.Errorf("the extension renumbered: Len %d, id %d, role %d, content %d", ext.Len(), ext.Number("id"), ext.Number("role"), ext.Number("content"))
	}
	if !ext.Extends(base) || !ext.Extends(ext) || base.Extends(ext) || (*Keys)(nil).Extends(base) {
		t.Error("Extends is wrong")
	}
}

// TestKeysMany: a set of thousands of names that share lengths and first
// 8 bytes (the hash's inputs) still numbers each.
func TestKeysMany(t *testing.T) {
	var names []string
	for i := range 3000 {
		names = append(names, fmt.Sprintf("k%04dz", i), fmt.Sprintf("k%dz", i), fmt.Sprintf("firstKept%d", i))
	}
	k := NewKeys(nil, names...)
	for i, name := range names {
		if got := k.Number(name); got == 0 || k.Name(got) != name {
			t.Fatalf("Number(%q) = %d (name %d)", name, got, i)
		}
		if got := k.Number(name + "x"); got != 0 {
			t.Fatalf("Number(%q) = %d, want 0", name+"x", got)
		}
	}
}

func TestTapeKeyNumbers(t *testing.T) {
	for _, line := range []string{
		`{}`,
		`{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"x"}]}}`,
		`{"\u0074ype":1,"t\u0079pe":2,"":3,"id":{"id":{"":[{"role":4}]}},"parentId\u0000":5}`,
		`{"a":{"b":{"c":{"type":[{"id":{}}]}}},"role":"r","role":"s"}`,
		`{"firstKeptEntryId":1,"firstKeptEntryIndex":2,"firstKeptEntryIdx":3,"firstKep":4,"firstKe":5,"firstKeptEntryI\u0064":6,"ty":{"type":1}}`,
	} {
		checkKeys(t, []byte(line))
	}
}

// checkKeys checks the key numbers of every key node of line (an object
// Tape.Line accepts): built with a set, with an extension of it and
// without, each read with the set and the extension, KeyNumber is the
// number of the decoded key.
func checkKeys(t *testing.T, line []byte) {
	t.Helper()
	var plain Tape
	if _, ok := plain.Line(line); !ok {
		t.Fatalf("Tape.Line(%q) refused it", line)
	}
	var decoded []string
	eachKey(&plain, 0, func(k int) { s, _ := plain.Str(k); decoded = append(decoded, s) })
	half := decoded[:len(decoded)/2]
	base := NewKeys(nil, append([]string{"type", "id", "role"}, half...)...)
	ext := NewKeys(base, append([]string{"content", "parentId"}, decoded...)...)
	for _, built := range []*Keys{nil, base, ext} {
		var tape Tape
		tape.SetKeys(built)
		if _, ok := tape.Line(line); !ok {
			t.Fatalf("Tape.Line(%q) with keys refused it", line)
		}
		tape.SetKeys(NewKeys(nil, "other")) // for the next build: this one keeps its own
		i := 0
		eachKey(&tape, 0, func(k int) {
			if built != nil && int(tape.nodes[k].key) != built.Number(decoded[i]) {
				t.Errorf("%q: key %q built with %d keys has number %d on its node, want %d", line, decoded[i], built.Len(), tape.nodes[k].key, built.Number(decoded[i]))
			}
			for _, read := range []*Keys{base, ext} {
				if got, want := tape.KeyNumber(read, k), read.Number(decoded[i]); got != want {
					t.Errorf("%q: key %q built with %d keys, read with %d: number %d, want %d", line, decoded[i], built.lenOrZero(), read.Len(), got, want)
				}
			}
			i++
		})
	}
}

func (k *Keys) lenOrZero() int {
	if k == nil {
		return 0
	}
	return k.Len()
}

// eachKey calls f with every key node inside node n, in document order.
func eachKey(t *Tape, n int, f func(k int)) {
	switch t.Kind(n) {
	case KindObject:
		for k, v := range t.Members(n) {
			f(k)
			eachKey(t, v, f)
		}
	case KindArray:
		for e := range t.Elements(n) {
			eachKey(t, e, f)
		}
	}
}
