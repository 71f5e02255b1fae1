package project_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

// TestGeneratedSessionsValidate holds the conformance test's generated
// sessions to pisess validate: written the way pi 1.6.0 writes sessions,
// every one must be free of errors (warnings, such as a tool call left
// unanswered by a branch, are allowed).
func TestGeneratedSessionsValidate(t *testing.T) {
	schemas, err := validate.CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for n := range project.GeneratedSessions {
		name := fmt.Sprintf("gen-%03d.jsonl", n)
		rep, err := validate.Stream(name, strings.NewReader(project.GeneratedSession(n)), validate.Options{Limits: session.DefaultLimits(), Schemas: schemas})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range rep.Findings {
			if f.Severity == finding.Error {
				t.Errorf("%s: %s", name, f)
			}
		}
		if rep.Status != validate.Valid {
			t.Errorf("%s: status %s", name, rep.Status)
		}
	}
}
