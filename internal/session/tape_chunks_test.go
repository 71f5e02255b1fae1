package session

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// StrChunks yields Str's value, in pieces that never split a character.
func TestStrChunks(t *testing.T) {
	long := strings.Repeat(`a\n\"é€😀\ud83d\ude00\u00e9x`, 20000) // escapes and characters of 1 to 4 bytes across the piece boundaries
	for _, body := range []string{"", "plain", `one\nescape`, long, strings.Repeat("é", 70000) + `\t`} {
		var tape Tape
		if err := tape.Build([]byte(`{"s":"` + body + `"}`)); err != nil {
			t.Fatal(err)
		}
		n := tape.Get(0, "s")
		want, _ := tape.Str(n)
		var got strings.Builder
		pieces := 0
		for piece := range tape.StrChunks(n) {
			if !utf8.ValidString(piece) {
				t.Errorf("piece %d ends inside a character", pieces)
			}
			got.WriteString(piece)
			pieces++
		}
		if got.String() != want {
			t.Errorf("body of %d bytes: pieces join to %d bytes, Str gives %d", len(body), got.Len(), len(want))
		}
		if len(body) > 2*strChunk && pieces < 2 {
			t.Errorf("body of %d bytes in %d piece(s)", len(body), pieces)
		}
	}
	var tape Tape
	tape.Build([]byte(`{"n":1}`))
	for range tape.StrChunks(tape.Get(0, "n")) {
		t.Error("a number yields a piece")
	}
}

// The decoding buffer is the tape's, kept from one StrChunks to the next
// (the views decode every escaped text of a session through it: a new
// buffer each time was 350 MB of garbage on a 1 GB session), and a
// StrChunks within another gets one of its own, so neither's pieces are
// overwritten by the other's.
func TestStrChunksReuseTheTapesBuffer(t *testing.T) {
	var tape Tape
	if err := tape.Build([]byte(`{"a":"one\ntwo","b":"three\tfour ` + strings.Repeat(`\u00e9`, 30000) + `"}`)); err != nil {
		t.Fatal(err)
	}
	a, b := tape.Get(0, "a"), tape.Get(0, "b")
	wantA, _ := tape.Str(a)
	wantB, _ := tape.Str(b)
	join := func(n int) string {
		var s strings.Builder
		for piece := range tape.StrChunks(n) {
			s.WriteString(piece)
		}
		return s.String()
	}
	count := func(n int) (bytes int) {
		for piece := range tape.StrChunks(n) {
			bytes += len(piece)
		}
		return bytes
	}
	count(b) // the buffer is the tape's from now on
	if allocs := testing.AllocsPerRun(20, func() { count(a); count(b) }); allocs != 0 {
		t.Errorf("StrChunks of an escaped string: %.0f allocations, want the tape's buffer reused", allocs)
	}
	var outer strings.Builder
	inner := ""
	for piece := range tape.StrChunks(a) {
		inner = join(b)
		outer.WriteString(piece)
	}
	if outer.String() != wantA || inner != wantB {
		t.Errorf("nested StrChunks: outer %q, inner of %d bytes (want %q, %d)", outer.String(), len(inner), wantA, len(wantB))
	}
}
