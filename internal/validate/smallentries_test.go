package validate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// smallSession is a version-3 session of n small entries (about 430 bytes
// each: short user and assistant turns with non-ASCII text, many tool
// calls and results, the shape of a long agentic session and of make
// bench's views set). It replays the entries of our own valid test
// sessions, as sessiongen -src testdata/corpus/valid does, each pass with
// fresh ids and continuing the chain, so it needs no file but the repo's.
func smallSession(tb testing.TB, n int) []byte {
	tb.Helper()
	var sources [][]string // entry lines of each source
	for _, name := range []string{"v3-branched", "v3-compacted", "v3-everything", "v3-minimal", "v3-tools"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "valid", name+".jsonl"))
		if err != nil {
			tb.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		sources = append(sources, lines[1:])
	}
	out := []byte(`{"type":"session","version":3,"id":"019c2df7-a1a0-7a1d-82ad-1245c92010b3","timestamp":"2026-02-05T13:22:09.440Z","cwd":"/home/ines/src/photo-sorter"}` + "\n")
	last, next := "", uint32(0x10000000)
	for entries := 0; entries < n; {
		src := sources[entries%len(sources)]
		var pairs []string // old id -> new id, as quoted strings
		for _, l := range src {
			if old := entryID(tapeOf(tb, l)); old != "" {
				next += 0x9e3779b1 // distinct for 2^32 steps: odd
				pairs = append(pairs, fmt.Sprintf("%q", old), fmt.Sprintf(`"%08x"`, next))
			}
		}
		ids := strings.NewReplacer(pairs...)
		for _, l := range src {
			if entries == n {
				break
			}
			l = ids.Replace(l)
			if last != "" {
				l = strings.Replace(l, `"parentId":null`, `"parentId":"`+last+`"`, 1)
			}
			last = entryID(tapeOf(tb, l))
			out = append(append(out, l...), '\n')
			entries++
		}
	}
	return out
}

func tapeOf(tb testing.TB, line string) *session.Tape {
	t := new(session.Tape)
	if err := t.Build([]byte(line)); err != nil {
		tb.Fatal(err)
	}
	return t
}

// smallEntries is how many entries the small-entry benchmarks read.
const smallEntries = 20000

// TestSmallSessionValid: the benchmarks' session is valid, so they time
// the path every valid file takes.
func TestSmallSessionValid(t *testing.T) {
	data := smallSession(t, 2000)
	rep, err := Stream("small", bytes.NewReader(data), Options{Limits: session.DefaultLimits(), Schemas: compileForTest(t), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != Valid || rep.Entries != 2000 {
		t.Fatalf("status %s, %d entries, findings %v", rep.Status, rep.Entries, rep.Findings)
	}
	for _, f := range rep.Findings {
		if f.Severity == finding.Error {
			t.Errorf("%v", f)
		}
	}
}

// BenchmarkSmallEntries is the whole pass on a session of many small
// entries, where the cost per entry shows (issue 28); ns/entry is the
// figure the targets are in.
func BenchmarkSmallEntries(b *testing.B) {
	data := smallSession(b, smallEntries)
	schemas := compileForTest(b)
	for _, bc := range []struct {
		name    string
		schemas *Schemas
	}{
		{"full", schemas},
		{"no-schema", nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opts := Options{Limits: session.DefaultLimits(), Schemas: bc.schemas, Workers: 1}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rep, err := Stream("bench", bytes.NewReader(data), opts)
				if err != nil || rep.Errors() > 0 {
					b.Fatalf("%v %v", err, rep.Findings)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*smallEntries), "ns/entry")
		})
	}
}

// entryID is the id of the entry on tape t.
func entryID(t *session.Tape) string {
	var e session.Entry
	e.Read(t, session.Links)
	return e.ID
}
