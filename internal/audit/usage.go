package audit

import (
	"math"

	"github.com/pisess/pisess/internal/session"
)

// Tokens splits a token count the way pi's usage records do.
type Tokens struct {
	Input      int64
	Output     int64
	CacheRead  int64
	CacheWrite int64
	// Total is the records' totalTokens, or input+output+cacheRead+
	// cacheWrite for a record without one: it need not equal the sum of
	// the four fields above when a file's totalTokens disagree.
	Total int64
}

func (t *Tokens) add(u Tokens) {
	t.Input = saturatingAdd(t.Input, u.Input)
	t.Output = saturatingAdd(t.Output, u.Output)
	t.CacheRead = saturatingAdd(t.CacheRead, u.CacheRead)
	t.CacheWrite = saturatingAdd(t.CacheWrite, u.CacheWrite)
	t.Total = saturatingAdd(t.Total, u.Total)
}

// Usage totals usage records.
type Usage struct {
	Records int     // usage records counted
	Tokens  Tokens  // their tokens
	Cost    float64 // the sum of the cost.total they record
	// CostMissing counts records without a numeric cost.total, CostZero
	// those with tokens whose cost.total is 0: their cost is not known,
	// and Cost leaves them out.
	CostMissing int
	CostZero    int
}

// Unpriced is the number of records whose cost is not known.
func (u Usage) Unpriced() int { return u.CostMissing + u.CostZero }

// Priced is the number of records whose cost is known.
func (u Usage) Priced() int { return u.Records - u.Unpriced() }

func (u *Usage) add(tokens Tokens, cost float64, price pricing) {
	u.Records++
	u.Tokens.add(tokens)
	u.Cost = finiteAdd(u.Cost, cost)
	switch price {
	case costMissing:
		u.CostMissing++
	case costZero:
		u.CostZero++
	}
}

// pricing says whether a usage record's cost is known.
type pricing uint8

const (
	costKnown   pricing = iota
	costMissing         // no numeric cost.total
	costZero            // cost.total is 0 although the record has tokens
)

// saturatingAdd adds without wrapping around: hostile files may hold
// token counts near the int64 limits.
func saturatingAdd(a, b int64) int64 {
	switch s := a + b; {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	default:
		return s
	}
}

// finiteAdd adds, keeping the sum finite (JSON has no infinity): costs
// near the float64 limits saturate at ±math.MaxFloat64.
func finiteAdd(a, b float64) float64 {
	s := a + b
	if math.IsInf(s, 0) {
		return math.Copysign(math.MaxFloat64, s)
	}
	return s
}

// usageOf reads one usage record: input, output, cacheRead and cacheWrite
// as recorded; the total is totalTokens, or the sum of the four when
// totalTokens is absent; the cost is cost.total, and whether it is known.
func usageOf(u session.Usage) (Tokens, float64, pricing) {
	t := Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
	if u.HasTotalTokens {
		t.Total = u.TotalTokens
	} else {
		t.Total = saturatingAdd(saturatingAdd(t.Input, t.Output), saturatingAdd(t.CacheRead, t.CacheWrite))
	}
	switch {
	case !u.HasCost:
		return t, 0, costMissing
	case u.Cost == 0 && t.Total != 0:
		return t, 0, costZero
	}
	return t, u.Cost, costKnown
}
