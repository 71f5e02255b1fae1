package validate

import "testing"

// TestQuickFlat: the checks of message entries are flat (one scan of the
// entry's members and one of the message's), and an entry that breaks
// a rule of any part is still rejected on the flat path. That the flat
// verdict is the schemas' on every shape is TestTapeAgreesOnMutants' and
// TestSchemaQuickAgreesOnMutants' business.
func TestQuickFlat(t *testing.T) {
	s := compileForTest(t)
	for version := 2; version <= 3; version++ {
		for role, c := range s.versions[version].roles {
			flat := c.quick.flat
			if flat == nil {
				t.Fatalf("v%d %s: the check is not flat", version, role)
			}
			msg, ok := flat.keys["message"]
			if !ok || msg.schema.flat == nil {
				t.Errorf("v%d %s: the message's rules are not flat", version, role)
			}
		}
	}
	c := s.versions[3].roles["user"]
	for _, tc := range []struct {
		line string
		want bool
	}{
		{`{"type":"message",` + baseV3 + `,"message":` + userMsg + `}`, true},
		{`{"type":"message","parentId":null,"timestamp":"2026-01-05T10:00:00.000Z","message":` + userMsg + `}`, false},           // base: id required
		{`{"type":"label",` + baseV3 + `,"message":` + userMsg + `}`, false},                                                     // fields: type const
		{`{"type":"message",` + baseV3 + `,"message":{"role":"user","content":"hi"}}`, false},                                    // role: timestamp required
		{`{"type":"message",` + baseV3 + `,"message":{"role":"user","content":"hi","timestamp":1},"message":{"role":1}}`, false}, // the last message counts
	} {
		if got := c.quick.validAt(tapeOf(t, tc.line), 0); got != tc.want {
			t.Errorf("%s: valid = %v, want %v", tc.line, got, tc.want)
		}
	}
}
