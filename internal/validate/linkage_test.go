package validate

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// TestIsAncestorMatchesNaiveWalk builds random trees (parents always
// earlier, as in a file) and checks the jump-pointer query against walking
// the parent links.
func TestIsAncestorMatchesNaiveWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 20; trial++ {
		k := newLinker(func(finding.Finding) {})
		n := 200 + rng.Intn(800)
		for i := 0; i < n; i++ {
			parent := int32(-1)
			switch {
			case i == 0:
			case rng.Intn(10) < 8:
				parent = int32(i - 1) // mostly a chain, as real sessions are
			default:
				parent = int32(rng.Intn(i))
			}
			node := node{parent: parent, jump: -1, line: int32(i + 2)}
			if parent >= 0 {
				node.depth = k.node(parent).depth + 1
				node.jump = k.jumpFor(parent)
			}
			k.nodes.add(node)
		}
		for q := 0; q < 2000; q++ {
			a, x := int32(rng.Intn(n)), int32(rng.Intn(n))
			if got, want := k.isAncestor(a, x), naiveAncestor(k, a, x); got != want {
				t.Fatalf("trial %d: isAncestor(%d, %d) = %v, want %v", trial, a, x, got, want)
			}
		}
	}
}

func naiveAncestor(k *linker, a, x int32) bool {
	for ; x >= 0; x = k.node(x).parent {
		if x == a {
			return true
		}
	}
	return false
}

func TestDeepChainAncestorIsFast(t *testing.T) {
	k := newLinker(func(finding.Finding) {})
	const n = 100000
	for i := 0; i < n; i++ {
		node := node{parent: int32(i - 1), jump: -1}
		if i > 0 {
			node.depth = k.node(int32(i-1)).depth + 1
			node.jump = k.jumpFor(int32(i - 1))
		}
		k.nodes.add(node)
	}
	steps := 0
	for x := int32(n - 1); x > 0; {
		if j := k.node(x).jump; j >= 0 {
			x = j
		} else {
			x = k.node(x).parent
		}
		steps++
	}
	if steps > 100 {
		t.Errorf("reaching the root of a %d-deep chain took %d jumps, want O(log n)", n, steps)
	}
	if !k.isAncestor(0, n-1) || k.isAncestor(n-1, 0) {
		t.Error("wrong answer on the deep chain")
	}
}

func TestHexID(t *testing.T) {
	for _, tt := range []struct {
		id string
		ok bool
	}{{"a1b2c3d4", true}, {"00000000", true}, {"A1B2C3D4", false}, {"a1b2c3d", false}, {"a1b2c3d4e", false}, {"g1b2c3d4", false}} {
		if _, ok := session.HexID(tt.id); ok != tt.ok {
			t.Errorf("session.HexID(%q) ok = %v, want %v", tt.id, ok, tt.ok)
		}
	}
	x := newIDIndex()
	x.add("a1b2c3d4", 1)
	x.add("not-hex-id", 2)
	if o, ok := x.get("a1b2c3d4"); !ok || o != 1 {
		t.Error("hex id lost")
	}
	if o, ok := x.get("not-hex-id"); !ok || o != 2 {
		t.Error("other id lost")
	}
	if _, ok := x.get("a1b2c3d5"); ok {
		t.Error("phantom id")
	}
}

// TestIDIndex: the id table through its growth: every id keeps the
// ordinal it was first added with, a second add reports the first, and
// ids never added are not found (sequential ids, which collide most in a
// table indexed by their low bits, and 00000000, whose key is 0).
func TestIDIndex(t *testing.T) {
	x := newIDIndex()
	const n = 100000
	id := func(i int) string { return fmt.Sprintf("%08x", i) }
	for i := range n {
		if _, dup := x.add(id(i), int32(i)); dup {
			t.Fatalf("%s: a duplicate on first add", id(i))
		}
	}
	for i := range n {
		if o, ok := x.get(id(i)); !ok || o != int32(i) {
			t.Fatalf("get(%s) = %d, %v; want %d", id(i), o, ok, i)
		}
		if prev, dup := x.add(id(i), int32(n+i)); !dup || prev != int32(i) {
			t.Fatalf("second add(%s) = %d, %v; want %d, true", id(i), prev, dup, i)
		}
	}
	for i := n; i < 2*n; i++ {
		if _, ok := x.get(id(i)); ok {
			t.Fatalf("phantom %s", id(i))
		}
	}
	if x.hex.Len() != n || 4*x.hex.Len() > 3*x.hex.Slots() {
		t.Errorf("%d ids in %d slots, want %d ids and at most 3/4 full", x.hex.Len(), x.hex.Slots(), n)
	}
}
