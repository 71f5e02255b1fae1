package fix

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// TestSetMembers: setMembers edits as session.Editor does. before is what
// the writer it replaced made (every duplicate set, keys re-encoded, the
// spacing between members dropped): the bytes differ only for objects pi
// never writes, and JSON.parse reads both the same.
func TestSetMembers(t *testing.T) {
	tests := []struct{ name, in, want, before string }{
		{"in place", `{"type":"message","id":"a","parentId":"x"}`,
			`{"type":"message","id":"a","parentId":"y"}`, `{"type":"message","id":"a","parentId":"y"}`},
		{"absent: appended", `{"id":"a"}`, `{"id":"a","parentId":"y"}`, `{"id":"a","parentId":"y"}`},
		{"duplicate: the last, as JSON.parse reads", `{"parentId":"x","id":"a","parentId":"z"}`,
			`{"parentId":"x","id":"a","parentId":"y"}`, `{"parentId":"y","id":"a","parentId":"y"}`},
		{"escaped key kept", `{"\u0069d":"a","parentId":null}`, `{"\u0069d":"a","parentId":"y"}`, `{"id":"a","parentId":"y"}`},
		{"spacing kept", `{"id": "a", "parentId": null}`, `{"id": "a", "parentId": "y"}`, `{"id":"a","parentId":"y"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tape session.Tape
			if err := tape.Build([]byte(tt.in)); err != nil {
				t.Fatal(err)
			}
			got := setMembers(&tape, member{"parentId", json.RawMessage(`"y"`)})
			if string(got) != tt.want {
				t.Errorf("setMembers = %s, want %s", got, tt.want)
			}
			var now, then map[string]any
			if json.Unmarshal(got, &now) != nil || json.Unmarshal([]byte(tt.before), &then) != nil || !reflect.DeepEqual(now, then) {
				t.Errorf("%s and the old %s decode differently", got, tt.before)
			}
		})
	}
}

// TestJSONString: strings are written as JSON.stringify writes them;
// U+2028 and U+2029, which encoding/json escaped, stay as they are.
func TestJSONString(t *testing.T) {
	for in, want := range map[string]string{
		"a<b>&":                `"a<b>&"`,
		"line\u2028para\u2029": "\"line\u2028para\u2029\"",
		"tab\t\x01":            `"tab\t\u0001"`,
	} {
		if got := string(jsonString(in)); got != want {
			t.Errorf("jsonString(%q) = %s, want %s", in, got, want)
		}
	}
}
