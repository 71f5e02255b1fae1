package validate

import (
	"fmt"
	"strings"
	"testing"
)

// TestLongValuesInMessages: a message quotes a value the file got wrong,
// shortened: a header version, a firstKeptEntryIndex or an entry type of
// a megabyte was copied whole into its finding (and into every line of
// text, JSON or GitHub output).
func TestLongValuesInMessages(t *testing.T) {
	schemas := compileForTest(t)
	big := strings.Repeat("7", 1<<20)
	tests := []struct {
		name  string
		lines []string
		code  string
	}{
		{"header version", []string{strings.Replace(hdr3, `"version":3`, `"version":`+big, 1), user1}, "unsupported_version"},
		{"header version array", []string{strings.Replace(hdr3, `"version":3`, `"version":[`+strings.Repeat("1,", 1<<19)+`1]`, 1), user1}, "unsupported_version"},
		{"firstKeptEntryIndex", []string{hdr1, v1user, fmt.Sprintf(v1Compaction, big)}, "dangling_first_kept"},
		{"entry type", []string{hdr3, strings.Replace(user1, `"type":"message"`, `"type":"`+big+`"`, 1)}, "unknown_entry_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := streamLines(t, schemas, 1, tt.lines...)
			found := false
			for _, f := range rep.Findings {
				found = found || string(f.Code) == tt.code
				if len(f.Message) > 300 {
					t.Errorf("%s: message of %d bytes: %.100s…", f.Code, len(f.Message), f.Message)
				}
			}
			if !found {
				t.Errorf("no %s finding in %v", tt.code, findingKeys(rep))
			}
		})
	}
}
