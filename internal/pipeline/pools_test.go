package pipeline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
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
	root := filepath.Join("..", "..")
	found := map[string][]string{} // file: what, at which line
	fset := token.NewFileSet()
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && (d.Name() == "testdata" || path == filepath.Join(root, "internal", "pipeline")):
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			for _, at := range goroutineUses(f) {
				found[rel] = append(found[rel], at.what+" at line "+strconv.Itoa(fset.Position(at.pos).Line))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
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

type goroutineUse struct {
	pos  token.Pos
	what string
}

// goroutineUses lists the go statements and the mentions of
// sync.WaitGroup in f.
func goroutineUses(f *ast.File) []goroutineUse {
	syncName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "sync" {
			syncName = "sync"
			if imp.Name != nil {
				syncName = imp.Name.Name
			}
		}
	}
	var uses []goroutineUse
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			uses = append(uses, goroutineUse{n.Pos(), "go statement"})
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && syncName != "" && x.Name == syncName && n.Sel.Name == "WaitGroup" {
				uses = append(uses, goroutineUse{n.Pos(), "sync.WaitGroup"})
			}
		}
		return true
	})
	return uses
}

// TestLeaf: the package imports nothing of pisess, so that any package
// may use it.
func TestLeaf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/pisess/") && !strings.HasSuffix(name, "_test.go") {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
}
