package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// contextLookups are the methods of *cli.Context that read a flag by its
// name. Those named like methods of other types (String, Path, Value…)
// count when the receiver is a context (ctx) or the name a literal.
var contextLookups = map[string]bool{
	"Bool": false, "Count": false, "Duration": false, "Float64": false, "Int": false, "Int64": false,
	"Path": false, "Set": false, "String": false, "Uint": false, "Uint64": false, "Value": false,
	// only *cli.Context has these
	"Float64Slice": true, "Generic": true, "Int64Slice": true, "IntSlice": true, "IsSet": true,
	"StringSlice": true, "Timestamp": true, "Uint64Slice": true,
}

// flagLookups lists, as line: call, each place f reads a flag by its name.
func flagLookups(fset *token.FileSet, f *ast.File) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		only, lookup := contextLookups[sel.Sel.Name]
		if !lookup {
			return true
		}
		lit, named := call.Args[0].(*ast.BasicLit)
		named = named && lit.Kind == token.STRING
		recv, _ := sel.X.(*ast.Ident)
		if only || named || recv != nil && recv.Name == "ctx" {
			found = append(found, strconv.Itoa(fset.Position(call.Pos()).Line)+": "+sel.Sel.Name)
		}
		return true
	})
	return found
}

// Each command binds its flags to a struct (flags.go): a flag's name is
// written once, where the flag is defined, and no code reads one by name
// (a misspelt name reads as the zero value, silently).
func TestFlagsAreReadFromTheirStructs(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, at := range flagLookups(fset, f) {
			t.Errorf("%s:%s: reads a flag by name; bind it to the command's flag struct (Destination) instead", name, at)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d production files: is the test in internal/cli?", checked)
	}
}

// flagLookups finds the lookups the commands used to make, and not the
// calls that share a method name with them.
func TestFlagLookupsFound(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{`ctx.String("format")`, []string{"String"}},
		{`c.Bool("backup")`, []string{"Bool"}},
		{`ctx.IsSet("leaf")`, []string{"IsSet"}},
		{`cCtx.IsSet(name)`, []string{"IsSet"}},
		{`ctx.Int(name)`, []string{"Int"}},
		{`ctx.Generic(name).(*byteSize)`, []string{"Generic"}},
		{`ctx.StringSlice("role")`, []string{"StringSlice"}},
		{`x.Value("jobs")`, []string{"Value"}},
		{`s.Path(s.DefaultLeaf())`, nil},
		{`render.Path(out, s, path, opts)`, nil},
		{`time.Duration(n * float64(unit))`, nil},
		{`b.String()`, nil},
		{`ctx.Args().First()`, nil},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", "package x\nfunc _() { _ = "+tc.src+" }\n", 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		var got []string
		for _, at := range flagLookups(fset, f) {
			got = append(got, at[strings.Index(at, " ")+1:])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: found %v, want %v", tc.src, got, tc.want)
		}
	}
}
