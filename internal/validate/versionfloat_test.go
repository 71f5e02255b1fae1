package validate

import (
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// pi reads the header's version with JSON.parse: 3.0000000000000001 and
// 2.9999999999999999 are the double 3, so pi loads the file as version 3
// and does not migrate it. The schema check must read the version as
// the header check and pi do, not as an exact decimal.
func TestHeaderVersionReadAsJSONParse(t *testing.T) {
	schemas, err := CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		lit     string
		version int
		codes   []finding.Code
	}{
		{"3.0000000000000001", 3, nil},
		{"2.9999999999999999", 3, nil},
		{"3.0", 3, nil},
		{"30e-1", 3, nil},
		{"1.0000000000000001", 1, []finding.Code{finding.NeedsMigration}},
		{"3.0000000000001", 0, []finding.Code{finding.UnsupportedVersion}},
	}
	for _, tt := range tests {
		input := strings.Replace(hdr3, `"version":3`, `"version":`+tt.lit, 1) + "\n" + user1 + "\n"
		if tt.version == 1 {
			input = strings.Replace(hdr1, `"id"`, `"version":`+tt.lit+`,"id"`, 1) + "\n" + v1user + "\n"
		}
		rep, err := Stream("t.jsonl", strings.NewReader(input), Options{Limits: session.DefaultLimits(), Schemas: schemas})
		if err != nil {
			t.Fatal(err)
		}
		var codes []finding.Code
		for _, f := range rep.Findings {
			codes = append(codes, f.Code)
		}
		if rep.Version != tt.version || len(codes) != len(tt.codes) || (len(codes) > 0 && codes[0] != tt.codes[0]) {
			t.Errorf("version %s: got version %d, findings %v; want version %d, codes %v", tt.lit, rep.Version, rep.Findings, tt.version, tt.codes)
		}
	}
}
