package session

import "testing"

// TestCodes: every known entry type and message role has a code of its
// own that names it back; other names, and codes that are none, are 0 and "".
func TestCodes(t *testing.T) {
	types := []string{"session"}
	for _, e := range EntryTypes() {
		types = append(types, e.Name)
	}
	roles := MessageRoles()
	for _, tc := range []struct {
		what  string
		names []string
		code  func(string) uint8
		name  func(uint8) string
	}{
		{"type", types, TypeCode, TypeName},
		{"role", append(roles[:], LegacyCustomRole), RoleCode, RoleName},
	} {
		seen := map[uint8]string{}
		for _, n := range tc.names {
			c := tc.code(n)
			if c == 0 {
				t.Errorf("%s %q has no code", tc.what, n)
			}
			if other, dup := seen[c]; dup {
				t.Errorf("%s %q has the code of %q", tc.what, n, other)
			}
			seen[c] = n
			if got := tc.name(c); got != n {
				t.Errorf("%s code %d of %q names %q", tc.what, c, n, got)
			}
		}
		for c := 0; c < 256; c++ {
			if n := tc.name(uint8(c)); n != seen[uint8(c)] {
				t.Errorf("%s code %d names %q, want %q", tc.what, c, n, seen[uint8(c)])
			}
		}
		for _, n := range []string{"", "Message", "made_up", "messages", "hookmessage"} {
			if c := tc.code(n); c != 0 {
				t.Errorf("%s %q has code %d, want 0", tc.what, n, c)
			}
		}
	}
}
