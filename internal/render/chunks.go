package render

import (
	"bytes"
	"io"
	"runtime"
	"sync"

	"github.com/pisess/pisess/internal/pipeline"
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

// chunk is items [from, to) of a view and what render wrote of them.
type chunk struct {
	from, to int
	buf      bytes.Buffer
}

// inChunks writes n items of a view on the cores: the items are cut into
// chunks of size items, render writes items [from, to) of one chunk into
// its own buffer (on any goroutine: it must use its own record reader and
// writer), and the buffers reach w in order (internal/pipeline). A few
// chunks are in flight at a time, so memory stays bounded whatever n is.
func inChunks(w io.Writer, n, size int, render func(w io.Writer, from, to int) error) error {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if n <= size || workers < 2 {
		return render(w, 0, n)
	}
	var free []*chunk // the chunks written out, their buffers to reuse
	p := pipeline.New(pipeline.Config[*chunk]{
		Workers:  workers,
		InFlight: 2 * workers,
		Work:     func(_ int, c *chunk) error { return render(&c.buf, c.from, c.to) },
		Settle: func(c *chunk) error {
			_, err := w.Write(c.buf.Bytes())
			if c.buf.Cap() <= keepChunkBuffer { // one that grew for long lines goes
				c.buf.Reset()
				free = append(free, c)
			}
			return err
		},
	})
	defer p.Close()
	for from := 0; from < n; from += size {
		c := new(chunk)
		if k := len(free); k > 0 {
			c, free = free[k-1], free[:k-1]
		}
		c.from, c.to = from, min(from+size, n)
		if err := p.Submit(c); err != nil {
			return err
		}
	}
	return p.Wait()
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
