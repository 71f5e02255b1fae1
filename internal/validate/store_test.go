package validate

import (
	"strings"
	"testing"
)

func TestChunks(t *testing.T) {
	var s chunks[int64]
	const n = 3<<chunkBits + 5
	for i := 0; i < n; i++ {
		if got := s.add(int64(i) * 3); got != int32(i) {
			t.Fatalf("add returned %d, want %d", got, i)
		}
	}
	if s.len() != n {
		t.Fatalf("len = %d", s.len())
	}
	for i := int32(0); i < n; i++ {
		if *s.at(i) != int64(i)*3 {
			t.Fatalf("at(%d) = %d", i, *s.at(i))
		}
	}
	*s.at(5000) = -1
	if *s.at(5000) != -1 {
		t.Error("at does not point into the store")
	}
}

func TestTexts(t *testing.T) {
	var x texts
	type kept struct {
		ref  textRef
		want string
		got  string // read right after add: must not change later
	}
	var all []kept
	for i := 0; i < 20000; i++ {
		var s string
		switch i % 5 {
		case 0:
			s = ""
		case 1:
			s = "toolu_" + strings.Repeat("x", i%40)
		case 2:
			s = strings.Repeat("é", 1+i%3000) // up to 6000 bytes: some long
		default:
			s = "call_" + string(rune('a'+i%26))
		}
		r := x.add(s)
		all = append(all, kept{r, s, x.get(r)})
	}
	for i, k := range all {
		if got := x.get(k.ref); got != k.want || k.got != k.want {
			t.Fatalf("string %d: get = %q…, first read %q…, want %q…", i, trim(got), trim(k.got), trim(k.want))
		}
	}
	if x.get(0) != "" {
		t.Error("the zero ref is not the empty string")
	}
}

func trim(s string) string {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}
