package project

import "testing"

// TestISOAllocations: isISOOf, which the index workers ask of every
// entry, makes no garbage, and appendISO into a buffer of isoRoom does not
// grow it (AppendFormat writes nine digits of nanoseconds before it cuts
// them to three: a buffer of len(isoForm) grew on the heap each time).
func TestISOAllocations(t *testing.T) {
	const ms = 1_770_000_000_123 // 2026-02-02T02:40:00.123Z
	b, ok := appendISO(nil, ms)
	if !ok || string(b) != "2026-02-02T02:40:00.123Z" {
		t.Fatalf("appendISO = %q, %v", b, ok)
	}
	s := string(b)
	if n := testing.AllocsPerRun(100, func() {
		if !isISOOf(s, ms) {
			t.Fatal("isISOOf is false for its own form")
		}
	}); n != 0 {
		t.Errorf("isISOOf allocates %v times a call", n)
	}
	if n := testing.AllocsPerRun(100, func() { appendISO(make([]byte, 0, isoRoom), ms) }); n > 1 {
		t.Errorf("appendISO into a buffer of isoRoom allocates %v times (the buffer grew)", n)
	}
}
