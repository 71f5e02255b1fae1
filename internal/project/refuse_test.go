package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// The header and entry the cases are made of.
const (
	refusalHeader = `{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00Z","cwd":"/x"}`
	refusalEntry  = `{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi","timestamp":1}}`
)

// piRefusalCases are files pi 1.6.0's loader refuses (code: the code
// RefuseAsPi refuses them with, at line) or opens (code ""), each checked
// with SessionManager.open on copies; the conformance test asks pi again.
var piRefusalCases = []struct {
	name string
	text string
	code finding.Code // "" when pi opens the file
	line int
}{
	{"valid", refusalHeader + "\n" + refusalEntry + "\n", "", 0},
	{"header without id", strings.Replace(refusalHeader, `"id":"s1",`, "", 1) + "\n" + refusalEntry + "\n", finding.Schema, 1},
	{"id a number", strings.Replace(refusalHeader, `"s1"`, "7", 1) + "\n" + refusalEntry + "\n", finding.Schema, 1},
	{"id null", strings.Replace(refusalHeader, `"s1"`, "null", 1) + "\n", finding.Schema, 1},
	{"bare header", `{"type":"session"}` + "\n" + refusalEntry + "\n", finding.Schema, 1},
	{"duplicate id, last a number", strings.Replace(refusalHeader, `"id":"s1"`, `"id":"s1","id":5`, 1) + "\n", finding.Schema, 1},
	{"duplicate id, last a string", strings.Replace(refusalHeader, `"id":"s1"`, `"id":5,"id":"s1"`, 1) + "\n", "", 0},
	{"empty id", strings.Replace(refusalHeader, `"s1"`, `""`, 1) + "\n" + refusalEntry + "\n", "", 0},
	{"array before the header", "[1]\n" + refusalHeader + "\n" + refusalEntry + "\n", finding.NotObject, 1},
	{"string before the header", "\"x\"\n" + refusalHeader + "\n", finding.NotObject, 1},
	{"number before the header", "\n2.5\n" + refusalHeader + "\n", finding.NotObject, 2},
	{"true before the header", "true\n" + refusalHeader + "\n", finding.NotObject, 1},
	{"null before the header", "null\n" + refusalHeader + "\n" + refusalEntry + "\n", "", 0},
	{"zero before the header", "0\n-0.0\nfalse\n\"\"\n" + refusalHeader + "\n", "", 0},
	{"underflow is zero", "1e-999\n" + refusalHeader + "\n", "", 0},
	{"overflow is not", "1e999\n" + refusalHeader + "\n", finding.NotObject, 1},
	{"two values on a line", "1 2\n" + refusalHeader + "\n", "", 0},
	{"garbage before the header", "garbage\n" + refusalHeader + "\n", "", 0},
	{"torn object before the header", "{\"a\":\n" + refusalHeader + "\n", "", 0},
	{"invalid UTF-8 pi parses", "{\"type\":\"x\xff\"}\n" + refusalHeader + "\n", finding.InvalidUTF8, 1},
	{"invalid UTF-8 pi cannot parse", "\xff\n" + refusalHeader + "\n", "", 0},
	{"byte order mark before the header", "\xef\xbb\xbf" + refusalHeader + "\n" + refusalEntry + "\n", finding.BOM, 1},
	{"header and entry on one line", refusalHeader + refusalEntry + "\n", finding.ConcatenatedObjects, 1},
	{"not an object after the header", refusalHeader + "\n[1]\n" + refusalEntry + "\n", "", 0},
	{"header on line 2 of a batch", refusalHeader + "\n" + refusalEntry + "\n\"x\"\n", "", 0},
}

// TestRefuseAsPi: the files pi 1.6.0's loader refuses ("Session file is
// not a valid pi session", checked with SessionManager.open on copies)
// are refused with validate's code and line; the files it opens pass.
func TestRefuseAsPi(t *testing.T) {
	dir := t.TempDir()
	for i, tt := range piRefusalCases {
		t.Run(tt.name, func(t *testing.T) {
			for _, open := range []struct {
				name string
				fn   func(string) (*Session, error)
			}{
				{"Open", func(p string) (*Session, error) { return Open(p, session.DefaultLimits()) }},
				{"LoadFile", func(p string) (*Session, error) { return LoadFile(p, session.DefaultLimits()) }},
			} {
				p := filepath.Join(dir, strings.Repeat("f", i+1)+".jsonl")
				if err := os.WriteFile(p, []byte(tt.text), 0o600); err != nil {
					t.Fatal(err)
				}
				s, err := RefuseAsPi(open.fn(p))
				var he *HeaderError
				switch {
				case tt.code == "" && err != nil:
					t.Errorf("%s: pi opens the file; we refuse it: %v", open.name, err)
				case tt.code == "":
					s.Close()
				case !errors.As(err, &he):
					t.Errorf("%s: pi refuses the file; we got %v", open.name, err)
				case he.Code != tt.code || he.Line != tt.line:
					t.Errorf("%s: refused at line %d with %s (%s), want line %d, %s", open.name, he.Line, he.Code, he.Msg, tt.line, tt.code)
				case s != nil:
					t.Errorf("%s: a refusal returned a session", open.name)
				}
			}
		})
	}
}

// TestRefuseAsPiPassesErrors: an error of the load is returned as it is.
func TestRefuseAsPiPassesErrors(t *testing.T) {
	_, err := RefuseAsPi(Open(filepath.Join(t.TempDir(), "absent.jsonl"), session.DefaultLimits()))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want the open error", err)
	}
}

// writeRefusalCases writes piRefusalCases into dir for the conformance
// test, which asks pi 1.6.0's loader whether it opens each.
func writeRefusalCases(t *testing.T, dir string) []string {
	var paths []string
	for i, c := range piRefusalCases {
		p := filepath.Join(dir, fmt.Sprintf("refusal-%02d.jsonl", i))
		if err := os.WriteFile(p, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}
