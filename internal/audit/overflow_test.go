package audit

import (
	"math"
	"testing"
)

// Hostile files may carry token counts and costs near the numeric limits:
// the totals saturate instead of wrapping around or becoming infinite
// (which JSON cannot encode: `pisess audit --format json` failed with exit
// 2 on two costs of 1.7e308).
func TestUsageTotalsSaturate(t *testing.T) {
	tests := []struct {
		name       string
		tokens     []int64
		costs      []float64
		wantTokens int64
		wantCost   float64
	}{
		{"ordinary", []int64{1, 2}, []float64{0.5, 0.25}, 3, 0.75},
		{"tokens past MaxInt64", []int64{math.MaxInt64 - 1, 9}, []float64{0, 0}, math.MaxInt64, 0},
		{"tokens past MinInt64", []int64{math.MinInt64 + 1, -9}, []float64{0, 0}, math.MinInt64, 0},
		{"cost past MaxFloat64", []int64{0, 0}, []float64{1.7e308, 1.7e308}, 0, math.MaxFloat64},
		{"cost past -MaxFloat64", []int64{0, 0}, []float64{-1.7e308, -1.7e308}, 0, -math.MaxFloat64},
		{"saturated cost comes back", []int64{0, 0, 0}, []float64{1.7e308, 1.7e308, -1.7e308}, 0, minus(math.MaxFloat64, 1.7e308)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u Usage
			for i := range tt.tokens {
				u.add(Tokens{Input: tt.tokens[i], Total: tt.tokens[i]}, tt.costs[i], costKnown)
			}
			if u.Tokens != (Tokens{Input: tt.wantTokens, Total: tt.wantTokens}) || u.Cost != tt.wantCost || u.Records != len(tt.tokens) {
				t.Errorf("got %d tokens, cost %g, %d records; want %d, %g, %d", u.Tokens, u.Cost, u.Records, tt.wantTokens, tt.wantCost, len(tt.tokens))
			}
		})
	}
}

// minus subtracts at run time (a constant expression would be exact).
func minus(a, b float64) float64 { return a - b }
