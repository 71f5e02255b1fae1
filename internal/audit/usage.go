package audit

import (
	"encoding/json"
	"math"
)

// usageOf reads one usage record: tokens are totalTokens, or the sum of
// input, output, cacheRead and cacheWrite when totalTokens is absent; the
// cost is cost.total (0 when absent).
func usageOf(u map[string]any) (tokens int64, cost float64) {
	if total, ok := integer(u["totalTokens"]); ok {
		tokens = total
	} else {
		for _, key := range []string{"input", "output", "cacheRead", "cacheWrite"} {
			n, _ := integer(u[key])
			tokens += n
		}
	}
	if c, ok := u["cost"].(map[string]any); ok {
		cost, _ = number(c["total"])
	}
	return tokens, cost
}

// integer reads a JSON number as an integer (rounding a fraction).
func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, ok := number(v)
	if !ok || f > math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(math.Round(f)), true
}

// number reads a finite JSON number.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
