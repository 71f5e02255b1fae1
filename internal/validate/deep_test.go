package validate

import (
	"fmt"
	"strings"
	"testing"
)

// deepEntry is a custom entry whose data nests depth arrays.
func deepEntry(id, parent string, depth int) string {
	return fmt.Sprintf(`{"type":"custom","id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","customType":"x","data":%s%s}`,
		id, parent, strings.Repeat("[", depth), strings.Repeat("]", depth))
}

// TestTooDeepIsFatal: too_deep is a parse-level error, and a parse error
// is fatal (docs/errors.md): nothing after it is checked. An entry too
// deep to read was dropped from the tree while checking went on, so its
// child got a false missing_parent ("names no entry in this file").
func TestTooDeepIsFatal(t *testing.T) {
	schemas := compileForTest(t)
	deep := deepEntry("aaaa0001", "null", 10_001)
	child := deepEntry("aaaa0002", `"aaaa0001"`, 1)
	orphan := deepEntry("aaaa0003", `"ffffffff"`, 1)
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"child of a too-deep entry", []string{hdr3, deep, child}, []string{"2 too_deep "}},
		{"later errors are not checked", []string{hdr3, deep, child, orphan}, []string{"2 too_deep "}},
		{"concatenated: the next object", []string{hdr3, deep + child, orphan}, []string{"2 concatenated_objects ", "2 too_deep "}},
		{"on the header's line", []string{hdr3 + deep, child}, []string{"1 concatenated_objects ", "1 too_deep "}},
		// as after any fatal error, parents still missing are not reported:
		// the lost part of the file might have held them
		{"as invalid_json", []string{hdr3, orphan, "not-json", child}, []string{"3 invalid_json "}},
		{"as invalid_json does", []string{hdr3, orphan, deep, child}, []string{"3 too_deep "}},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", tt.name, workers), func(t *testing.T) {
				rep := streamLines(t, schemas, workers, tt.lines...)
				if got := findingKeys(rep); strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
					t.Errorf("findings %v, want %v", got, tt.want)
				}
				if rep.Status != Invalid {
					t.Errorf("status %s, want invalid", rep.Status)
				}
			})
		}
	}
}
