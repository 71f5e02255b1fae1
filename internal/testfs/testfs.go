// Package testfs holds the file helpers that the tests of the writer
// (internal/safefile) and of the commands that write through it share: a
// session file written with an exact mode, the names in a directory, and
// the check that no temp file was left behind. Only tests import it; it
// imports nothing of pisess.
package testfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteSession writes content to dir/s.jsonl with exactly mode (the umask
// does not narrow it) and returns its path.
func WriteSession(t testing.TB, dir, content string, mode fs.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// Names lists the names in dir, sorted.
func Names(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// NoTempLeft fails t for each name in dir that holds marker (the writer's
// temp prefix).
func NoTempLeft(t testing.TB, dir, marker string) {
	t.Helper()
	for _, n := range Names(t, dir) {
		if strings.Contains(n, marker) {
			t.Errorf("temp file left behind: %s", n)
		}
	}
}
