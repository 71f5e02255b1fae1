package grep

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// prefilter skips a line on its raw bytes when no text decoded from it can
// match: every match holds a literal, and the line's bytes do not.
//
// That is sound only where the literal's bytes are written as they are in
// a JSON string. Its characters must be none JSON escapes in pi's
// writing ('"', '\', control characters); and any character may be written
// \uXXXX, and '/' as \/, so a line holding "\u" (or "\/" for a literal
// with '/') is always searched. A literal matched in either case must be ASCII
// and fold only to ASCII (not k, s: K is also U+212A KELVIN SIGN, s is also
// U+017F LONG S), so that a byte search without regard to ASCII case finds
// every spelling.
type prefilter struct {
	literal []byte // nil: no line prefilter, every line is searched
	fold    bool
	slash   bool // literal holds '/'
	// every holds the literals every match holds, for a check of each
	// decoded string before the regular expression runs on it.
	every []literal
	// starts: a literal every match starts with, in either case, and the
	// expression anchored, run only where the literal is (Go's regexp
	// skips to a literal prefix only when its case is fixed); nil when
	// the expression looks at what precedes a match (\b, ^, $).
	start    []byte
	anchored *regexp.Regexp
}

// literal is a string every match holds, in either case when fold.
type literal struct {
	text string
	fold bool
}

func newPrefilter(expr string) prefilter {
	var p prefilter
	for _, lit := range requiredLiterals(expr) {
		if lit.fold && !foldsInASCII(lit.text) {
			continue // no byte search finds every spelling
		}
		p.every = append(p.every, lit)
		if literalAsWritten(lit.text) && len(lit.text) > len(p.literal) {
			p.literal, p.fold = []byte(lit.text), lit.fold
		}
	}
	p.slash = bytes.IndexByte(p.literal, '/') >= 0
	p.start, p.anchored = foldedStart(expr)
	return p
}

// foldedStart is the literal in either case every match of expr starts
// with, and expr anchored at the start of its input; nil when there is
// none or the expression has an assertion.
func foldedStart(expr string) ([]byte, *regexp.Regexp) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, nil
	}
	re = re.Simplify()
	first := re
	if re.Op == syntax.OpConcat {
		first = re.Sub[0]
	}
	if first.Op != syntax.OpLiteral || first.Flags&syntax.FoldCase == 0 || !foldsInASCII(string(first.Rune)) || asserts(re) {
		return nil, nil
	}
	anchored, err := regexp.Compile(`^(?:` + expr + `)`)
	if err != nil {
		return nil, nil
	}
	return []byte(string(first.Rune)), anchored
}

// asserts reports whether re holds an assertion about where it is (a
// word boundary, the start or end of a line or of the text).
func asserts(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	}
	for _, sub := range re.Sub {
		if asserts(sub) {
			return true
		}
	}
	return false
}

// find is the leftmost match of re in s, as re.FindStringIndex; with a
// folded start, the anchored expression is tried at each of its places.
func (p prefilter) find(re *regexp.Regexp, s string) []int {
	if p.anchored == nil {
		return re.FindStringIndex(s)
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	for at := 0; at < len(s); {
		i := indexFold(b[at:], p.start)
		if i < 0 {
			return nil
		}
		at += i
		if m := p.anchored.FindStringIndex(s[at:]); m != nil {
			return []int{at + m[0], at + m[1]}
		}
		at++
	}
	return nil
}

// requiredLiterals are the literal pieces of expr's top-level
// concatenation: every match holds each of them.
func requiredLiterals(expr string) []literal {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	var out []literal
	for _, sub := range subs {
		if sub.Op == syntax.OpLiteral && len(sub.Rune) > 0 {
			out = append(out, literal{text: string(sub.Rune), fold: sub.Flags&syntax.FoldCase != 0})
		}
	}
	return out
}

// foldsInASCII reports whether lit is ASCII and every case of its
// letters is too.
func foldsInASCII(lit string) bool {
	for _, r := range lit {
		if r >= utf8.RuneSelf || !asciiOrbit(r) {
			return false
		}
	}
	return true
}

// mayHold reports whether the decoded string s may hold a match.
func (p prefilter) mayHold(s string) bool {
	for _, lit := range p.every {
		if lit.fold {
			if indexFold(unsafe.Slice(unsafe.StringData(s), len(s)), []byte(lit.text)) < 0 {
				return false
			}
		} else if !strings.Contains(s, lit.text) {
			return false
		}
	}
	return true
}

// literalAsWritten reports whether lit's bytes appear as they are in any
// JSON string whose decoded value holds lit, \u escapes aside.
func literalAsWritten(lit string) bool {
	for _, r := range lit {
		if r == '"' || r == '\\' || r < 0x20 || r == utf8.RuneError {
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
