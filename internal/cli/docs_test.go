package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// stringConstants returns the values of the string constants of type
// typeName declared in the Go files of dir (tests excluded).
func stringConstants(t *testing.T, dir, typeName string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok || spec.Type == nil || len(spec.Values) != len(spec.Names) {
				return true
			}
			if id, ok := spec.Type.(*ast.Ident); !ok || id.Name != typeName {
				return true
			}
			for _, v := range spec.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					values = append(values, s)
				}
			}
			return true
		})
	}
	if len(values) == 0 {
		t.Fatalf("no %s constants in %s", typeName, dir)
	}
	return values
}

// docs/errors.md lists every finding code and every refusal or I/O code
// that migrate, repair and the other rewriting commands report.
func TestErrorsDocListsEveryCode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	codes := append(stringConstants(t, "../finding", "Code"), stringConstants(t, "../safefile", "Code")...)
	for _, code := range codes {
		if !strings.Contains(string(doc), "`"+code+"`") {
			t.Errorf("docs/errors.md does not list `%s`", code)
		}
	}
}
