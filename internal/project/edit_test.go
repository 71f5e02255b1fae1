package project

import (
	"reflect"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// TestSetMember: setMember edits as session.Editor does. before is what the
// writer it replaced made (the earlier duplicates of a key dropped, the
// spacing between members too): the bytes differ only for objects pi
// never writes, and JSON.parse reads both the same.
func TestSetMember(t *testing.T) {
	tests := []struct {
		name, in, key, val string // val "" deletes
		want, before       string
	}{
		{"set in place", `{"a":1,"b":2}`, "a", `9`, `{"a":9,"b":2}`, `{"a":9,"b":2}`},
		{"absent comes last", `{"a":1}`, "x", `"1"`, `{"a":1,"x":"1"}`, `{"a":1,"x":"1"}`},
		{"last duplicate is set, earlier ones stay", `{"a":1,"b":2,"a":3}`, "a", `9`, `{"a":1,"b":2,"a":9}`, `{"b":2,"a":9}`},
		{"delete every occurrence", `{"a":1,"b":2,"a":3}`, "a", "", `{"b":2}`, `{"b":2}`},
		{"delete the only member", `{"content":null}`, "content", "", `{}`, `{}`},
		{"into an empty object", `{}`, "id", `"a"`, `{"id":"a"}`, `{"id":"a"}`},
		{"white space between members kept", `{ "a" : 1 , "b":[1, 2] }`, "c", `3`, `{ "a" : 1 , "b":[1, 2],"c":3 }`, `{"a":1,"b":[1, 2],"c":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tp session.Tape
			if err := tp.Build([]byte(tt.in)); err != nil {
				t.Fatal(err)
			}
			var val []byte
			if tt.val != "" {
				val = []byte(tt.val)
			}
			got := setMember(&tp, tt.key, val)
			if string(got) != tt.want {
				t.Errorf("setMember = %s, want %s", got, tt.want)
			}
			if !sameJSON(t, got, []byte(tt.before)) {
				t.Errorf("%s and the old %s are not the same object", got, tt.before)
			}
		})
	}
}

// TestMigrateInPlace: a version-1 record read on its own gets its id and
// parentId in its own buffer (a long record is not copied), and the
// records whose edits cannot be made there are migrated all the same.
func TestMigrateInPlace(t *testing.T) {
	s := fixtureNamed(t, "v1-linear").load(t)
	for _, e := range s.Entries {
		r, err := s.Read(e)
		if err != nil {
			t.Fatal(err)
		}
		if r.Str("id") != e.ID() || r.Str("parentId") != e.ParentID() {
			t.Errorf("line %d: id %q parentId %q, want %q %q", e.Line, r.Str("id"), r.Str("parentId"), e.ID(), e.ParentID())
		}
		hook := r.Tape.StrOf(r.Member("message"), "role") == "custom"
		if e.Type() == "compaction" || hook {
			continue // an edit shortens the record before the appended members: copied
		}
		if got, want := cap(r.Tape.Input()), int(e.size)+migrateRoom; got != want {
			t.Errorf("line %d (%s): the migrated record has capacity %d, not its own buffer's %d: copied", e.Line, e.Type(), got, want)
		}
	}
}

// sameJSON reports whether a and b are the same JSON value, white space
// aside.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	va, err := session.Decode(a, true)
	if err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	vb, err := session.Decode(b, true)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}
