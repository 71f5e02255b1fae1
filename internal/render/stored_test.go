package render

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/parse"
	"github.com/pisess/pisess/internal/project"
)

// TestDescribedIndexGivesTheSameViews: tree and path, text (at several
// widths) and JSON, are the same whether the index holds the entries'
// descriptions (project.OpenDescribed) or every record is read back, on
// every session of our corpus and of the real one.
func TestDescribedIndexGivesTheSameViews(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/*/*.jsonl")
	real, _ := filepath.Glob("../../../shared/corpus/real/*.jsonl")
	if len(real) == 0 {
		t.Log("no real corpus at ../../../shared/corpus/real: our corpus only (CI has it)")
	}
	runs := []struct {
		width int
		json  bool
	}{{100, false}, {30, false}, {100, true}}
	described := 0
	for _, f := range append(files, real...) {
		for _, run := range runs {
			opt := ViewOptions{Width: run.width, File: "f"}
			plain, err := project.Open(f, parse.DefaultLimits())
			if err != nil {
				continue // not a session
			}
			fast, err := project.OpenDescribed(f, parse.DefaultLimits(), ViewDescriber(run.json, opt))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			rd := fast.Records()
			for _, e := range fast.Entries {
				if rd.Description(e) != "" {
					described++
				}
			}
			if a, b := views(t, plain, run.json, opt), views(t, fast, run.json, opt); !bytes.Equal(a, b) {
				t.Errorf("%s (%+v): the described index gives\n%s\nreading back gives\n%s", f, run, b, a)
			}
			plain.Close()
			fast.Close()
		}
	}
	if described == 0 {
		t.Fatal("no entry was described: the test compares nothing")
	}
}

// views writes the tree and the path of s's default leaf.
func views(t *testing.T, s *project.Session, json bool, opt ViewOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	leaf := s.DefaultLeaf()
	path, _ := s.Path(leaf)
	var err error
	if json {
		err = TreeJSON(&b, s, leaf)
		if err == nil {
			err = PathJSON(&b, s, leaf, path)
		}
	} else {
		err = Tree(&b, s, leaf, opt)
		if err == nil {
			err = Path(&b, s, path, opt)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
