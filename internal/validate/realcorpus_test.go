package validate

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

const realCorpus = "../../../shared/corpus/real"

// damaged are the real files SOURCES.md describes as damaged, with the one
// line each that holds two objects.
var damaged = map[string]int{
	"v1-pi-mono-compact-root-concatenated-line.jsonl": 1013,
	"v1-pi-mono-session-root-concatenated-line.jsonl": 440,
}

// unpairedLines are the real rule-6 warnings: pi compacted between a tool
// call and its result (docs/format.md, "Projection: our reading").
var unpairedLines = map[string]int{
	"v1-pi-mono-before-compaction.jsonl": 628,
}

// TestRealCorpusValidates: every undamaged file pi wrote validates without
// errors (schemas and linkage included); the damaged ones report exactly
// their concatenated line. The files are far larger than the reader's
// buffer, so this also proves nothing keeps a string that shares it.
func TestRealCorpusValidates(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(realCorpus, "*.jsonl"))
	if len(files) == 0 {
		t.Skipf("no real corpus at %s: skipping (CI has it)", realCorpus)
	}
	schemas, err := CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		for _, workers := range []int{1, 2} {
			checkRealFile(t, path, workers, schemas)
		}
	}
}

func checkRealFile(t *testing.T, path string, workers int, schemas *Schemas) {
	name := filepath.Base(path)
	t.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(t *testing.T) {
		rep, err := File(path, Options{Limits: session.DefaultLimits(), Schemas: schemas, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		var errs []finding.Finding
		for _, f := range rep.Findings {
			if f.Severity == finding.Error {
				errs = append(errs, f)
			} else if f.Code != finding.NeedsMigration && f.Code != finding.UnpairedToolInContext && f.Code != finding.UnansweredToolCall {
				t.Errorf("unexpected warning %v", f)
			}
		}
		line, isDamaged := damaged[name]
		switch {
		case !isDamaged && len(errs) > 0:
			t.Errorf("want no errors, got %d: %v", len(errs), errs)
		case isDamaged && (len(errs) != 1 || errs[0].Code != finding.ConcatenatedObjects || errs[0].Line != line):
			t.Errorf("want only concatenated_objects at line %d, got %v", line, errs)
		}
	})
}
