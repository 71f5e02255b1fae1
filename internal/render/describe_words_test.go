package render

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// wordsSlow is wordsUpTo as it was written first, rune by rune: the
// reference the byte-at-a-time loop is held to.
func wordsSlow(s string, limit int) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		if limit > 0 && n >= limit {
			break
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

func FuzzWordsUpTo(f *testing.F) {
	for _, s := range []string{"", "  a  b\n\tc ", "héllo\u00a0wörld\u0085x", "\xff\xfe bad", "日本語 テキスト", "a\u2028b\u3000c", strings.Repeat("word ", 50)} {
		for _, limit := range []int{0, 1, 3, 61, 101} {
			f.Add(s, limit)
		}
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 0 {
			limit = -limit
		}
		if got, want := wordsUpTo(s, limit), wordsSlow(s, limit); got != want {
			t.Fatalf("wordsUpTo(%q, %d) = %q, want %q", s, limit, got, want)
		}
	})
}

// snippetSlow is snippet as it was first written, over a []rune.
// snippet is cutRunes with its "…", as a summary shows it.
func snippet(s string, n int) string {
	if kept, cut := cutRunes(s, n); cut {
		return kept + "…"
	}
	return s
}

func snippetSlow(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRightFunc(string(r[:n-1]), unicode.IsSpace) + "…"
}

func FuzzSnippet(f *testing.F) {
	for _, s := range []string{"", "abc", "héllo wörld", "\xff\xfe", "日本語テキスト", "a b c d e f "} {
		for _, n := range []int{1, 2, 3, 5, 60} {
			f.Add(s, n)
		}
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 200 {
			return
		}
		if got, want := snippet(s, n), snippetSlow(s, n); got != want {
			t.Fatalf("snippet(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}
