package validate

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Numbers as the schema checks read them. big.Rat, which jsonschema and
// the quick check compare numbers with, reads a decimal literal in time
// quadratic in its digits (a million digits: 5 s) and in its exponent
// (1e999999: 0.1 s), and cannot read an exponent past about 10^7 at all
// (jsonschema then dereferences a nil *big.Rat and panics). A line may
// hold such a number; tameNumber gives the checks a literal they read at
// once and judge as they would judge the original.

// tameDigits bounds the significant digits and the exponent of a literal
// that is read as it is written.
const tameDigits = 40

// tameNumber returns lit, a JSON number literal, when it is short; else
// its exact value written with its significant digits and a decimal
// exponent, when both are small; else a stand-in with the same sign, the
// same zero-ness and integer-ness and its magnitude on the same side of 1.
// A stand-in has 41 significant digits, so it equals no number a schema
// writes (schema constants are short), and neither does the number it
// stands for. The keywords our schemas use on numbers (integer, minimum 0,
// enums of small integers) judge both alike; the quick compiler refuses
// any other minimum or a long constant.
func tameNumber(lit string) string {
	if e := strings.IndexAny(lit, "eE"); len(lit) <= 24 && (e < 0 || len(lit)-e <= 4) {
		return lit // at most 23 digits and an exponent of 2: read at once
	}
	d, ok := decimalOf(lit)
	switch {
	case !ok:
		return lit
	case d.digits == "":
		return "0"
	case len(d.digits) <= tameDigits && d.exp >= -tameDigits && d.exp <= tameDigits:
		return d.sign + d.digits + "e" + strconv.FormatInt(d.exp, 10)
	}
	ones := strings.Repeat("1", tameDigits+1)
	switch {
	case d.exp >= 0:
		return d.sign + ones // an integer of 41 digits
	case d.exp+int64(len(d.digits)) > 0:
		return d.sign + ones + ".5" // not an integer, at least 1
	}
	return d.sign + "0." + ones // not an integer, below 1
}

// decimal is a number's exact value: sign digits × 10^exp, digits without
// leading or trailing zeros ("" for zero).
type decimal struct {
	sign   string // "" or "-"
	digits string
	exp    int64 // saturated at ±expLimit
}

// expLimit bounds the exponents decimalOf computes with: beyond it every
// answer tameNumber gives is the same.
const expLimit = 1 << 40

// decimalOf reads a JSON number literal (the grammar the classifier
// checked); ok is false for anything else.
func decimalOf(lit string) (d decimal, ok bool) {
	if strings.HasPrefix(lit, "-") {
		d.sign, lit = "-", lit[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(lit), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	exp := int64(0)
	if hasExp {
		if exp, ok = saturatedInt(expText); !ok {
			return d, false
		}
	}
	all := whole + frac
	first := strings.IndexFunc(all, func(r rune) bool { return r != '0' })
	if first < 0 {
		return decimal{}, true // zero, whatever its sign
	}
	last := strings.LastIndexFunc(all, func(r rune) bool { return r != '0' })
	d.digits = all[first : last+1]
	d.exp = clampExp(exp - int64(len(frac)) + int64(len(all)-1-last))
	return d, true
}

// saturatedInt reads an optionally signed run of digits, saturated at
// ±expLimit.
func saturatedInt(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+"), "0")
	n := int64(0)
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < expLimit {
			n = n*10 + int64(c-'0')
		}
	}
	if neg {
		n = -n
	}
	return clampExp(n), true
}

func clampExp(n int64) int64 { return max(-expLimit, min(expLimit, n)) }

// tameNumbers returns v with every number tameNumber changes replaced by
// its tamed literal, for jsonschema, and whether any changed: v itself
// when none did, else a copy of the containers on the way to those that
// did (v is left as it is, for the messages to quote).
func tameNumbers(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		t := tameNumber(string(x))
		return json.Number(t), t != string(x)
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if t, changed := tameNumbers(e); changed {
				if out == nil {
					out = maps.Clone(x)
				}
				out[k] = t
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range x {
			if t, changed := tameNumbers(e); changed {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = t
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}
