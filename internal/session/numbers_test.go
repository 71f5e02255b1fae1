package session

import (
	"math"
	"strconv"
	"testing"
	"time"
)

// numberLiterals are JSON number literals: those the fast paths read and
// those they leave to strconv.
var numberLiterals = []string{
	"0", "-0", "7", "-7", "1160", "123456789012345678", "-123456789012345678",
	"1234567890123456789", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
	"0.0123", "-0.0123", "1.50", "0.1", "0.2", "0.30000000000000004", "4503599627370495.5",
	"4503599627370496", "0.0000000000000000000001", "0.00000000000000000000001", "1e2", "1E-7",
	"2.5e+3", "1.7976931348623157e308", "1e400", "-1e400", "5e-324", "0.000001",
	"123456789.123456789", "99999999999999999999", "3.141592653589793",
}

func TestPlainNumbersReadAsStrconv(t *testing.T) {
	fast := 0
	for _, lit := range numberLiterals {
		checkPlainNumber(t, lit)
		if _, ok := plainFloat([]byte(lit)); ok {
			fast++
		}
	}
	for _, lit := range []string{"0.0123", "1160", "-0", "1.50", "0.000000000000000001"} {
		if _, ok := plainFloat([]byte(lit)); !ok {
			t.Errorf("plainFloat(%s) left to strconv: the form usage records hold", lit)
		}
	}
	for _, lit := range []string{"1160", "-7", "123456789012345678"} {
		if _, ok := plainInt([]byte(lit)); !ok {
			t.Errorf("plainInt(%s) left to strconv", lit)
		}
	}
	if fast == len(numberLiterals) {
		t.Error("every literal read by the fast path: the table tests no fallback")
	}
}

// checkPlainNumber fails when a fast path reads lit other than strconv.
func checkPlainNumber(t *testing.T, lit string) {
	t.Helper()
	if i, ok := plainInt([]byte(lit)); ok {
		want, err := strconv.ParseInt(lit, 10, 64)
		if err != nil || i != want {
			t.Errorf("plainInt(%q) = %d, strconv.ParseInt %d, %v", lit, i, want, err)
		}
	}
	if f, ok := plainFloat([]byte(lit)); ok {
		want, err := strconv.ParseFloat(lit, 64)
		if err != nil || math.Float64bits(f) != math.Float64bits(want) {
			t.Errorf("plainFloat(%q) = %v, strconv.ParseFloat %v, %v", lit, f, want, err)
		}
	}
}

// timestamps are what entries hold: pi's form, and forms time.Parse reads
// (or refuses) that the fast path leaves to it.
var timestamps = []string{
	"2026-01-31T18:00:00.123Z", "2026-01-31T18:00:00Z", "2026-01-31T18:00:00.1Z",
	"2026-01-31T18:00:00.123456789Z", "2026-01-31T18:00:00.1234567891Z", "2024-02-29T00:00:00.000Z",
	"2025-02-29T00:00:00.000Z", "2000-02-29T12:00:00Z", "1900-02-29T12:00:00Z", "2026-04-31T00:00:00Z",
	"2026-12-31T23:59:59.999Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z",
	"2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "2026-01-31T18:00:00.Z",
	"2026-01-31T18:00:00,123Z", "2026-01-31T18:00:00.123+02:00", "2026-01-31T18:00:00.123z",
	"2026-01-31t18:00:00.123Z", "2026-01-31 18:00:00.123Z", "0000-01-01T00:00:00Z", "+026-01-31T18:00:00Z",
	"2026-1-31T18:00:00.123Z", "2026-01-31T18:00:00.12aZ", "", "yesterday", "2026-01-31T18:00:00.123",
}

func TestReadTimeAsTimeParse(t *testing.T) {
	for _, s := range timestamps {
		checkReadTime(t, s)
	}
	for _, s := range []string{"2026-01-31T18:00:00.123Z", "2026-01-31T18:00:00Z", "2024-02-29T23:59:59.999999Z", "1970-01-01T00:00:00Z", "0000-01-01T00:00:00.5Z", "0000-03-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "1969-12-31T23:59:59.999Z"} {
		got, ok := utcTime(s)
		if !ok {
			t.Errorf("utcTime(%q) left to time.Parse: pi's form", s)
		}
		if want, _ := time.Parse(time.RFC3339Nano, s); got != want {
			t.Errorf("utcTime(%q) = %#v, time.Parse %#v", s, got, want)
		}
	}
}

// checkReadTime fails when readTime(s) is not time.Parse's reading.
func checkReadTime(t *testing.T, s string) {
	t.Helper()
	want, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		want = time.Time{}
	}
	got := readTime(s)
	gotZone, gotOffset := got.Zone()
	wantZone, wantOffset := want.Zone()
	// time.Parse makes a new FixedZone for each offset it reads: the same
	// zone, not the same pointer.
	if !got.Equal(want) || gotZone != wantZone || gotOffset != wantOffset || (got.Location() == time.UTC) != (want.Location() == time.UTC) {
		t.Errorf("readTime(%q) = %v, time.Parse %v (%v)", s, got, want, err)
	}
}

func FuzzPlainNumbers(f *testing.F) {
	for _, lit := range numberLiterals {
		f.Add(lit)
	}
	f.Fuzz(func(t *testing.T, lit string) { checkPlainNumber(t, lit) })
}

func FuzzReadTime(f *testing.F) {
	for _, s := range timestamps {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkReadTime(t, s) })
}

// TestUTCTimeEveryDay reads every day from 1900 to 2200, and every 13th
// from year 0 to 9999, as time.Parse does.
func TestUTCTimeEveryDay(t *testing.T) {
	check := func(d time.Time) {
		s := d.Format("2006-01-02T15:04:05.000Z")
		got, ok := utcTime(s)
		if want, _ := time.Parse(time.RFC3339Nano, s); !ok || got != want {
			t.Fatalf("utcTime(%q) = %v, %v; time.Parse %v", s, got, ok, want)
		}
	}
	for d := time.Date(1900, 1, 1, 23, 59, 58, 999e6, time.UTC); d.Year() < 2200; d = d.AddDate(0, 0, 1) {
		check(d)
	}
	for d := time.Date(0, 1, 1, 0, 0, 1, 0, time.UTC); d.Year() < 10000; d = d.AddDate(0, 0, 13) {
		check(d)
	}
}
