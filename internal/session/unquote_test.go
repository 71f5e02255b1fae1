package session

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
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

// FuzzUnquote: on valid UTF-8, Unquote accepts what encoding/json accepts
// as one string token, and decodes it to the same string.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud800\udc00"`, `"\ud800"`, `"a\"`, `"\u00"`, `"a" `, `"é\n"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, tok []byte) {
		if !utf8.Valid(tok) {
			return
		}
		got, ok := Unquote(tok)
		var want string
		err := json.Unmarshal(tok, &want)
		isString := len(tok) > 0 && tok[0] == '"' && tok[len(tok)-1] == '"'
		switch {
		case err == nil && isString && (!ok || got != want):
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json %q", tok, got, ok, want)
		case ok && err != nil:
			t.Fatalf("Unquote(%q) = %q, ok; encoding/json: %v", tok, got, err)
		}
	})
}
