package project

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/pisess/pisess/internal/session"
)

// maxTimeMillis is ECMAScript's TimeClip bound.
const maxTimeMillis = 8.64e15

// jsDateJSON is JSON.stringify(new Date(v).getTime()) for a raw JSON value
// v: the Unix milliseconds, or null where JavaScript gets NaN.
func jsDateJSON(raw json.RawMessage) json.RawMessage {
	ms, ok := jsDateMillis(raw)
	if !ok {
		return json.RawMessage("null")
	}
	return json.RawMessage(strconv.FormatFloat(ms, 'f', -1, 64))
}

// millisOf is jsDateMillis of node n of t (-1: absent).
func millisOf(t *session.Tape, n int) (float64, bool) {
	if s, ok := t.Str(n); ok {
		return isoMillis(s)
	}
	return jsDateMillis(t.Raw(n))
}

// jsDateMillis is new Date(v).getTime() for a raw JSON value (absent =
// undefined). ok is false where JavaScript gets NaN.
func jsDateMillis(raw json.RawMessage) (float64, bool) {
	switch firstByte(raw) {
	case 0:
		return 0, false
	case 'n':
		return 0, true // new Date(null) is the epoch
	case 't':
		return 1, true
	case 'f':
		return 0, true
	case '"':
		s, _ := rawString(raw)
		return isoMillis(s)
	case '[', '{':
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.Abs(f) > maxTimeMillis {
		return 0, false
	}
	return math.Trunc(f) + 0, true // + 0 turns -0 into 0
}

// isoMillis parses the ECMAScript date-time string format the way V8 does
// for the forms pi writes: YYYY[-MM[-DD]] optionally followed by
// T|t|space HH:mm[:ss[.fraction]] and Z|z|±HH:mm|±HHmm. Date-only forms are
// UTC; a date-time without an offset is local time in JavaScript and UTC
// here (the conformance run sets TZ=UTC). Other strings, which V8's legacy
// parser may still accept, are NaN (ok false).
func isoMillis(s string) (float64, bool) {
	p := isoParser{s: s}
	year, ok := p.year()
	if !ok {
		return 0, false
	}
	month, day := 1, 1
	if p.eat('-') {
		if month, ok = p.digits(2); !ok || month < 1 || month > 12 {
			return 0, false
		}
		if p.eat('-') {
			if day, ok = p.digits(2); !ok || day < 1 || day > 31 {
				return 0, false
			}
		}
	}
	var hour, minute, second, nanos int
	offset := 0
	if !p.done() {
		if !p.eat('T') && !p.eat('t') && !p.eat(' ') {
			return 0, false
		}
		if hour, minute, second, nanos, ok = p.clock(); !ok {
			return 0, false
		}
		if offset, ok = p.zone(); !ok {
			return 0, false
		}
	}
	if !p.done() {
		return 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, second, nanos, time.UTC)
	ms := float64(t.Unix())*1000 + float64(t.Nanosecond()/1e6) - float64(offset)*60000
	if math.Abs(ms) > maxTimeMillis {
		return 0, false
	}
	return ms, true
}

type isoParser struct {
	s string
	i int
}

func (p *isoParser) done() bool { return p.i == len(p.s) }

func (p *isoParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// digits reads exactly n decimal digits.
func (p *isoParser) digits(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(p.s[p.i : p.i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

// year reads YYYY or an expanded ±YYYYYY year.
func (p *isoParser) year() (int, bool) {
	sign := 0
	switch {
	case p.eat('+'):
		sign = 1
	case p.eat('-'):
		sign = -1
	}
	if sign == 0 {
		return p.digits(4)
	}
	y, ok := p.digits(6)
	if !ok || (sign < 0 && y == 0) {
		return 0, false
	}
	return sign * y, true
}

// clock reads HH:mm[:ss[.fraction]]; 24:00[:00[.000]] is midnight at the
// end of the day.
func (p *isoParser) clock() (hour, minute, second, nanos int, ok bool) {
	if hour, ok = p.digits(2); !ok || !p.eat(':') {
		return 0, 0, 0, 0, false
	}
	if minute, ok = p.digits(2); !ok || minute > 59 {
		return 0, 0, 0, 0, false
	}
	if p.eat(':') {
		if second, ok = p.digits(2); !ok || second > 59 {
			return 0, 0, 0, 0, false
		}
		if p.eat('.') {
			if nanos, ok = p.fraction(); !ok {
				return 0, 0, 0, 0, false
			}
		}
	}
	if hour > 24 || (hour == 24 && (minute != 0 || second != 0 || nanos != 0)) {
		return 0, 0, 0, 0, false
	}
	return hour, minute, second, nanos, true
}

// fraction reads one or more digits of a second, truncated to milliseconds
// (as nanoseconds).
func (p *isoParser) fraction() (int, bool) {
	start, ms := p.i, 0
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		if p.i-start < 3 {
			ms = ms*10 + int(p.s[p.i]-'0')
		}
		p.i++
	}
	for n := p.i - start; n < 3; n++ {
		ms *= 10
	}
	return ms * 1e6, p.i > start
}

// zone reads an optional Z or ±HH:mm / ±HHmm offset, in minutes east of UTC.
func (p *isoParser) zone() (int, bool) {
	if p.eat('Z') || p.eat('z') || p.done() {
		return 0, true
	}
	sign := 1
	switch {
	case p.eat('+'):
	case p.eat('-'):
		sign = -1
	default:
		return 0, false
	}
	h, ok := p.digits(2)
	if !ok || h > 23 {
		return 0, false
	}
	p.eat(':')
	m, ok := p.digits(2)
	if !ok || m > 59 {
		return 0, false
	}
	return sign * (h*60 + m), true
}

// isoForm is the form of Date.prototype.toISOString, which pi writes its
// timestamps in.
const isoForm = "2006-01-02T15:04:05.000Z"

// isoRoom is what appendISO needs of a buffer not to grow it.
const isoRoom = len(isoForm)

// The milliseconds of 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z:
// toISOString writes the years outside them with six digits and a sign.
const (
	firstISOMilli = -62167219200000
	lastISOMilli  = 253402300799999
)

// appendISO appends new Date(ms).toISOString() to b for the years 0 to
// 9999 (the others are longer there), and reports whether it did. It
// writes the digits itself: AppendFormat reads its layout at every call,
// and the views and the index ask this of every entry.
func appendISO(b []byte, ms float64) ([]byte, bool) {
	if ms != math.Trunc(ms) || ms < firstISOMilli || ms > lastISOMilli {
		return b, false
	}
	t := time.UnixMilli(int64(ms)).UTC()
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = appendDigits(append(b, '-'), int(month), 2)
	b = appendDigits(append(b, '-'), day, 2)
	b = appendDigits(append(b, 'T'), hour, 2)
	b = appendDigits(append(b, ':'), minute, 2)
	b = appendDigits(append(b, ':'), sec, 2)
	b = appendDigits(append(b, '.'), t.Nanosecond()/1e6, 3)
	return append(b, 'Z'), true
}

// appendDigits appends the n low decimal digits of v (v >= 0), zeros first.
func appendDigits(b []byte, v, n int) []byte {
	b = append(b, "0000"[:n]...)
	for i := len(b) - 1; v > 0 && i >= len(b)-n; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

// isISOOf reports whether s is new Date(ms).toISOString(), so that the
// index need not keep s: appendISO of ms gives it back.
func isISOOf(s string, ms float64) bool {
	var buf [isoRoom]byte
	b, ok := appendISO(buf[:0], ms)
	return ok && string(b) == s
}
