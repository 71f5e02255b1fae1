package validate

import (
	"strings"
	"testing"
)

// TestJavaScriptBlankLines: a line of white space that JSON does not know
// (a form feed, a no-break space, U+2028...) is blank for pi 1.6.0, which
// skips every line whose trim() is empty: a blank_line warning, and the
// rest of the file is checked. It was invalid_json, fatal.
func TestJavaScriptBlankLines(t *testing.T) {
	schemas := compileForTest(t)
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"form feed mid-file", []string{hdr3, user1, "\f", asst2}, []string{"3 blank_line "}},
		{"no-break space before the header", []string{"\u00a0", hdr3, user1}, []string{"1 blank_line "}},
		{"later lines are still checked", []string{hdr3, " \u3000\u2028", child4}, []string{"2 blank_line ", "3 missing_parent /parentId"}},
		{"a form feed before an object is no blank", []string{hdr3, "\f" + user1, asst2}, []string{"2 invalid_json "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := streamLines(t, schemas, 1, tt.lines...)
			if got := findingKeys(rep); strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
		})
	}
}
