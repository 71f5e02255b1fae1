package validate

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// The benchmarks of one validation pass and of its steps, on the largest
// real file (skipped without the corpus). MB/s counts the file's bytes
// (the records' bytes for the steps). make bench runs them.

// largestRealFile returns the biggest file of the real corpus.
func largestRealFile(b *testing.B) string {
	files := realCorpusFiles(b)
	sort.Slice(files, func(i, j int) bool { return fileSize(files[i]) > fileSize(files[j]) })
	return files[0]
}

// BenchmarkStream is the whole pass (Stream) with the schemas and without,
// inline and on two workers.
func BenchmarkStream(b *testing.B) {
	data, err := os.ReadFile(largestRealFile(b))
	if err != nil {
		b.Fatal(err)
	}
	schemas := compileForTest(b)
	for _, bc := range []struct {
		name    string
		schemas *Schemas
		workers int
	}{
		{"full/workers=1", schemas, 1},
		{"full/workers=2", schemas, 2},
		{"no-schema/workers=1", nil, 1},
		{"no-schema/workers=2", nil, 2},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opts := Options{Limits: session.DefaultLimits(), Schemas: bc.schemas, Workers: bc.workers}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rep, err := Stream("bench", bytes.NewReader(data), opts)
				if err != nil || rep.Errors() > 0 {
					b.Fatalf("%v %v", err, rep.Findings)
				}
			}
		})
	}
}

// tapedRecord is one record of a file with its tape, built beforehand.
type tapedRecord struct {
	version, line int
	tape          *session.Tape
}

func tapedRecords(b *testing.B, path string) ([]tapedRecord, int64) {
	var recs []tapedRecord
	var total int64
	realRecords(b, path, func(version, line int, raw []byte) {
		t := new(session.Tape)
		if err := t.Build(bytes.Clone(raw)); err != nil {
			b.Fatal(err)
		}
		recs = append(recs, tapedRecord{version, line, t})
		total += int64(len(raw))
	})
	return recs, total
}

// BenchmarkSchemaCheckTape is the schema step as validate runs it: the
// quick check on each record's tape (BenchmarkSchemaCheck: on maps).
func BenchmarkSchemaCheckTape(b *testing.B) {
	s := compileForTest(b)
	recs, total := tapedRecords(b, largestRealFile(b))
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range recs {
			if fs := s.CheckTape(r.version, r.line, r.tape); len(fs) != 0 {
				b.Fatalf("unexpected findings: %v", fs)
			}
		}
	}
}

// BenchmarkLinkage is the linkage step: reading each entry's facts from
// its tape (entryOf) and the checks against the entries before it, then
// the projected context's pairing (rule 6).
func BenchmarkLinkage(b *testing.B) {
	recs, total := tapedRecords(b, largestRealFile(b))
	recs = recs[1:] // the header
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := newLinker(func(f finding.Finding) {
			if f.Severity == finding.Error {
				b.Fatalf("unexpected finding: %v", f)
			}
		})
		for _, r := range recs {
			k.enter(entryOf(r.tape, r.line, r.version == 1, session.Links))
		}
		for _, pl := range k.resolveResults() {
			if pl.f.Severity == finding.Error {
				b.Fatalf("unexpected finding: %v", pl.f)
			}
		}
		k.finish()
		k.checkContext()
	}
}

// BenchmarkFiles is the per-file cost on many small files: the pass over
// each record of the largest real file, as 64 files of 1/64 of it.
func BenchmarkFiles(b *testing.B) {
	data, err := os.ReadFile(largestRealFile(b))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var files [][]byte
	per := len(lines) / 64
	for i := 1; i+per <= len(lines); i += per {
		files = append(files, append(bytes.Clone(lines[0]), bytes.Join(lines[i:i+per], nil)...))
	}
	opts := Options{Limits: session.DefaultLimits(), Schemas: compileForTest(b), Workers: 1}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, f := range files {
			if _, err := Stream(fmt.Sprint(j), bytes.NewReader(f), opts); err != nil {
				b.Fatal(err)
			}
		}
	}
}
