package migrate

import (
	"testing"

	"github.com/pisess/pisess/internal/parse"
)

func TestEditorRemoveAndAppend(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		remove int // member to remove, -1 none
		pairs  []string
		want   string
	}{
		{"remove only member, append", `{ "x" : 1 }`, 0, []string{`"a":1`}, `{"a":1  }`},
		{"remove only member, nothing appended", `{"x":1}`, 0, nil, `{}`},
		{"remove first of two", `{"x":1, "y":2}`, 0, []string{`"a":1`}, `{"y":2,"a":1}`},
		{"remove last of two", `{"x":1, "y":2}`, 1, []string{`"a":1`, `"b":2`}, `{"x":1,"a":1,"b":2}`},
		{"remove middle", `{"x":1,"y":2,"z":3}`, 1, nil, `{"x":1,"z":3}`},
		{"append to empty", `{}`, -1, []string{`"a":1`, `"b":2`}, `{"a":1,"b":2}`},
		{"append after nested value", `{"m":{"k":[1,{"j":2}]}}`, -1, []string{`"a":1`}, `{"m":{"k":[1,{"j":2}]},"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(tt.in)
			var tape parse.Tape
			obj, err := locate(&tape, b, [2]int{0, len(b)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var ed editor
			if tt.remove >= 0 {
				ed.removeMember(&obj, tt.remove)
			}
			ed.appendMembers(&obj, tt.remove, tt.pairs...)
			got, err := ed.apply(nil, b)
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s (%v), want %s", got, err, tt.want)
			}
		})
	}
}

func TestEditorRejectsOverlap(t *testing.T) {
	var ed editor
	ed.replace(0, 5, "a")
	ed.replace(3, 6, "b")
	if _, err := ed.apply(nil, []byte("0123456789")); err == nil {
		t.Error("overlapping edits applied")
	}
}
