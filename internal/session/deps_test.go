package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDependenciesOneWay: the packages stand on each other one way,
// parse -> session -> (validate | project) -> render -> cli, so the checker
// never links in the views or the file rewriter; the commands' own
// packages (secrets, fix) sit below render, which words their output, and
// export above it. `go list -deps` says what each package links. And only
// internal/safefile, the writer, creates, replaces or writes files
// (writesOutsideSafefile); it stands on nothing of pisess but finding.
func TestDependenciesOneWay(t *testing.T) {
	for _, w := range writesOutsideSafefile(t, "../..") {
		t.Errorf("%s: writes a file outside internal/safefile (use safefile.Create, Rewrite, Append, Scratch, Move or MkdirAll)", w)
	}
	checkJSONDecodes(t, "../..")    // and only parse decodes records (decodes_test.go)
	checkVersionReaders(t, "../..") // and ReadHeader alone reads a version
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list dependencies with")
	}
	const mod = "github.com/pisess/pisess/internal/"
	forbidden := map[string][]string{
		"edit":     {"session", "validate", "project", "migrate", "render", "audit", "fix", "export", "cli"},
		"parse":    {"session", "validate", "project", "migrate", "render", "audit", "fix", "cli"},
		"session":  {"validate", "project", "migrate", "render", "audit", "fix", "cli"},
		"validate": {"project", "migrate", "render", "fix", "cli"},
		"project":  {"validate", "migrate", "render", "audit", "fix", "cli"},
		"audit":    {"validate", "project", "migrate", "render", "fix", "cli"},
		"migrate":  {"validate", "project", "render", "audit", "fix", "cli"},
		"secrets":  {"session", "validate", "project", "migrate", "render", "audit", "fix", "export", "cli"},
		"fix":      {"render", "audit", "export", "cli"},
		"du":       {"render", "audit", "export", "cli"},
		"render":   {"export", "cli"},
		"grep":     {"session", "validate", "project", "migrate", "render", "audit", "fix", "export", "cli"},
		"sessdir":  {"validate", "project", "migrate", "render", "audit", "fix", "export", "cli"},
		"export":   {"cli"},
		"safefile": {"edit", "parse", "session", "validate", "project", "migrate", "render", "audit", "fix", "du", "secrets", "grep", "sessdir", "export", "text", "cli"},
		"text":     {"finding", "parse", "session", "validate", "project", "migrate", "render", "audit", "fix", "secrets", "export", "cli"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{.ImportPath}}", mod+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := map[string]bool{}
		for _, d := range strings.Fields(string(out)) {
			deps[strings.TrimPrefix(d, mod)] = true
		}
		if !deps[pkg] {
			t.Fatalf("go list -deps %s does not list the package itself: %s", pkg, out)
		}
		for _, b := range bad {
			if deps[b] {
				t.Errorf("%s imports %s (directly or through another package)", pkg, b)
			}
		}
	}
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
		for _, pos := range osWriteUses(f) {
			found = append(found, rel+":"+strconv.Itoa(fset.Position(pos.at).Line)+": os."+pos.name)
		}
	})
	return found
}

// eachProductionFile calls visit with the syntax of every production file
// of cmd and internal (test files and testdata aside, whatever the build
// constraints) outside internal/<skip>, and its path relative to root,
// with slashes.
func eachProductionFile(t *testing.T, root, skip string, visit func(fset *token.FileSet, rel string, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && (d.Name() == "testdata" || path == filepath.Join(root, "internal", skip)):
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
