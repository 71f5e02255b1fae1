//go:build unix

package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// manyEntries is how many entries TestManyEntriesMemory's session holds.
const manyEntries = 270_000

// manyBound is issue 26's bound for a session of small lines: 1.5 times
// the longest line (a few hundred bytes) + 64 MiB.
const manyBound = 64 << 20

// writeMany writes a session of n small entries, one chain (a user and an
// assistant in turn, as bigdata's turn) with a branch every 50 entries and
// a compaction 20 entries before the end, so that the context, as a long
// session's, is a few messages while the tree and the path have every
// entry.
func writeMany(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = writeEntries(f, n, func(i int) string {
		parent := ""
		switch {
		case i > 0 && i%50 == 0:
			parent = ID(i - 1) // a sibling of entry i-1: a branch
		case i > 0:
			parent = ID(i)
		}
		if i == n-20 {
			return Entry("compaction", ID(i+1), parent, `"summary":"the story so far"`, `"tokensBefore":5`, `"firstKeptEntryId":`+Q(ID(i-10)))
		}
		return turn(i, ID(i+1), parent)
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// TestManyEntriesMemory: the views of a session of 270,000 small entries
// (as many as a 1 GB session of real turns has) stay within issue 26's
// bound, 1.5 times the longest line + 64 MiB, though they index every
// entry: the index keeps 64 bytes an entry and a few of its strings (its
// id), the descriptions of tree and path lie in a temporary file. Before,
// an index of about 300 bytes an entry put tree at 124 MiB and context at
// 76 MiB on the 1 GB session (docs/performance.md, "Many entries").
func TestManyEntriesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a session of 270,000 entries")
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "many.jsonl")
	if err := writeMany(path, manyEntries); err != nil {
		t.Fatal(err)
	}
	views := [][]string{
		{"tree"}, {"path"}, {"context"},
		{"tree", "--format", "json"}, {"path", "--format", "json"}, {"context", "--format", "json"},
		{"tree", "--width", "0"}, {"path", "--width", "0"}, {"context", "--width", "0"},
		{"export"}, {"export", "--format", "md"},
	}
	const limit = 3 * time.Minute
	var b strings.Builder
	for _, args := range views {
		if _, missing := the.missing[args[0]]; missing {
			continue
		}
		argv := append(append([]string{}, args...), path)
		got := the.measured(t, limit, []int{0}, argv...)
		if got.rss > manyBound {
			first := got.rss
			if got = the.measured(t, limit, []int{0}, argv...); got.rss > manyBound {
				t.Errorf("%s on %d entries: peak RSS %d and %d MiB, want at most %d",
					strings.Join(args, " "), manyEntries, first>>20, got.rss>>20, manyBound>>20)
			}
		}
		fmt.Fprintf(&b, " %s %d MiB;", strings.Join(args, " "), got.rss>>20)
	}
	the.tally.note("%d small entries, peak RSS:%s; bound %d MiB.", manyEntries, strings.TrimSuffix(b.String(), ";"), manyBound>>20)
}
