package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/validate"
)

// The check a repaired generation must pass before it replaces the
// original rejects every problem repair exists to remove.
func TestRepairVerifierRejectsWhatRepairRemoves(t *testing.T) {
	const header = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n"
	const entry = `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	verify, _ := repairVerifier(nil, validate.Options{})
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

// migrateChecker takes what pi 1.6.0 migrates: an entry's schema or
// linkage error is a warning of the migration, with its code and line,
// and the new generation may keep it there but have no other error; what
// makes the file no session pi loads refuses it.
func TestMigrateCheckerTakesWhatPiTakes(t *testing.T) {
	schemas, err := validate.CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	opts := validate.Options{Schemas: schemas}
	const header = `{"type":"session","version":2,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n"
	const user = `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	const orphan = `{"type":"message","id":"a2","parentId":"zz","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"hi","timestamp":2}}` + "\n"
	check := migrateChecker(opts)
	for name, tc := range map[string]struct {
		data     string
		warnings []string // "line code"
		refusal  string   // the code of the refusal, "" for none
	}{
		"clean":            {header, nil, ""},
		"schema":           {header + user, []string{"2 schema"}, ""},
		"linkage":          {header + orphan, []string{"2 missing_parent"}, ""},
		"misplaced header": {header + user + header, nil, "misplaced_header"},
		"not a session":    {`{"type":"x"}` + "\n", nil, "not_a_session"},
		"corrupt":          {header + "not-json\n" + user, nil, "invalid_json"},
	} {
		warnings, verify, err := check("f.jsonl", strings.NewReader(tc.data))
		var got []string
		for _, w := range warnings {
			if w.Severity != "warning" {
				t.Errorf("%s: %v is not a warning", name, w)
			}
			got = append(got, fmt.Sprintf("%d %s", w.Line, w.Code))
		}
		switch {
		case tc.refusal == "" && err != nil:
			t.Errorf("%s: refused: %v", name, err)
		case tc.refusal != "" && (err == nil || !strings.Contains(err.Error(), tc.refusal)):
			t.Errorf("%s: %v, want a refusal naming %s", name, err, tc.refusal)
		case fmt.Sprint(got) != fmt.Sprint(tc.warnings):
			t.Errorf("%s: warnings %v, want %v", name, got, tc.warnings)
		case err == nil:
			v3 := strings.Replace(tc.data, `"version":2`, `"version":3`, 1)
			if err := verify("f.jsonl", strings.NewReader(v3)); err != nil {
				t.Errorf("%s: the new generation with the same errors is rejected: %v", name, err)
			}
			if err := verify("f.jsonl", strings.NewReader(v3+orphan+orphan)); err == nil {
				t.Errorf("%s: a new generation with a new error passes: %v", name, err)
			}
		}
	}
}
