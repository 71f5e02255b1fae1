package cli

import (
	"encoding/json"
	"math"
	"testing"
)

// money rounded x*1e9, which overflows to +Inf for costs above ~1.8e299:
// `pisess audit --format json` then failed with "json: unsupported value:
// +Inf" (exit 2) on a file claiming a cost of 1.7e308.
func TestMoneyStaysFinite(t *testing.T) {
	for _, x := range []float64{0, 0.1 + 0.2, 1.7e308, -1.7e308, math.MaxFloat64, -math.MaxFloat64, 1e-300} {
		got := money(x)
		if math.IsInf(got, 0) || math.IsNaN(got) {
			t.Errorf("money(%g) = %g", x, got)
		}
		if _, err := json.Marshal(got); err != nil {
			t.Errorf("money(%g): %v", x, err)
		}
	}
	if got := money(0.1 + 0.2); got != 0.3 {
		t.Errorf("money(0.1+0.2) = %v, want 0.3", got)
	}
}
