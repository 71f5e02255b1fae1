package secrets

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// byteSet is a set of bytes.
type byteSet [256]bool

// requiredBytes returns a set of bytes of which every match of re holds
// one, or nil when it finds none worth testing: a window around a keyword
// that holds none of them cannot hold a match, and is skipped without
// running the regex (a line of "token token …" holds no "=" or ":", which
// every secret-assignment match does). The set is kept small and apart
// from the bytes of the keywords (which every window holds).
func requiredBytes(re *syntax.Regexp, keywords []string) *byteSet {
	var kw byteSet
	for _, k := range keywords {
		for i := 0; i < len(k); i++ {
			kw[k[i]] = true
			kw[upperByte(k[i])] = true // keywords are found in any case
		}
	}
	set := required(re, &kw)
	if set == nil || set.meets(&kw) {
		return nil
	}
	return set
}

// required returns a set of bytes of which every match of re holds one,
// preferring the cheapest by cost, or nil for none.
func required(re *syntax.Regexp, kw *byteSet) *byteSet {
	switch re.Op {
	case syntax.OpLiteral:
		var best *byteSet
		for _, r := range re.Rune {
			best = cheaper(best, runeSet(r, re.Flags&syntax.FoldCase != 0), kw)
		}
		return best
	case syntax.OpCharClass:
		return classSet(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0], kw)
	case syntax.OpRepeat:
		if re.Min > 0 {
			return required(re.Sub[0], kw)
		}
	case syntax.OpConcat:
		var best *byteSet
		for _, sub := range re.Sub {
			best = cheaper(best, required(sub, kw), kw)
		}
		return best
	case syntax.OpAlternate:
		union := new(byteSet)
		for _, sub := range re.Sub {
			set := required(sub, kw)
			if set == nil {
				return nil
			}
			for b, in := range set {
				union[b] = union[b] || in
			}
		}
		return union
	}
	return nil // it may match no byte (x*, x?, ^, \b), or any (.)
}

// runeSet returns the bytes a match of rune r holds one of: r itself
// when ASCII, else any byte from 0x80 (a lead byte, or an invalid byte
// read as U+FFFD); with fold, for each case of r.
func runeSet(r rune, fold bool) *byteSet {
	set := new(byteSet)
	set.addRune(r)
	for f := unicode.SimpleFold(r); fold && f != r; f = unicode.SimpleFold(f) {
		set.addRune(f)
	}
	return set
}

// classSet returns the bytes a match of a character class (ranges lo-hi)
// holds one of.
func classSet(ranges []rune) *byteSet {
	set := new(byteSet)
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < utf8.RuneSelf; r++ {
			set[r] = true
		}
		if ranges[i+1] >= utf8.RuneSelf {
			set.addRune(utf8.RuneSelf)
		}
	}
	return set
}

func (s *byteSet) addRune(r rune) {
	if r < utf8.RuneSelf {
		s[r] = true
		return
	}
	for b := utf8.RuneSelf; b < len(s); b++ {
		s[b] = true
	}
}

// meets reports whether s and t share a byte.
func (s *byteSet) meets(t *byteSet) bool {
	for b, in := range s {
		if in && t[b] {
			return true
		}
	}
	return false
}

// cheaper returns whichever of a and b (nil: none) is cheaper to require:
// one apart from the keywords' bytes, then the smaller, a space counting
// as three bytes (it is common in text).
func cheaper(a, b, kw *byteSet) *byteSet {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case b.cost(kw) < a.cost(kw):
		return b
	}
	return a
}

func (s *byteSet) cost(kw *byteSet) int {
	n := 0
	for _, in := range s {
		if in {
			n++
		}
	}
	if s[' '] {
		n += 2
	}
	if s.meets(kw) {
		n += 1000
	}
	return n
}

// upperByte maps an ASCII lower-case letter to its upper case.
func upperByte(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
