package audit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The charge log gives back every charge as it was added, whatever the
// values: hostile files carry token counts and times at the int64 limits.
func TestChargeLogRoundTrip(t *testing.T) {
	extremes := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 40}
	var want []charge
	for i, v := range extremes {
		want = append(want,
			charge{tokens: Tokens{v, -v, v / 3, 7, v}, cost: 0.0123, at: v, entry: int32(i), model: 0, price: costKnown},
			charge{tokens: Tokens{Total: v}, at: noTime, entry: -1, model: -1, price: costMissing},
			charge{tokens: Tokens{Input: 5, Total: 5}, at: 1767225600000 + v%1000, entry: math.MaxInt32, model: 3, price: costZero},
			charge{cost: math.Copysign(0, -1), at: math.MinInt64 + 1, entry: 2, price: costKnown},
			charge{cost: math.MaxFloat64, at: math.MaxInt64, entry: math.MinInt32, model: math.MaxInt32, price: costKnown},
		)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 50000; i++ { // enough to fill several chunks
		want = append(want, charge{tokens: Tokens{rng.Int64N(1 << 20), rng.Int64N(1 << 12), rng.Int64(), 0, rng.Int64N(1 << 22)},
			cost: rng.Float64(), at: 1767225600000 + int64(i)*1000, entry: int32(i), model: int32(i % 4), price: pricing(i % 3)})
		if want[len(want)-1].price != costKnown {
			want[len(want)-1].cost = 0
		}
	}
	var l chargeLog
	for _, ch := range want {
		l.add(ch)
	}
	got := slices.Collect(l.all())
	if l.len() != len(want) || len(got) != len(want) {
		t.Fatalf("%d charges back (len %d), want %d", len(got), l.len(), len(want))
	}
	for i := range want {
		if got[i] != want[i] || math.Signbit(got[i].cost) != math.Signbit(want[i].cost) {
			t.Fatalf("charge %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(l.chunks) < 2 {
		t.Errorf("%d chunks: the test should cross a chunk", len(l.chunks))
	}
}

// len is the number of charges.
func (l *chargeLog) len() int { return l.n }
