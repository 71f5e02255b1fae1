package project

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestISOAllocations: isISOOf, which the index workers ask of every
// entry, makes no garbage, and appendISO into a buffer of isoRoom does not
// grow it (with AppendFormat, which writes nine digits of nanoseconds
// before it cuts them to three, a buffer of len(isoForm) grew each time).
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

// isoByLayout is appendISO as time's layout writes it: the reference
// appendISO's own digits are held to.
func isoByLayout(ms float64) (string, bool) {
	if ms != math.Trunc(ms) || math.IsInf(ms, 0) || math.Abs(ms) > 1e17 {
		return "", false
	}
	t := time.UnixMilli(int64(ms)).UTC()
	if t.Year() < 0 || t.Year() > 9999 {
		return "", false
	}
	return t.Format(isoForm), true
}

func checkISO(t *testing.T, ms float64) {
	t.Helper()
	want, wantOK := isoByLayout(ms)
	got, ok := appendISO([]byte("x"), ms)
	if ok != wantOK || (ok && string(got) != "x"+want) || (!ok && string(got) != "x") {
		t.Fatalf("appendISO(x, %v) = %q, %v; the layout gives %q, %v", ms, got, ok, want, wantOK)
	}
}

// TestAppendISOAsLayout: the years' ends, either side of them, the epoch
// and a million times spread over the range.
func TestAppendISOAsLayout(t *testing.T) {
	for _, ms := range []float64{0, -1, 1, 999, 1000, -1000, -1001, firstISOMilli, firstISOMilli - 1,
		lastISOMilli, lastISOMilli + 1, 951782400000 /* 2000-02-29 */, 1.5, -0.5, math.NaN(),
		math.Inf(1), math.Inf(-1), 1e300, -1e300} {
		checkISO(t, ms)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		checkISO(t, float64(r.Int64N(lastISOMilli-firstISOMilli+3)+firstISOMilli-1))
	}
}

func FuzzAppendISO(f *testing.F) {
	f.Add(int64(0))
	f.Add(int64(firstISOMilli))
	f.Add(int64(lastISOMilli))
	f.Fuzz(func(t *testing.T, ms int64) { checkISO(t, float64(ms)) })
}
