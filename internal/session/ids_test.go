package session

import "testing"

func TestHexID(t *testing.T) {
	tests := []struct {
		id   string
		want uint32
		ok   bool
	}{
		{"0000002a", 42, true},
		{"ffffffff", 0xffffffff, true},
		{"9abcdef0", 0x9abcdef0, true},
		{"FFFFFFFF", 0, false}, // pi's ids are lowercase
		{"0000002", 0, false},
		{"0000002a0", 0, false},
		{"0000002g", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		if got, ok := HexID(tt.id); got != tt.want || ok != tt.ok {
			t.Errorf("HexID(%q) = %#x, %v; want %#x, %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
}

func TestIDsAreHex(t *testing.T) {
	ids := NewIDs("s", "")
	for line := 1; line <= 100; line++ {
		id := ids.For(line)
		if _, ok := HexID(id); !ok {
			t.Fatalf("For(%d) = %q, not 8 lowercase hex digits", line, id)
		}
	}
}
