package cli

import (
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/validate"
)

// The check a repaired generation must pass before it replaces the
// original rejects every problem repair exists to remove.
func TestRepairVerifierRejectsWhatRepairRemoves(t *testing.T) {
	const header = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n"
	const entry = `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	verify := repairVerifier(validate.Options{})
	for name, tc := range map[string]struct {
		data, code string
	}{
		"clean":       {header + entry + "\n", ""},
		"torn tail":   {header + entry + "\n" + `{"type":"mess`, "partial_tail"},
		"torn line":   {header + `{"type":"mess` + "\n" + entry + "\n", "torn_line"},
		"no newline":  {header + entry, "missing_final_newline"},
		"bom":         {"\ufeff" + header + entry + "\n", "bom"},
		"lost \\n":    {header + entry + entry + "\n", "concatenated_objects"},
		"schema only": {header + `{"type":"message","id":"a1","parentId":null,"timestamp":"x","message":{"role":"user"}}` + "\n", ""},
	} {
		err := verify("f.jsonl", strings.NewReader(tc.data))
		switch {
		case tc.code == "" && err != nil:
			t.Errorf("%s: rejected: %v", name, err)
		case tc.code != "" && (err == nil || !strings.Contains(err.Error(), tc.code)):
			t.Errorf("%s: %v, want a rejection naming %s", name, err, tc.code)
		}
	}
}
