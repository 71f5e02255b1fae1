package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
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
		if err := inChunks(&got, n, items); err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d items: %v, output differs: %t", n, err, !bytes.Equal(got.Bytes(), want.Bytes()))
		}
	}
	bad := errors.New("bad chunk")
	var got bytes.Buffer
	err := inChunks(&got, 6*chunkItems, func(w io.Writer, from, to int) error {
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
