package render

import (
	"bytes"
	"io"
	"runtime"

	"github.com/pisess/pisess/internal/pipeline"
)

// chunkItems is how many lines (entries) one chunk of a view holds.
const chunkItems = 4096

// chunk is items [from, to) of a view and what render wrote of them.
type chunk struct {
	from, to int
	buf      bytes.Buffer
}

// inChunks writes n items of a view on the cores: the items are cut into
// chunks, render writes items [from, to) of one chunk into its own buffer
// (on any goroutine: it must use its own record reader and writer), and
// the buffers reach w in order (internal/pipeline). A few chunks are in
// flight at a time, so memory stays bounded whatever n is.
func inChunks(w io.Writer, n int, render func(w io.Writer, from, to int) error) error {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if n <= chunkItems || workers < 2 {
		return render(w, 0, n)
	}
	var free []*chunk // the chunks written out, their buffers to reuse
	p := pipeline.New(pipeline.Config[*chunk]{
		Workers:  workers,
		InFlight: 2 * workers,
		Work:     func(_ int, c *chunk) error { return render(&c.buf, c.from, c.to) },
		Settle: func(c *chunk) error {
			_, err := w.Write(c.buf.Bytes())
			c.buf.Reset()
			free = append(free, c)
			return err
		},
	})
	defer p.Close()
	for from := 0; from < n; from += chunkItems {
		c := new(chunk)
		if k := len(free); k > 0 {
			c, free = free[k-1], free[:k-1]
		}
		c.from, c.to = from, min(from+chunkItems, n)
		if err := p.Submit(c); err != nil {
			return err
		}
	}
	return p.Wait()
}
