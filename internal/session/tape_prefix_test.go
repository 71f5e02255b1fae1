package session

import "testing"

// FuzzStrPrefix: StrPrefix is the first max bytes of what Str decodes.
func FuzzStrPrefix(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\u00e9\ud83d\ude00c"`, `"\\\"\/"`, `""`, `"\ud800x"`} {
		f.Add([]byte(`{"k":`+s+`}`), uint16(3))
	}
	f.Fuzz(func(t *testing.T, line []byte, max uint16) {
		var tape Tape
		if _, ok := tape.Line(line); !ok {
			return
		}
		for n := 0; n < len(tape.nodes); n++ {
			full, ok := tape.Str(n)
			got := tape.StrPrefix(n, int(max))
			if !ok {
				if got != "" {
					t.Fatalf("node %d is no string, StrPrefix %q", n, got)
				}
				continue
			}
			if want := full[:min(len(full), int(max))]; got != want {
				t.Fatalf("%q node %d: StrPrefix(%d) = %q, want %q", line, n, max, got, want)
			}
		}
	})
}
