package session

import "testing"

// TestIDTable: exact keys (Add, the first wins) and tags a Same confirms
// (Put, the last wins; distinct ids under one tag), through the table's
// growth and a Reserve; keys never put are not found.
func TestIDTable(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		tags    uint32 // ids share tag id % tags (0: exact keys, the id itself)
		reserve int
	}{
		{"exact keys", 5000, 0, 0},
		{"exact keys, reserved", 5000, 0, 5000},
		{"tags shared by many ids", 3000, 7, 0},
		{"one tag", 500, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewIDTable(16)
			tab.Reserve(tt.reserve)
			ids := make([]int, 0, 2*tt.n) // ordinal -> id
			keyOf := func(id int) uint32 {
				if tt.tags == 0 {
					return uint32(id)
				}
				return uint32(id) % tt.tags
			}
			same := func(id int) Same {
				if tt.tags == 0 {
					return nil
				}
				return func(ord int32) bool { return ids[ord] == id }
			}
			for id := range tt.n {
				ids = append(ids, id)
				if tt.tags == 0 {
					if _, dup := tab.Add(keyOf(id), int32(id), same(id)); dup {
						t.Fatalf("Add(%d): a duplicate", id)
					}
				} else if tab.Put(keyOf(id), int32(id), same(id)) {
					t.Fatalf("Put(%d): replaced", id)
				}
			}
			for id := range tt.n { // again, under new ordinals
				ord := int32(len(ids))
				ids = append(ids, id)
				if tt.tags == 0 {
					if prev, dup := tab.Add(keyOf(id), ord, same(id)); !dup || prev != int32(id) {
						t.Fatalf("second Add(%d) = %d, %v; want %d, true", id, prev, dup, id)
					}
				} else if !tab.Put(keyOf(id), ord, same(id)) {
					t.Fatalf("second Put(%d) did not replace", id)
				}
			}
			for id := range tt.n {
				want := int32(id) // the first
				if tt.tags != 0 {
					want = int32(tt.n + id) // the last
				}
				if got, ok := tab.Get(keyOf(id), same(id)); !ok || got != want {
					t.Fatalf("Get(%d) = %d, %v; want %d", id, got, ok, want)
				}
			}
			for id := tt.n; id < tt.n+100; id++ {
				if got, ok := tab.Get(keyOf(id), same(id)); ok {
					t.Fatalf("Get(%d) = %d of an id never put", id, got)
				}
			}
			if tab.Len() != tt.n || 4*tab.Len() > 3*tab.Slots() {
				t.Errorf("%d keys in %d slots, want %d and at most 3/4 full", tab.Len(), tab.Slots(), tt.n)
			}
		})
	}
}
