package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
)

// TestInChunks: the chunks reach w in order, as one render of every item
// writes them; a chunk's error stops the writing after the chunks before
// it.
func TestInChunks(t *testing.T) {
	items := func(w io.Writer, from, to int) error {
		for i := from; i < to; i++ {
			fmt.Fprintf(w, "%d\n", i)
		}
		return nil
	}
	for _, n := range []int{0, 10, chunkItems, 5*chunkItems + 7} {
		var want, got bytes.Buffer
		items(&want, 0, n)
		if err := inChunks(&got, n, chunkItems, items); err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d items: %v, output differs: %t", n, err, !bytes.Equal(got.Bytes(), want.Bytes()))
		}
	}
	bad := errors.New("bad chunk")
	var got bytes.Buffer
	err := inChunks(&got, 6*chunkItems, chunkItems, func(w io.Writer, from, to int) error {
		if from == 3*chunkItems {
			return bad
		}
		return items(w, from, to)
	})
	var want bytes.Buffer
	items(&want, 0, 3*chunkItems)
	if !errors.Is(err, bad) || got.String() != want.String() {
		t.Errorf("error %v; wrote %d lines, want %d", err, strings.Count(got.String(), "\n"), 3*chunkItems)
	}
}

// Written a chunk at a time on several goroutines, the views are the same
// bytes as written on one: tree and path, text and JSON, on a session of
// several chunks with branches, labels and a day change, at a width and
// at --width 0 (smaller chunks).
func TestChunksWriteTheSameBytes(t *testing.T) {
	const n = 3*chunkItems + 17
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range n {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"%08x"`, i-1)
			if i%1000 == 0 {
				parent = fmt.Sprintf(`"%08x"`, i-7) // a branch point
			}
		}
		day := 9 + i/(n/3)
		fmt.Fprintf(&b, `{"type":"message","id":"%08x","parentId":%s,"timestamp":"2026-02-%02dT15:00:00.000Z","message":{"role":"user","content":"turn %d"}}`+"\n", i, parent, day, i)
	}
	fmt.Fprintf(&b, `{"type":"label","id":"l","parentId":"%08x","timestamp":"2026-02-12T15:00:00.000Z","targetId":"%08x","label":"here"}`+"\n", n-1, n/2)
	s, err := project.Load(strings.NewReader(b.String()), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	leaf := s.DefaultLeaf()
	path, err := s.Path(leaf)
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]func(*bytes.Buffer) error{
		"tree":         func(w *bytes.Buffer) error { return Tree(w, s, leaf, ViewOptions{Width: 100}) },
		"tree compact": func(w *bytes.Buffer) error { return Tree(w, s, leaf, ViewOptions{Width: 100, Compact: true}) },
		"tree json":    func(w *bytes.Buffer) error { return TreeJSON(w, s, leaf) },
		"path":         func(w *bytes.Buffer) error { return Path(w, s, path, ViewOptions{Width: 100}) },
		"path json":    func(w *bytes.Buffer) error { return PathJSON(w, s, leaf, path) },
		"tree whole":   func(w *bytes.Buffer) error { return Tree(w, s, leaf, ViewOptions{Width: 0}) }, // wholeChunkItems
		"path whole":   func(w *bytes.Buffer) error { return Path(w, s, path, ViewOptions{Width: 0}) },
	}
	for name, write := range views {
		var one, many bytes.Buffer
		procs := runtime.GOMAXPROCS(1)
		err1 := write(&one)
		runtime.GOMAXPROCS(max(procs, 2))
		err2 := write(&many)
		runtime.GOMAXPROCS(procs)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", name, err1, err2)
		}
		if !bytes.Equal(one.Bytes(), many.Bytes()) {
			t.Errorf("%s: %d bytes on one goroutine, %d on several", name, one.Len(), many.Len())
		}
		if one.Len() < n*10 && name != "tree compact" {
			t.Errorf("%s: only %d bytes", name, one.Len())
		}
	}
}
