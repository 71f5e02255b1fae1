package validate

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// TestWorkersAgree: a file validated on several workers gets the report
// of the inline pass, whatever damage sits where between the batches
// (lines after fatal corruption are classified but not checked).
func TestWorkersAgree(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(schemaRealCorpus, "*.jsonl"))
	if len(files) == 0 {
		t.Skipf("no real corpus at %s: skipping (CI has it)", schemaRealCorpus)
	}
	sort.Slice(files, func(i, j int) bool { return fileSize(files[i]) > fileSize(files[j]) })
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	damage := map[string]func(l [][]byte, at int) [][]byte{
		"none": func(l [][]byte, at int) [][]byte { return l },
		"torn line": func(l [][]byte, at int) [][]byte {
			l[at] = append(bytes.Clone(l[at][:len(l[at])/2]), '\n')
			return l
		},
		"lost newline": func(l [][]byte, at int) [][]byte {
			l[at] = bytes.TrimSuffix(l[at], []byte("\n"))
			return l
		},
		"blank line": func(l [][]byte, at int) [][]byte {
			return append(l[:at], append([][]byte{[]byte("\n")}, l[at:]...)...)
		},
		"duplicate": func(l [][]byte, at int) [][]byte {
			return append(l[:at], append([][]byte{l[at]}, l[at:]...)...)
		},
		"torn tail": func(l [][]byte, at int) [][]byte {
			return append(l[:at], bytes.TrimSuffix(l[at][:len(l[at])/3], []byte("\n")))
		},
	}
	schemas := compileForTest(t)
	for name, hurt := range damage {
		for _, at := range []int{1, len(lines) / 3, len(lines) - 2} {
			input := bytes.Join(hurt(append([][]byte(nil), lines...), at), nil)
			var want *Report
			for _, workers := range []int{1, 2, 4} {
				opts := Options{Limits: session.DefaultLimits(), Schemas: schemas, Workers: workers}
				rep, err := Stream("f", bytes.NewReader(input), opts)
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want = rep
					continue
				}
				if !reflect.DeepEqual(rep, want) {
					t.Errorf("%s at line %d: %d workers: %d findings, inline: %d", name, at+1, workers, len(rep.Findings), len(want.Findings))
				}
			}
		}
	}
}
