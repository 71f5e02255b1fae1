package du

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/pipeline"
	"github.com/pisess/pisess/internal/session"
)

// A regular file is counted in ranges of whole lines, each read by a
// worker of its own: counting needs no order, so nothing has to go
// through one reader and be copied into batches for the others. A line
// longer than rangeLine is only measured there and counted afterwards,
// one at a time, so however many such lines the file has, one is held at
// a time.
const (
	rangeLine     = 4 << 20  // the longest line a range's reader keeps
	rangeMinBytes = 16 << 20 // ranges are no smaller
)

// longLine is a line a range left for later.
type longLine struct {
	offset, size int64
	atEOF        bool
}

// rangeResult is what the ranges counted.
type rangeResult struct {
	tally tally
	lines int64
	bytes int64
	long  []longLine
}

// countRanges counts the file f of size bytes on workers goroutines.
func countRanges(f *os.File, size int64, opts Options) (*rangeResult, error) {
	bounds, err := splitLines(f, size, min(int64(4*opts.Workers), max(size/rangeMinBytes, int64(opts.Workers))))
	if err != nil {
		return nil, err
	}
	workers := max(opts.Workers, 1)
	results := make([]rangeResult, workers) // a worker's own
	counters := make([]*counter, workers)
	for w := range counters {
		counters[w] = newCounter(opts.MaxBytes)
	}
	p := pipeline.New(pipeline.Config[int]{
		Workers:  workers,
		InFlight: len(bounds), // every range at once: they need no order
		Work: func(w, i int) error {
			return results[w].count(counters[w], f, bounds[i], bounds[i+1], bounds[i+1] == size, opts.Limits)
		},
	})
	defer p.Close()
	for i := range len(bounds) - 1 {
		if err := p.Submit(i); err != nil {
			return nil, err
		}
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	for w := range results {
		results[w].tally = counters[w].tally
	}
	all := &rangeResult{tally: tally{}}
	for _, r := range results {
		all.tally.merge(r.tally)
		all.lines += r.lines
		all.bytes += r.bytes
		all.long = append(all.long, r.long...)
	}
	slices.SortFunc(all.long, func(a, b longLine) int { return cmp.Compare(a.offset, b.offset) })
	return all, countLong(all.tally, f, all.long, opts)
}

// count counts the lines of f in [start, end) into c; last says the range
// ends the file (its last line may lack a newline).
func (r *rangeResult) count(c *counter, f *os.File, start, end int64, last bool, lim session.Limits) error {
	short := lim
	short.MaxLineBytes = min(lim.MaxLineBytes, rangeLine)
	short.MaxFileBytes = 0
	rd := session.NewReader(section(f, start, end), short)
	rd.DeferClassify()
	for rd.Next() {
		l := rd.Line()
		r.lines++
		it := item{size: l.Size, atEOF: last && !l.Newline}
		switch {
		case l.Class == session.Unclassified:
			c.line(l.Raw, &it)
		case l.Code == finding.LineTooLong && lim.MaxLineBytes > short.MaxLineBytes:
			r.long = append(r.long, longLine{offset: start + l.Offset, size: l.Size, atEOF: it.atEOF})
		default:
			c.notEntry(l.Verdict, l.Size)
		}
	}
	r.bytes += rd.BytesRead()
	return rd.Err()
}

// countLong counts the long lines, one at a time, into t.
func countLong(t tally, f *os.File, long []longLine, opts Options) error {
	c := &counter{tally: t, maxBytes: opts.MaxBytes}
	lim := opts.Limits
	lim.MaxFileBytes = 0
	for _, l := range long {
		rd := session.NewReader(section(f, l.offset, l.offset+l.size), lim)
		rd.DeferClassify()
		if !rd.Next() {
			if err := rd.Err(); err != nil {
				return err
			}
			return io.ErrUnexpectedEOF // the file shrank under us
		}
		line := rd.Line()
		it := item{size: l.size, atEOF: l.atEOF}
		if line.Class == session.Unclassified {
			c.line(line.Raw, &it)
		} else {
			c.notEntry(line.Verdict, l.size)
		}
		c.forget()
	}
	return nil
}

// splitLines cuts [0, size) of f into about n ranges of whole lines: each
// bound but the first and last is just after a newline, and never before a
// byte order mark (a range's reader would take it for one).
func splitLines(f *os.File, size, n int64) ([]int64, error) {
	bounds := []int64{0}
	buf := make([]byte, 64<<10)
	for k := int64(1); k < n; k++ {
		at := max(size*k/n, bounds[len(bounds)-1])
		b, err := lineAfter(f, at, size, buf)
		if err != nil {
			return nil, err
		}
		if b >= size {
			break
		}
		if b > bounds[len(bounds)-1] {
			bounds = append(bounds, b)
		}
	}
	return append(bounds, size), nil
}

// lineAfter is where the first line that starts at or after offset at
// starts (size when none does), skipping one that starts with EF BB BF.
func lineAfter(f *os.File, at, size int64, buf []byte) (int64, error) {
	for at < size {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-at)], at)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			start := at + int64(i) + 1
			var mark [3]byte
			if m, _ := f.ReadAt(mark[:], start); m == 3 && string(mark[:]) == "\xef\xbb\xbf" {
				at = start
				continue
			}
			return start, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if n == 0 {
			break
		}
		at += int64(n)
	}
	return size, nil
}

// section is [start, end) of f as a regular file of its own, so that its
// reader measures a long line before it reads it (session.SourceOf).
func section(f *os.File, start, end int64) io.Reader {
	return sectionFile{io.NewSectionReader(f, start, end-start)}
}

type sectionFile struct{ *io.SectionReader }

func (s sectionFile) Stat() (fs.FileInfo, error) { return sectionInfo(s.Size()), nil }

// sectionInfo describes a section: a regular file of its size.
type sectionInfo int64

func (s sectionInfo) Name() string       { return "section" }
func (s sectionInfo) Size() int64        { return int64(s) }
func (s sectionInfo) Mode() fs.FileMode  { return 0 }
func (s sectionInfo) ModTime() time.Time { return time.Time{} }
func (s sectionInfo) IsDir() bool        { return false }
func (s sectionInfo) Sys() any           { return nil }
