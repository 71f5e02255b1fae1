package grep

import (
	"bytes"
	"regexp"
	"unicode"
	"unicode/utf8"
)

// prefilter skips a line on its raw bytes when no text decoded from it can
// match: every match holds a literal, and the line's bytes do not.
//
// That is sound only where the literal's bytes are written as they are in
// a JSON string. Its characters must be none JSON escapes in pi's
// writing ('"', '\', control characters); and any character may be written
// \uXXXX, and '/' as \/, so a line holding "\u" (or "\/" for a literal
// with '/') is always searched. Under IgnoreCase the literal must be ASCII
// and fold only to ASCII (not k, s: K is also U+212A KELVIN SIGN, s is also
// U+017F LONG S), so that a byte search without regard to ASCII case finds
// every spelling.
type prefilter struct {
	literal []byte // nil: no prefilter, every line is searched
	fold    bool
	slash   bool // literal holds '/'
}

func newPrefilter(opts Options, re *regexp.Regexp) prefilter {
	lit := opts.Pattern
	if !opts.Fixed {
		plain := re
		if opts.IgnoreCase {
			var err error
			if plain, err = regexp.Compile(opts.Pattern); err != nil {
				return prefilter{}
			}
		}
		lit, _ = plain.LiteralPrefix()
	}
	if lit == "" || !literalAsWritten(lit, opts.IgnoreCase) {
		return prefilter{}
	}
	return prefilter{literal: []byte(lit), fold: opts.IgnoreCase, slash: bytes.IndexByte([]byte(lit), '/') >= 0}
}

// literalAsWritten reports whether lit's bytes appear as they are in any
// JSON string whose decoded value holds lit, \u escapes aside.
func literalAsWritten(lit string, fold bool) bool {
	for _, r := range lit {
		switch {
		case r == '"' || r == '\\' || r < 0x20 || r == utf8.RuneError:
			return false
		case fold && (r >= utf8.RuneSelf || !asciiOrbit(r)):
			return false
		}
	}
	return true
}

// asciiOrbit reports whether every rune r folds to is ASCII.
func asciiOrbit(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// mayMatch reports whether raw may hold a match.
func (p prefilter) mayMatch(raw []byte) bool {
	if p.literal == nil {
		return true
	}
	if p.fold {
		if indexFold(raw, p.literal) >= 0 {
			return true
		}
	} else if bytes.Contains(raw, p.literal) {
		return true
	}
	return bytes.Contains(raw, []byte(`\u`)) || (p.slash && bytes.Contains(raw, []byte(`\/`)))
}

// indexFold is the index of the first spelling of the ASCII literal lit in
// s, ASCII letters in either case; -1 when there is none.
func indexFold(s, lit []byte) int {
	lower, upper := toLower(lit[0]), toUpper(lit[0])
	for i := 0; i+len(lit) <= len(s); {
		j := indexEither(s[i:len(s)-len(lit)+1], lower, upper)
		if j < 0 {
			return -1
		}
		i += j
		if equalFoldASCII(s[i:i+len(lit)], lit) {
			return i
		}
		i++
	}
	return -1
}

// indexEither is the index of the first a or b in s, -1 when neither is.
func indexEither(s []byte, a, b byte) int {
	i := bytes.IndexByte(s, a)
	if a == b {
		return i
	}
	if i >= 0 {
		s = s[:i]
	}
	if j := bytes.IndexByte(s, b); j >= 0 {
		return j
	}
	return i
}

func equalFoldASCII(a, b []byte) bool {
	for i := range a {
		if toLower(a[i]) != toLower(b[i]) {
			return false
		}
	}
	return true
}

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func toUpper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
