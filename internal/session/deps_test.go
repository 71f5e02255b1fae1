package session

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers place every package of pisess: a package imports only packages
// of lower layers, so the import chain from cli down is at most five
// packages (cli, a command's package, the index and checks, the model,
// a leaf), the commands' packages never import each other, and the
// checker links in neither the views nor the file rewriter. only lists
// what the packages at the bottom may import at all.
var (
	layers = map[string]int{
		"finding": 1, "text": 1, "pipeline": 1, "hostile": 1, "schema": 1, "testfs": 1,
		"session": 2, "safefile": 2,
		"project": 3, "validate": 3, "migrate": 3, "audit": 3, "secrets": 3, "grep": 3, "sessdir": 3, "du": 3,
		"fix": 4, "render": 4, "export": 4,
		"cli":        5,
		"cmd/pisess": 6,
	}
	only = map[string][]string{
		"finding": {}, "text": {}, "pipeline": {}, "hostile": {}, "schema": {}, "testfs": {},
		"session":  {"finding", "text"},
		"safefile": {"finding"},
	}
)

// maxChain is how many packages the longest import chain from cli down
// may hold, cli and the leaf included.
const maxChain = 5

// TestDependenciesOneWay: the packages stand on each other one way, by
// layers (`go list` says what each imports); and only internal/safefile,
// the writer, creates, replaces or writes files (writesOutsideSafefile),
// only internal/session decodes records, ReadHeader alone reads a
// version, and only main calls os.Exit.
func TestDependenciesOneWay(t *testing.T) {
	for _, w := range writesOutsideSafefile(t, "../..") {
		t.Errorf("%s: writes a file outside internal/safefile (use safefile.Create, Rewrite, Append, Scratch, Move or MkdirAll)", w)
	}
	checkJSONDecodes(t, "../..")    // and only session decodes records (decodes_test.go)
	checkVersionReaders(t, "../..") // and ReadHeader alone reads a version
	for _, f := range testSupportImports(t, "../..") {
		t.Errorf("%s: imports %s, which only tests may", f, testSupport)
	}
	for _, e := range exitsOutsideMain(t, "../..") {
		t.Errorf("%s: calls os.Exit outside cmd/pisess (return an error that carries its exit code)", e)
	}
	imports := listImports(t)
	for _, e := range layerErrors(imports) {
		t.Error(e)
	}
	if chain := longestChain(imports, "cli"); len(chain) > maxChain {
		t.Errorf("the import chain %s holds %d packages, more than %d", strings.Join(chain, " → "), len(chain), maxChain)
	}
}

// listImports is `go list` of the module: each package of pisess (its
// path in the module) and the packages of pisess it imports.
func listImports(t *testing.T) map[string][]string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list dependencies with")
	}
	const mod = "github.com/pisess/pisess/"
	out, err := exec.Command(goCmd, "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "../../cmd/...", "../../internal/...", "../../schema/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], mod), "internal/")
		imports[pkg] = []string{}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, mod) {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(strings.TrimPrefix(imp, mod), "internal/"))
			}
		}
	}
	if len(imports) < len(layers) {
		t.Fatalf("go list found %d packages, fewer than the %d placed: %s", len(imports), len(layers), out)
	}
	return imports
}

// layerErrors checks imports against layers and only: every package is
// placed, and imports only packages below it (and, at the bottom, only
// what only allows).
func layerErrors(imports map[string][]string) []string {
	var errs []string
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		layer, ok := layers[pkg]
		if !ok {
			errs = append(errs, pkg+": no layer (place it in layers)")
			continue
		}
		for _, imp := range imports[pkg] {
			switch allowed, bottom := only[pkg]; {
			case bottom && !slices.Contains(allowed, imp):
				errs = append(errs, fmt.Sprintf("%s imports %s; it may import only %v", pkg, imp, allowed))
			case layers[imp] >= layer:
				errs = append(errs, fmt.Sprintf("%s (layer %d) imports %s (layer %d): a package imports only lower layers", pkg, layer, imp, layers[imp]))
			}
		}
	}
	return errs
}

// longestChain is the longest import chain from pkg down, pkg first.
func longestChain(imports map[string][]string, pkg string) []string {
	longest := map[string][]string{}
	var walk func(p string, depth int) []string
	walk = func(p string, depth int) []string {
		if c, ok := longest[p]; ok || depth > len(imports) { // a cycle cannot compile; depth only bounds the walk
			return c
		}
		var below []string
		for _, imp := range imports[p] {
			if c := walk(imp, depth+1); len(c) > len(below) {
				below = c
			}
		}
		longest[p] = append([]string{p}, below...)
		return longest[p]
	}
	return walk(pkg, 0)
}

// TestLayerRules: the layer rule finds an import sideways, upwards and
// past what the bottom allows, and longestChain the longest chain.
func TestLayerRules(t *testing.T) {
	imports := map[string][]string{
		"cli": {"fix", "render"}, "fix": {"project", "render"}, "render": {"project"},
		"project": {"session"}, "session": {"finding", "pipeline"}, "finding": {}, "pipeline": {},
		"validate": {"cli"}, "newpkg": {},
	}
	got := layerErrors(imports)
	want := []string{
		"fix (layer 4) imports render (layer 4): a package imports only lower layers",
		"newpkg: no layer (place it in layers)",
		"session imports pipeline; it may import only [finding text]",
		"validate (layer 3) imports cli (layer 5): a package imports only lower layers",
	}
	if !slices.Equal(got, want) {
		t.Errorf("layerErrors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if chain := strings.Join(longestChain(imports, "cli"), " "); chain != "cli fix render project session finding" {
		t.Errorf("longestChain = %s", chain)
	}
}

// testSupport is the package of file helpers only tests import (it writes
// their fixtures with os.WriteFile); testSupportImports fails on a
// production file that imports it, so the writer rule cannot be passed
// through it.
const testSupport = "internal/testfs/"

// testSupportImports lists the production files that import testSupport.
func testSupportImports(t *testing.T, root string) []string {
	var found []string
	eachProductionFile(t, root, "", func(fset *token.FileSet, rel string, f *ast.File) {
		if importName(f, "github.com/pisess/pisess/"+strings.TrimSuffix(testSupport, "/"), "testfs") != "" {
			found = append(found, rel)
		}
	})
	return found
}

// exitsOutsideMain lists, as file:line, each os.Exit in the production
// code outside cmd/pisess: an error carries its exit code up to main
// (cli.Run returns it), so deferred clean-ups always run.
func exitsOutsideMain(t *testing.T, root string) []string {
	var found []string
	eachProductionFile(t, root, "", func(fset *token.FileSet, rel string, f *ast.File) {
		if strings.HasPrefix(rel, "cmd/pisess/") {
			return
		}
		for _, at := range exitCalls(f) {
			found = append(found, rel+":"+strconv.Itoa(fset.Position(at).Line))
		}
	})
	return found
}

// exitCalls finds the uses of os.Exit in f, however os is imported.
func exitCalls(f *ast.File) []token.Pos {
	osName := importName(f, "os", "os")
	if osName == "" {
		return nil
	}
	var at []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok && isOS(s, osName, "Exit") {
			at = append(at, s.Pos())
		}
		return true
	})
	return at
}

// osWrites are the functions of package os that create, replace or write
// a file (os.OpenFile only with a flag that writes), scratch files and
// directories included (safefile.Scratch, safefile.MkdirAll): so a Ctrl-C
// clean-up and a fault test cover each.
var osWrites = map[string]bool{"Rename": true, "Create": true, "WriteFile": true, "Link": true, "Symlink": true, "Truncate": true, "OpenFile": true,
	"CreateTemp": true, "MkdirTemp": true, "MkdirAll": true, "Mkdir": true}

// writeFlags are the os.OpenFile flags that make it write.
var writeFlags = map[string]bool{"O_WRONLY": true, "O_RDWR": true, "O_CREATE": true, "O_APPEND": true, "O_TRUNC": true}

// writesOutsideSafefile lists, as file:line: os.Name, each use of a
// function of osWrites in the production code (cmd and internal, test
// files aside) outside internal/safefile, read from the syntax of every
// file whatever its build constraints.
func writesOutsideSafefile(t *testing.T, root string) []string {
	var found []string
	eachProductionFile(t, root, "safefile", func(fset *token.FileSet, rel string, f *ast.File) {
		if strings.HasPrefix(rel, testSupport) {
			return // test fixtures; testSupportImports keeps it out of the program
		}
		for _, pos := range osWriteUses(f) {
			found = append(found, rel+":"+strconv.Itoa(fset.Position(pos.at).Line)+": os."+pos.name)
		}
	})
	return found
}

// eachProductionFile calls visit with the syntax of every production file
// of cmd and internal (test files and testdata aside, whatever the build
// constraints) outside internal/<skip> (everywhere for ""), and its path
// relative to root, with slashes.
func eachProductionFile(t *testing.T, root, skip string, visit func(fset *token.FileSet, rel string, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && (d.Name() == "testdata" || skip != "" && path == filepath.Join(root, "internal", skip)):
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			visit(fset, filepath.ToSlash(rel), f)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

type use struct {
	at   token.Pos
	name string
}

// osWriteUses finds the uses of osWrites in f: a call of os.OpenFile
// whose flag names no write flag is a read.
func osWriteUses(f *ast.File) []use {
	osName := importName(f, "os", "os")
	if osName == "" {
		return nil
	}
	reads := map[ast.Expr]bool{} // os.OpenFile selectors of reading calls
	var uses []use
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if isOS(n.Fun, osName, "OpenFile") && len(n.Args) >= 2 && !writes(n.Args[1]) {
				reads[n.Fun] = true
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == osName && osWrites[n.Sel.Name] && !reads[n] {
				uses = append(uses, use{n.Pos(), n.Sel.Name})
			}
		}
		return true
	})
	return uses
}

// isOS reports whether e is osName.name.
func isOS(e ast.Expr, osName, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == osName && s.Sel.Name == name
}

// writes reports whether an os.OpenFile flag may write: it names a write
// flag, or is not made of flag names at all (a variable: it may).
func writes(flag ast.Expr) bool {
	may, names := false, 0
	ast.Inspect(flag, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			names++
			may = may || writeFlags[n.Sel.Name]
			return false
		case *ast.Ident:
			names++
			may = may || writeFlags[n.Name] || !strings.HasPrefix(n.Name, "O_")
		}
		return true
	})
	return may || names == 0
}

// TestExitCalls: the exit rule finds os.Exit under any import name, and
// not another package's Exit.
func TestExitCalls(t *testing.T) {
	for src, want := range map[string]int{
		`import "os"; func f() { os.Exit(2) }`:                   1,
		`import o "os"; func f() { defer o.Exit(1); o.Exit(0) }`: 2,
		`import "os"; var exit = os.Exit`:                        1,
		`import "syscall"; func f() { syscall.Exit(1) }`:         0,
		`func f() { os.Exit(1) }`:                                0, // no package os
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x; "+src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(exitCalls(f)); got != want {
			t.Errorf("%s: %d os.Exit found, want %d", src, got, want)
		}
	}
}

// TestOSWriteUses: the scan behind the writer rule finds writes however
// os is imported and passes reads.
func TestOSWriteUses(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want string
	}{
		{`import "os"; func f() { os.Rename("a", "b") }`, "Rename"},
		{`import o "os"; func f() { o.WriteFile("a", nil, 0) }`, "WriteFile"},
		{`import "os"; var g = os.Create`, "Create"},
		{`import "os"; func f() { os.OpenFile("a", os.O_WRONLY|os.O_CREATE, 0) }`, "OpenFile"},
		{`import "os"; func f(flag int) { os.OpenFile("a", flag, 0) }`, "OpenFile"},
		{`import "os"; func f() { os.OpenFile("a", os.O_RDONLY|syscall.O_NONBLOCK, 0) }`, ""},
		{`import "os"; func f() { os.CreateTemp("", "x-*") }`, "CreateTemp"},
		{`import "os"; func f() { os.MkdirTemp("", "x-*") }`, "MkdirTemp"},
		{`import "os"; func f() { os.MkdirAll("a/b", 0o777); os.Mkdir("c", 0o777) }`, "MkdirAll,Mkdir"},
		{`import "os"; func f() { os.Open("a"); os.Remove("a"); os.TempDir() }`, ""},
		{`import "io"; func f() { os.Rename("a", "b") }`, ""}, // not package os
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x; "+tt.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range osWriteUses(f) {
			got = append(got, u.name)
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("%s: found %v, want %q", tt.src, got, tt.want)
		}
	}
}
