package text

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Count formats an integer with thousands separators: 1234567 → 1,234,567.
func Count(n int64) string {
	s, neg := strings.CutPrefix(strconv.FormatInt(n, 10), "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

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
	v := math.Abs(float64(n))
	i := -1
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if s := fmt.Sprintf("%.1f", v); s == "1024.0" && i < len(units)-1 { // 1023.96 KiB rounds up to the next unit
		v /= 1024
		i++
	}
	sign := ""
	if n < 0 {
		sign = "-"
	}
	return fmt.Sprintf("%s%.1f %s", sign, v, units[i])
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
	return sign + "$" + commaFloat(x, 2)
}

// commaFloat formats a non-negative x with prec decimals and thousands
// separators.
func commaFloat(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'f', prec, 64)
	whole, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return s // beyond int64: no separators
	}
	out := Count(n)
	if frac != "" {
		out += "." + frac
	}
	return out
}
