package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goroutinesAllowed are the production files outside internal/pipeline
// that may start goroutines (a go statement) or wait for them
// (sync.WaitGroup), with the reason: none is a worker pool. The list may
// only shrink (TestNoHandWrittenPools fails on an entry that is no longer
// needed).
var goroutinesAllowed = map[string]string{
	"internal/safefile/interrupt.go": "the signal watcher: waits for Ctrl-C to remove the temp files",
	"internal/fix/fork.go":           "the dry run's writer of the stand-in session into a pipe that project.Load reads",
	"internal/fix/slimrewrite.go":    "the check of the new lines: the validator reading a pipe beside the writer",
}

// TestNoHandWrittenPools: worker goroutines are internal/pipeline's; a go
// statement or a sync.WaitGroup anywhere else in cmd and internal (test
// files aside) is a pool written by hand, unless goroutinesAllowed says
// why it is not.
func TestNoHandWrittenPools(t *testing.T) {
	found := map[string][]string{} // file: what, at which line
	eachProductionFile(t, "../..", "pipeline", func(fset *token.FileSet, rel string, f *ast.File) {
		for _, u := range goroutineUses(f) {
			found[rel] = append(found[rel], u.name+" at line "+strconv.Itoa(fset.Position(u.at).Line))
		}
	})
	if len(found) == 0 {
		t.Fatal("no go statement found anywhere: the walk is broken (the signal watcher has one)")
	}
	for _, file := range slices.Sorted(maps.Keys(found)) {
		if _, ok := goroutinesAllowed[file]; !ok {
			t.Errorf("%s: %s: a worker pool is internal/pipeline's (or add the file to goroutinesAllowed, with why it is no pool)", file, strings.Join(found[file], ", "))
		}
	}
	for file := range goroutinesAllowed {
		if found[file] == nil {
			t.Errorf("%s starts no goroutine now: take it off goroutinesAllowed", file)
		}
	}
}

// goroutineUses lists the go statements and the mentions of
// sync.WaitGroup in f.
func goroutineUses(f *ast.File) []use {
	syncName := importName(f, "sync", "sync")
	var uses []use
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			uses = append(uses, use{n.Pos(), "go statement"})
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && syncName != "" && x.Name == syncName && n.Sel.Name == "WaitGroup" {
				uses = append(uses, use{n.Pos(), "sync.WaitGroup"})
			}
		}
		return true
	})
	return uses
}

// TestGoroutineUses: the scan behind the pool rule finds go statements
// and WaitGroups however sync is imported, and nothing in a file without.
func TestGoroutineUses(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []string
	}{
		{`func f() { go f() }`, []string{"go statement"}},
		{`import "sync"; var wg sync.WaitGroup`, []string{"sync.WaitGroup"}},
		{`import s "sync"; var wg s.WaitGroup`, []string{"sync.WaitGroup"}},
		{`import "sync"; var m sync.Mutex`, nil},
		{`type sync struct{ WaitGroup int }; var x sync; var y = x.WaitGroup`, nil},
	} {
		var got []string
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x; "+tt.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range goroutineUses(f) {
			got = append(got, u.name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.src, got, tt.want)
		}
	}
}
