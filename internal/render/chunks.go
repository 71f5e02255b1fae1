package render

import (
	"bytes"
	"io"
	"runtime"
	"sync"
)

// chunkItems is how many lines (entries) one chunk of a view holds.
const chunkItems = 1024

// inChunks writes n items of a view on the cores: the items are cut into
// chunks, render writes items [from, to) of one chunk into its own buffer
// (on any goroutine: it must use its own record reader and writer), and
// the buffers reach w in order. A few chunks are in flight at a time, so
// memory stays bounded whatever n is.
func inChunks(w io.Writer, n int, render func(w io.Writer, from, to int) error) error {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if n <= chunkItems || workers < 2 {
		return render(w, 0, n)
	}
	type chunk struct {
		buf  *bytes.Buffer
		err  error
		done chan struct{}
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	var queue []*chunk
	var free []*bytes.Buffer // the buffers of chunks written out, to reuse
	flush := func(keep int) error {
		for len(queue) > keep {
			c := queue[0]
			<-c.done
			queue = queue[1:]
			if c.err != nil {
				return c.err
			}
			if _, err := w.Write(c.buf.Bytes()); err != nil {
				return err
			}
			c.buf.Reset()
			free = append(free, c.buf)
		}
		return nil
	}
	for from := 0; from < n; from += chunkItems {
		c := &chunk{buf: new(bytes.Buffer), done: make(chan struct{})}
		if k := len(free); k > 0 {
			c.buf, free = free[k-1], free[:k-1]
		}
		queue = append(queue, c)
		sem <- struct{}{}
		wg.Add(1)
		go func(from, to int) {
			defer wg.Done()
			defer func() { <-sem; close(c.done) }()
			c.err = render(c.buf, from, to)
		}(from, min(from+chunkItems, n))
		if err := flush(2 * workers); err != nil {
			return err
		}
	}
	return flush(0)
}
