package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// jsonDecodeAllowed are the production files outside internal/session that
// still decode JSON with encoding/json, how many times, and why. The list
// may only shrink: a file with more uses fails, and so does one with fewer
// (lower its count, or take it off).
var jsonDecodeAllowed = map[string]struct {
	uses int
	why  string
}{}

// checkJSONDecodes holds the rule that the Tape (internal/session) is the
// only reader of records: encoding/json matches keys case-insensitively
// and JSON.parse does not, so a struct decoding sees members pi never
// reads (fix's TestWithoutCallsReadsKeysAsPi shows one).
func checkJSONDecodes(t *testing.T, root string) {
	uses := jsonDecodes(t, root)
	files := map[string]int{}
	for _, u := range uses {
		files[u[:strings.Index(u, ":")]]++
	}
	for _, u := range uses {
		file := u[:strings.Index(u, ":")]
		if _, ok := jsonDecodeAllowed[file]; !ok {
			t.Errorf("%s: decodes JSON outside internal/session (read records with session.Tape)", u)
		}
	}
	for file, a := range jsonDecodeAllowed {
		if files[file] != a.uses {
			t.Errorf("%s: %d encoding/json decodings, jsonDecodeAllowed says %d (%s): the list may only shrink", file, files[file], a.uses, a.why)
		}
	}
}

// jsonDecodes lists, as file:line: json.Name, each use of json.Unmarshal,
// json.NewDecoder or json.Decoder in the production code (cmd and
// internal, test files aside) outside internal/session.
func jsonDecodes(t *testing.T, root string) []string {
	var found []string
	eachProductionFile(t, root, "session", func(fset *token.FileSet, rel string, f *ast.File) {
		found = append(found, fileJSONDecodes(fset, rel, f)...)
	})
	sort.Strings(found)
	return found
}

// fileJSONDecodes is jsonDecodes of the file f, at rel.
func fileJSONDecodes(fset *token.FileSet, rel string, f *ast.File) []string {
	name := importName(f, "encoding/json", "json")
	if name == "" {
		return nil
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := s.X.(*ast.Ident); ok && x.Name == name && (s.Sel.Name == "Unmarshal" || s.Sel.Name == "NewDecoder" || s.Sel.Name == "Decoder") {
				found = append(found, rel+":"+strconv.Itoa(fset.Position(s.Pos()).Line)+": json."+s.Sel.Name)
			}
		}
		return true
	})
	return found
}

// importName is the name f refers to the package path by, "" when f does
// not import it.
func importName(f *ast.File, path, name string) string {
	for _, imp := range f.Imports {
		if imp.Path.Value == strconv.Quote(path) {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return name
		}
	}
	return ""
}

// versionReadAllowed are the files outside internal/session that look a
// record's "version" member up, and why.
var versionReadAllowed = map[string]string{
	"internal/validate/validate.go": "versionAsRead rewrites the node for the schema; the value is ReadHeader's",
}

// checkVersionReaders holds that ReadHeader is the one reader of a
// header's version: no other file calls Get or StrOf with "version".
func checkVersionReaders(t *testing.T, root string) {
	eachProductionFile(t, root, "session", func(fset *token.FileSet, rel string, f *ast.File) {
		if _, ok := versionReadAllowed[rel]; ok {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok || len(c.Args) != 2 {
				return true
			}
			s, ok := c.Fun.(*ast.SelectorExpr)
			lit, isLit := c.Args[1].(*ast.BasicLit)
			if ok && isLit && (s.Sel.Name == "Get" || s.Sel.Name == "StrOf") && lit.Value == `"version"` {
				t.Errorf("%s:%d: reads a version member (session.ReadHeader is the one reader)", rel, fset.Position(c.Pos()).Line)
			}
			return true
		})
	})
}

// TestJSONDecodesFound: the rule finds a decoding (it cannot pass by
// finding nothing), under any name encoding/json is imported by, and not
// the encodings or another package's Unmarshal.
func TestJSONDecodesFound(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"import \"encoding/json\"\nfunc f(b []byte, v any) { json.Unmarshal(b, v) }", []string{"x.go:3: json.Unmarshal"}},
		{"import \"encoding/json\"\nfunc f(r io.Reader) {\n_ = json.NewDecoder(r)\nvar d *json.Decoder; _ = d }", []string{"x.go:4: json.NewDecoder", "x.go:5: json.Decoder"}},
		{"import j \"encoding/json\"\nfunc f(b []byte, v any) { j.Unmarshal(b, v) }", []string{"x.go:3: json.Unmarshal"}},
		{"import \"encoding/json\"\nfunc f(v any) { json.Marshal(v); var n json.Number; _ = n }", nil},
		{"import json \"example.com/other\"\nfunc f(b []byte, v any) { json.Unmarshal(b, v) }", nil},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", "package x\n"+tc.src+"\n", parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got := fileJSONDecodes(fset, "x.go", f); !slices.Equal(got, tc.want) {
			t.Errorf("%s: found %v, want %v", tc.src, got, tc.want)
		}
	}
}
