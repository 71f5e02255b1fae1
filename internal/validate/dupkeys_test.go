package validate

import (
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/session"
)

// dupKeyEntry is a custom entry whose parentId is given n times with a
// wrong value before the last, valid one (JSON.parse keeps the last).
func dupKeyEntry(n int) string {
	return `{"type":"custom","id":"aaaaaaaa",` + strings.Repeat(`"parentId":1,`, n) +
		`"parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","customType":"x"}`
}

// TestDuplicateKeysCostLinearTime: the quick check looked every rejected
// duplicate member up again (Tape.Get, a walk over the whole object) to
// see whether it was the last of its key, so n duplicates cost n² steps:
// a 1.3 MB line of 100,000 took 46 s. Ten times the duplicates must cost
// about ten times as much, not a hundred.
func TestDuplicateKeysCostLinearTime(t *testing.T) {
	schemas := compileForTest(t)
	cost := func(n int) time.Duration {
		var tape session.Tape
		if err := tape.Build([]byte(dupKeyEntry(n))); err != nil {
			t.Fatal(err)
		}
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			if fs := schemas.CheckTape(3, 2, &tape); len(fs) != 0 {
				t.Fatalf("findings %v, want none: the last parentId is valid", fs)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	small, large := cost(3000), cost(30000)
	if large > 40*max(small, time.Microsecond) {
		t.Errorf("3,000 duplicates: %v, 30,000: %v (quadratic)", small, large)
	}
}

// TestDuplicateKeysLastCounts: of duplicate keys the last one is judged,
// in the quick check as in jsonschema.
func TestDuplicateKeysLastCounts(t *testing.T) {
	schemas := compileForTest(t)
	for _, tt := range []struct {
		line  string
		valid bool
	}{
		{dupKeyEntry(3), true},
		{strings.Replace(dupKeyEntry(0), `"parentId":null,`, `"parentId":null,"parentId":1,`, 1), false},
		{strings.Replace(dupKeyEntry(2), `"parentId":null,`, `"parentId":null,"parentId":2,"parentId":"p",`, 1), true},
	} {
		var tape session.Tape
		if err := tape.Build([]byte(tt.line)); err != nil {
			t.Fatal(err)
		}
		c, _, _ := schemas.checkOf(3, pickOf(&tape))
		if got := c.quick.validAt(&tape, 0); got != tt.valid {
			t.Errorf("%s: quick %v, want %v", tt.line, got, tt.valid)
		}
		if got := len(schemas.CheckTape(3, 2, &tape)) == 0; got != tt.valid {
			t.Errorf("%s: CheckTape valid %v, want %v", tt.line, got, tt.valid)
		}
	}
}
