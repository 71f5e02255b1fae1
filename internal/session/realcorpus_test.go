package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/finding"
)

// realCorpus is pi's own files, beside the project; CI has it.
const realCorpus = "../../../shared/corpus/real"

// damagedLines are the only parse-level findings real files may produce
// (SOURCES.md: two files have a lost newline between two objects).
var damagedLines = map[string]int{
	"v1-pi-mono-compact-root-concatenated-line.jsonl": 1013,
	"v1-pi-mono-session-root-concatenated-line.jsonl": 440,
}

func TestRealCorpusParsesClean(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(realCorpus, "*.jsonl"))
	if len(files) == 0 {
		t.Skipf("no real corpus at %s: skipping (CI has it)", realCorpus)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := NewReader(f, DefaultLimits())
			var got []finding.Finding
			for r.Next() {
				if fd, ok := r.Line().Finding(); ok {
					got = append(got, fd)
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			want, damaged := damagedLines[name]
			switch {
			case !damaged && len(got) != 0:
				t.Errorf("want no findings, got %v", got)
			case damaged && (len(got) != 1 || got[0].Code != finding.ConcatenatedObjects || got[0].Line != want):
				t.Errorf("want exactly concatenated_objects at line %d, got %v", want, got)
			}
		})
	}
}
