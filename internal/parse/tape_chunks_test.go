package parse

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
