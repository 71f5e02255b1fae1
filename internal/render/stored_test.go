package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
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
			plain, err := project.Open(f, session.DefaultLimits())
			if err != nil {
				continue // not a session
			}
			fast, err := project.OpenDescribed(f, session.DefaultLimits(), ViewDescriber(run.json, opt))
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

// TestDescriptionsPastMemory: on a session whose descriptions are more
// than a spool keeps in memory (4 MiB: they go to a temporary file), the
// described index gives the same tree and path as reading every record
// back, with the lines written a chunk at a time on the cores.
func TestDescriptionsPastMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a session of 60,000 entries")
	}
	const n = 60_000
	var b bytes.Buffer
	b.WriteString(header + "\n")
	for i := range n {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"%08x"`, i-1)
			if i%500 == 0 {
				parent = fmt.Sprintf(`"%08x"`, i-3) // a branch point
			}
		}
		fmt.Fprintf(&b, `{"type":"message","id":"%08x","parentId":%s,"timestamp":"2026-02-09T15:00:00.000Z","message":{"role":"user","content":"turn %d: %s"}}`+"\n",
			i, parent, i, strings.Repeat("words to describe ", 8))
	}
	path := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	opt := ViewOptions{Width: 100, File: "f"}
	plain, err := project.Open(path, session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	fast, err := project.OpenDescribed(path, session.DefaultLimits(), ViewDescriber(false, opt))
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	if !fast.Described() {
		t.Fatal("the index did not describe every entry")
	}
	limit := textLimit(opt)
	rd, back := fast.Records(), plain.Records()
	for i, e := range fast.Entries {
		got := rd.Description(e) // in file order, then one far back: the marks
		if i%1000 == 999 {
			got = rd.Description(fast.Entries[i-777])
			e = fast.Entries[i-777]
		}
		r, err := back.Read(plain.Entries[e.Index])
		if err != nil {
			t.Fatal(err)
		}
		if want := string(describe(r, limit).pack(nil, limit)); got != want {
			t.Fatalf("entry %d: the index's description %q, the record's %q", e.Index, got, want)
		}
	}
	// A jump reads a small window: a tree jumps at every branch, and a full
	// window at each jump was most of what tree allocated on a session of
	// many branches (project's descJump).
	jumps := fast.Records()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for k := range 1000 {
		at := k * 7919 % (n - 3)
		for j := range 3 {
			_ = jumps.Description(fast.Entries[at+j])
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("1,000 jumps of three descriptions each allocated %d bytes", got)
	}
	procs := runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2))
	defer runtime.GOMAXPROCS(procs)
	if a, b := views(t, plain, false, opt), views(t, fast, false, opt); !bytes.Equal(a, b) {
		t.Errorf("the described index gives %d bytes, reading back %d", len(b), len(a))
	}
}
