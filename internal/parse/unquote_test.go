package parse

import (
	"encoding/json"
	"testing"
)

// Unquote reads a string token as encoding/json does, and refuses what is
// not exactly one.
func TestUnquote(t *testing.T) {
	for _, tok := range []string{`""`, `"abc"`, `"a\"b"`, `"\\\/\b\f\n\r\t"`, `"\u00e9\u0000"`, `"\ud83d\ude00"`,
		`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800x"`, `"é😀"`} {
		got, ok := Unquote([]byte(tok))
		var want string
		if err := json.Unmarshal([]byte(tok), &want); err != nil {
			t.Fatal(err)
		}
		if !ok || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", tok, got, ok, want)
		}
	}
	for _, bad := range []string{``, `"`, `abc`, `"abc`, `"a" "b"`, `"a"b`, ` "a"`, `"a\x"`, `"a\u12"`, "\"a\nb\"", `"trailing\"`} {
		if got, ok := Unquote([]byte(bad)); ok {
			t.Errorf("Unquote(%q) = %q, ok; want refused", bad, got)
		}
	}
}
