package project

import (
	"reflect"
	"strconv"
	"testing"
	"unsafe"
)

// TestIDTable: the last entry with an id wins, through the table's growth,
// and ids never put are not found.
func TestIDTable(t *testing.T) {
	tests := []struct {
		name    string
		entries int
		every   int // every k-th entry takes one of 7 shared ids (0: all distinct)
	}{
		{"few", 10, 0},
		{"grows", 5000, 0},
		{"duplicates through growth", 5000, 3},
		{"all one id", 3000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := newIDTable()
			s := &Session{}
			var entries []*Entry
			want := map[string]int{}
			for i := range tt.entries {
				id := "e" + strconv.Itoa(i)
				if tt.every > 0 && i%tt.every == 0 {
					id = "dup" + strconv.Itoa(i%7)
				}
				if i%11 == 5 {
					id = "" // an entry without an id is never put
				}
				entries = append(entries, &Entry{Index: i, s: s, strs: s.strs.add(id, "", "", 0)})
				if id != "" {
					tab.put(entries, i)
					want[id] = i
				}
			}
			for id, i := range want {
				if got := tab.get(entries, id); got != i {
					t.Errorf("get(%q) = %d, want %d", id, got, i)
				}
			}
			for _, id := range []string{"nope", "e", "dup7", "E1"} {
				if got := tab.get(entries, id); got != -1 {
					t.Errorf("get(%q) = %d, want -1", id, got)
				}
			}
		})
	}
}

// TestEntryStaysSmall: an Entry is 64 bytes, its strings live in the
// session's store, and it holds one pointer (docs/design.md, "Views: index
// first"): a field more is memory on every entry of every view.
func TestEntryStaysSmall(t *testing.T) {
	if size := unsafe.Sizeof(Entry{}); size > 64 {
		t.Errorf("an Entry is %d bytes, more than 64", size)
	}
	pointers := 0
	typ := reflect.TypeOf(Entry{})
	for i := range typ.NumField() {
		switch typ.Field(i).Type.Kind() {
		case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
			pointers++
		}
	}
	if pointers != 1 {
		t.Errorf("an Entry holds %d pointers, want 1 (its session)", pointers)
	}
}
