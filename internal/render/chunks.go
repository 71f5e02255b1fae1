package render

import (
	"bytes"
	"io"
	"runtime"
	"sync"

	"github.com/pisess/pisess/internal/project"
)

// chunkItems is how many lines (entries) one chunk of a view holds, and
// wholeChunkItems at --width 0, where a line can be a whole tool output and
// the chunks in flight hold what they wrote until their turn.
const (
	chunkItems      = 1024
	wholeChunkItems = 128
)

// keepChunkBuffer is the largest buffer inChunks keeps for a later chunk:
// at --width 0 a chunk of long entries writes megabytes, and each of the
// buffers in flight would keep that much to the end.
const keepChunkBuffer = 1 << 20

// inChunks writes n items of a view on the cores: the items are cut into
// chunks of chunkItems, render writes items [from, to) of one chunk into its own buffer
// (on any goroutine: it must use its own record reader and writer), and
// the buffers reach w in order. A few chunks are in flight at a time, so
// memory stays bounded whatever n is.
func inChunks(w io.Writer, n, chunkItems int, render func(w io.Writer, from, to int) error) error {
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
			if c.buf.Cap() <= keepChunkBuffer { // one that grew for long lines goes
				c.buf.Reset()
				free = append(free, c.buf)
			}
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
		if err := flush(workers); err != nil {
			return err
		}
	}
	return flush(0)
}

// chunkSize is how many lines a chunk of a text view holds.
func chunkSize(opt ViewOptions) int {
	if opt.Width == 0 {
		return wholeChunkItems
	}
	return chunkItems
}

// readerPool lends the chunks of one view record readers of its session,
// each to one chunk at a time: a reader's window is 256 KiB, and a new one
// for each chunk was 540 MB of garbage at --width 0 on a 1 GB session.
type readerPool struct {
	s    *project.Session
	pool sync.Pool
}

func (p *readerPool) get() *project.RecordReader {
	if rd, ok := p.pool.Get().(*project.RecordReader); ok {
		return rd
	}
	return p.s.Records()
}

func (p *readerPool) put(rd *project.RecordReader) { p.pool.Put(rd) }
