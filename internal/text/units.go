package text

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
)

// Count formats an integer with thousands separators: 1234567 → 1,234,567.
func Count(n int64) string { return humanize.Comma(n) }

// Plural formats a count with its noun.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(int64(n)) + " " + many
}

// Bytes formats a size in binary units, one decimal from KiB on:
// 683 → "683 B", 1536 → "1.5 KiB", 17386238 → "16.6 MiB".
func Bytes(n int64) string {
	if n < 1024 && n > -1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, i := math.Abs(float64(n))/1024, 0
	// 1023.96 KiB rounds up to the next unit
	for (v >= 1024 || fmt.Sprintf("%.1f", v) == "1024.0") && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", math.Copysign(v, float64(n)), units[i])
}

// Money formats dollars: 2 decimals from $1 on ($1,234.50), 4 below
// ($0.0022, $0.5500, $0.0000), and "<$0.0001" for a cost that would show
// as zero but is not.
func Money(x float64) string {
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	switch {
	case x == 0:
		return "$0.0000"
	case x < 0.00005:
		return sign + "<$0.0001"
	case x < 0.99995: // rounds to less than $1.0000
		return sign + "$" + strconv.FormatFloat(x, 'f', 4, 64)
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	whole, cents, _ := strings.Cut(s, ".")
	if n, err := strconv.ParseInt(whole, 10, 64); err == nil { // beyond int64: no separators
		s = Count(n) + "." + cents
	}
	return sign + "$" + s
}
