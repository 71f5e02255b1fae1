package session

import "time"

// The readers of usage records and timestamps (Detail Figures) read a few
// numbers and a timestamp of every entry, nearly all of them in the plain
// forms pi writes: these fast paths read those forms to exactly what
// strconv and time.Parse return, and anything else is left to them
// (issue 28: they were a tenth of audit's CPU on a file of small entries).

// plainInt reads a JSON integer literal of at most 18 digits (so it fits
// an int64), as strconv.ParseInt does; ok is false for any other literal.
func plainInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// plainFloat reads a JSON number literal without an exponent whose digits
// make an integer below 2^52 and whose fraction has at most 22 digits:
// that integer and the power of ten are exact, so their quotient is the
// correctly rounded value strconv.ParseFloat returns (its own exact path,
// atof64exact). ok is false for any other literal.
func plainFloat(b []byte) (float64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if digits++; digits > 19 {
				return 0, false
			}
			mant = mant*10 + uint64(c-'0')
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || mant>>52 != 0 || frac >= len(exactPow10) {
		return 0, false
	}
	f := float64(mant) / exactPow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// readTime reads a timestamp as time.Parse(time.RFC3339Nano, s) does,
// the zero time when it does not: pi's form, 2026-01-31T18:00:00.123Z (a
// fraction of up to nine digits or none, UTC), is read here, any other
// by time.Parse.
func readTime(s string) time.Time {
	if t, ok := utcTime(s); ok {
		return t
	}
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// utcTime reads YYYY-MM-DDTHH:MM:SS[.F{1,9}]Z with every field in range;
// ok is false for anything else.
func utcTime(s string) (time.Time, bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := decimal(s[0:4])
	month, ok2 := decimal(s[5:7])
	day, ok3 := decimal(s[8:10])
	hour, ok4 := decimal(s[11:13])
	minute, ok5 := decimal(s[14:16])
	sec, ok6 := decimal(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := s[19 : len(s)-1]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		n, ok := decimal(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			n *= 10
		}
		nsec = n
	}
	secs := unixDays(year, month, day)*86400 + int64(hour*3600+minute*60+sec)
	return time.Unix(secs, int64(nsec)).UTC(), true // time.Date's value, without its normalizing
}

// unixDays is the number of days from 1970-01-01 to the date (proleptic
// Gregorian; year 0 to 9999), by eras of 400 years (Howard Hinnant's
// days_from_civil).
func unixDays(year, month, day int) int64 {
	if month <= 2 {
		year--
	}
	year += 400 // no negative years: year 0's January is the year before
	era := year / 400
	yoe := year - era*400
	mp := (month + 9) % 12 // March is 0
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era-1)*146097 + int64(doe) - 719468
}

// decimal reads a run of decimal digits (at most nine).
func decimal(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// daysIn is the number of days of month in year (proleptic Gregorian).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
