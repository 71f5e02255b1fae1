package project

import (
	"reflect"
	"testing"

	"github.com/pisess/pisess/internal/parse"
)

// TestEditMembers: editMembers makes its edits in one pass as setMember
// and deleteMember make them one after the other, and appendMembers, the
// in-place way for members that are all absent, gives the same object.
func TestEditMembers(t *testing.T) {
	tests := []struct {
		name, in string
		edits    []memberEdit
		want     string
	}{
		{"set in place", `{"a":1,"b":2}`, []memberEdit{{"a", []byte(`9`)}}, `{"a":9,"b":2}`},
		{"absent comes last, in order", `{"a":1}`, []memberEdit{{"x", []byte(`"1"`)}, {"y", []byte(`null`)}}, `{"a":1,"x":"1","y":null}`},
		{"last duplicate is set, earlier ones go", `{"a":1,"b":2,"a":3}`, []memberEdit{{"a", []byte(`9`)}}, `{"b":2,"a":9}`},
		{"delete every occurrence", `{"a":1,"b":2,"a":3}`, []memberEdit{{key: "a"}}, `{"b":2}`},
		{"delete then set another", `{"k":1,"i":2}`, []memberEdit{{key: "i"}, {"j", []byte(`"x"`)}}, `{"k":1,"j":"x"}`},
		{"into an empty object", `{}`, []memberEdit{{"id", []byte(`"a"`)}, {"parentId", []byte(`null`)}}, `{"id":"a","parentId":null}`},
		{"white space between members", `{ "a" : 1 , "b":[1, 2] }`, []memberEdit{{"c", []byte(`3`)}}, `{"a":1,"b":[1, 2],"c":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tp parse.Tape
			if err := tp.Build([]byte(tt.in)); err != nil {
				t.Fatal(err)
			}
			if got := string(editMembers(&tp, 0, tt.edits...)); got != tt.want {
				t.Errorf("editMembers = %s, want %s", got, tt.want)
			}
			seq := []byte(tt.in) // the edits one after the other
			for _, ed := range tt.edits {
				var st parse.Tape
				if err := st.Build(seq); err != nil {
					t.Fatal(err)
				}
				seq = setMember(&st, 0, ed.key, ed.val)
			}
			if string(seq) != tt.want {
				t.Errorf("setMember one edit at a time = %s, want %s", seq, tt.want)
			}
			if !absent(&tp, tt.edits) {
				return
			}
			in := append(make([]byte, 0, 64), tt.in...)
			got := appendMembers(in, tt.edits)
			if !sameJSON(t, got, []byte(tt.want)) {
				t.Errorf("appendMembers = %s, want the same object as %s", got, tt.want)
			}
			if &got[0] != &in[0] {
				t.Errorf("appendMembers copied the record, though it had room")
			}
		})
	}
}

// sameJSON reports whether a and b are the same JSON value, white space
// aside.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	va, err := parse.Decode(a, true)
	if err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	vb, err := parse.Decode(b, true)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}
