package session

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestPrefixString(t *testing.T) {
	tests := []struct {
		name, line string
		want       string
		found      bool
	}{
		{"id then cut", `{"type":"message","id":"abc12345","parentId":"ff`, "abc12345", true},
		{"cut in the id", `{"type":"message","id":"abc1`, "", false},
		{"cut before the id", `{"type":"message",`, "", false},
		{"cut after the id value", `{"type":"message","id":"abc12345"`, "abc12345", true},
		{"id after a nested object", `{"message":{"id":"inner","x":[1,{"id":"deeper"}]},"id":"outer","m`, "outer", true},
		{"only nested ids", `{"message":{"id":"inner"},"content":"x`, "", false},
		{"cut inside a nested value", `{"message":{"id":"inner"`, "", false},
		{"id not a string", `{"id":12345678,"x":"`, "", false},
		{"escaped key and value", `{"\u0069d":"a\u0062c","x`, "abc", true},
		{"last duplicate wins", `{"id":"one","id":"two","x":`, "two", true},
		{"spaces", ` { "id" : "abc" , "x`, "abc", true},
		{"not an object", `["id","abc"`, "", false},
		{"garbage after a member", `{"id":"abc" x`, "abc", true},
		{"empty", ``, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := PrefixString([]byte(tt.line), "id")
			if got != tt.want || found != tt.found {
				t.Errorf("PrefixString(%q) = %q, %v; want %q, %v", tt.line, got, found, tt.want, tt.found)
			}
		})
	}
}

// FuzzPrefixString: PrefixString never panics on any cut of any input,
// and on a whole valid object it reads the id as encoding/json does.
func FuzzPrefixString(f *testing.F) {
	f.Add([]byte(`{"type":"message","id":"a1b2c3d4","parentId":null}`))
	f.Add([]byte(`{"id":"\u00e9\"","a":[{"id":"x"}],"id":"y"}`))
	f.Add([]byte(`{"id":7}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		for i := range line {
			PrefixString(line[:i], "id")
		}
		var obj map[string]any
		if !utf8.Valid(line) || json.Unmarshal(line, &obj) != nil || obj == nil {
			return
		}
		want, isString := obj["id"].(string)
		if got, found := PrefixString(line, "id"); got != want || found != isString {
			t.Fatalf("PrefixString(%q) = %q, %v; encoding/json reads %q, %v", line, got, found, want, isString)
		}
	})
}
