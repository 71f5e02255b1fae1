package text

import (
	"strings"
	"testing"
)

// printableSlow is PrintableASCII a byte at a time.
func printableSlow(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return i
		}
	}
	return len(s)
}

func TestPrintableASCII(t *testing.T) {
	long := strings.Repeat("abcdefgh", 4)
	cases := []string{"", "a", "hello, world", long, "\x1f", " ~", "\x7f", "\x80"}
	for _, c := range []byte{0x00, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff} { // every edge, at every place of a word and after it
		for at := 0; at < 17; at++ {
			b := []byte(long[:17])
			b[at] = c
			cases = append(cases, string(b))
		}
	}
	for _, s := range cases {
		if got, want := PrintableASCII(s), printableSlow(s); got != want {
			t.Errorf("PrintableASCII(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzPrintableASCII(f *testing.F) {
	f.Add("plain words, then \x1b[31m")
	f.Add("0123456789abcdef\x7f")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := PrintableASCII(s), printableSlow(s); got != want {
			t.Fatalf("PrintableASCII(%q) = %d, want %d", s, got, want)
		}
	})
}
