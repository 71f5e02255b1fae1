package secrets

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// realCorpus is the shared corpus of real pi sessions, beside the repository.
const realCorpus = "../../../shared/corpus/real"

// BenchmarkScanRealCorpus scans every file of the real corpus (skipped when
// it is absent). Compare with `pisess validate` on the same files:
// docs/performance.md, section scan.
func BenchmarkScanRealCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(realCorpus, "*.jsonl"))
	if len(files) == 0 {
		b.Skip("the real corpus is absent (" + realCorpus + ")")
	}
	var data [][]byte
	var size int64
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
		size += int64(len(d))
	}
	opts := Options{Rules: mustDefault(b), Limits: session.DefaultLimits()}
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, d := range data {
			if _, err := Scan("f", bytes.NewReader(d), opts, func(Finding) {}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
