package text

import (
	"math"
	"testing"
)

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234",
		math.MaxInt64: "9,223,372,036,854,775,807", math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// One unit system, IEC like du -h: never kB or MB.
func TestBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1, "1 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{1048575, "1.0 MiB"}, // 1023.999 KiB rounds to the next unit, not "1024.0 KiB"
		{17386238, "16.6 MiB"},
		{1 << 30, "1.0 GiB"},
		{1 << 40, "1.0 TiB"},
		{math.MaxInt64, "8.0 EiB"},
		{-2048, "-2.0 KiB"},
	}
	for _, tt := range tests {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// Costs: 2 decimals from $1, 4 below; never "$0.00" for a cost that is
// not zero.
func TestMoney(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0, "$0.0000"},
		{0.00001, "<$0.0001"},
		{0.0022, "$0.0022"},
		{0.01, "$0.0100"},
		{0.55, "$0.5500"},
		{0.99994, "$0.9999"},
		{0.99996, "$1.00"}, // would round to $1.0000
		{1, "$1.00"},
		{1.005, "$1.00"},
		{12.009982250000006, "$12.01"},
		{174.267069534, "$174.27"},
		{1234567.891, "$1,234,567.89"},
		{-2.5, "-$2.50"},
		{-0.25, "-$0.2500"},
		{1e30, "$1000000000000000019884624838656.00"}, // past int64: no separators
	}
	for _, tt := range tests {
		if got := Money(tt.x); got != tt.want {
			t.Errorf("Money(%v) = %q, want %q", tt.x, got, tt.want)
		}
	}
}

func TestPluralWords(t *testing.T) {
	tests := []struct {
		n         int
		one, many string
		want      string
	}{
		{0, "file", "files", "0 files"},
		{1, "file", "files", "1 file"},
		{2, "file", "files", "2 files"},
		{1, "warning", "warnings", "1 warning"},
		{1200, "entry", "entries", "1,200 entries"},
	}
	for _, tt := range tests {
		if got := Plural(tt.n, tt.one, tt.many); got != tt.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tt.n, tt.one, got, tt.want)
		}
	}
}
