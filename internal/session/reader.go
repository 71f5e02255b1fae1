package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"runtime/debug"

	"github.com/pisess/pisess/internal/finding"
)

// Limits bound what the reader accepts. Exceeding one is a finding, never a
// crash or an unbounded allocation.
type Limits struct {
	MaxLineBytes int   // longest line kept in memory; longer lines are line_too_long
	MaxFileBytes int64 // largest file read; past it the file is file_too_large (0 = no limit)
}

// DefaultLimits are generous: real lines carry base64 images and long tool
// output.
func DefaultLimits() Limits {
	return Limits{MaxLineBytes: 256 << 20, MaxFileBytes: 0}
}

// Line is one physical line of a session file. Its byte slices are only
// valid until the next call to Reader.Next.
type Line struct {
	Num     int    // 1-based physical line number
	Offset  int64  // byte offset of the line's first byte in the file
	Raw     []byte // the line without "\n" or "\r\n"; nil for a line_too_long line
	Newline bool   // the line was terminated by "\n"
	CRLF    bool   // the terminator was "\r\n"
	Size    int64  // bytes the line occupies in the file, terminator included
	BOM     bool   // line 1 began with a UTF-8 byte order mark, which Raw leaves out (never on a line pi reads as blank: markAlone)
	Verdict
}

// byteOrderMark is U+FEFF in UTF-8. Some editors and Windows tools put it
// at the start of a text file.
const byteOrderMark = "\xef\xbb\xbf"

// BOMFinding returns the finding for a byte order mark at the start of the
// file (only line 1 can have one). Raw is the line without it, so the rest
// of the file is checked as if it were absent.
func (l *Line) BOMFinding() (finding.Finding, bool) {
	if !l.BOM {
		return finding.Finding{}, false
	}
	return finding.Errorf(finding.BOM, l.Num,
		"the file starts with a UTF-8 byte order mark (EF BB BF): pi 1.6.0 cannot parse line 1 with it and refuses the whole file as not a pi session (pi 0.73.1 ignored it); the rest of the file is checked as if it were absent; `pisess repair` removes it"), true
}

// markAlone reports whether line 1, starting with a byte order mark, is
// a blank line to pi 1.6.0: the mark is U+FEFF, which trim() strips, so a
// line of the mark and white space only is skipped as blank and the file
// loads (the header may follow). Such a line is read as it is, mark
// included: it is blank_line, not bom. Without a newline (the file is
// that one line) the mark stays bom: a file of nothing but the mark is
// refused by pi as non-empty, where an empty file is started afresh, and
// `pisess repair` leaves the empty file.
func markAlone(raw []byte, newline bool) bool {
	return newline && jsBlank(raw[len(byteOrderMark):])
}

// Object returns the bytes of the k-th complete object on the line.
func (l *Line) Object(k int) []byte {
	span := l.Objects[k]
	return l.Raw[span[0]:span[1]]
}

// Finding returns the line's parse-level finding, if it has one.
func (l *Line) Finding() (finding.Finding, bool) {
	switch l.Class {
	case Object:
		if !l.Newline {
			return finding.Warnf(finding.MissingFinalNewline, l.Num,
				"the last line is a complete object without a final newline"), true
		}
		return finding.Finding{}, false
	case Blank:
		if l.Num == 1 && bytes.HasPrefix(l.Raw, []byte(byteOrderMark)) {
			return finding.Warnf(finding.BlankLine, l.Num,
				"blank line: a UTF-8 byte order mark (EF BB BF) and nothing but white space; pi 1.6.0 skips the line as blank (trim() strips U+FEFF) and loads the file"), true
		}
		return finding.Warnf(finding.BlankLine, l.Num, "blank line"), true
	case PartialTail:
		return finding.Warnf(finding.PartialTail, l.Num,
			"torn last line (%d bytes, no newline): an incomplete object from an interrupted write; the entries before it are intact", len(l.Raw)), true
	case TornLine:
		return finding.Warnf(finding.TornLine, l.Num,
			"torn line (%d bytes): an incomplete object from an interrupted write, with a newline after it (pi 1.6.0 adds one when it resumes a torn session, and appends after it); pi skips the line; `pisess repair` removes it", len(l.Raw)), true
	case Concatenated:
		if l.Verdict.Offset > 0 {
			return finding.Errorf(finding.ConcatenatedObjects, l.Num,
				"the last line is %s followed by a torn one (%d bytes, no newline): a lost newline, then an interrupted write; pi 1.6.0 skips the whole line, the complete %s with it; `pisess repair` keeps %s and drops the torn rest",
				objectCount(len(l.Objects)), len(l.Raw)-l.Verdict.Offset, plural(len(l.Objects), "entry", "entries"), plural(len(l.Objects), "it", "them")), true
		}
		return finding.Errorf(finding.ConcatenatedObjects, l.Num,
			"%d complete objects on one line (a lost newline); `pisess repair` splits them", len(l.Objects)), true
	}
	return finding.Errorf(l.Code, l.Num, "%s", l.corruptMessage()), true
}

func (l *Line) corruptMessage() string {
	switch l.Code {
	case finding.InvalidJSON:
		if l.Verdict.Offset >= len(l.Raw) {
			return "the line ends inside a JSON value that is not an object, so it is no torn record"
		}
		return fmt.Sprintf("not valid JSON at byte %d of the line (%s)", l.Verdict.Offset+1, excerpt(l.Raw, l.Verdict.Offset))
	case finding.InvalidUTF8:
		return fmt.Sprintf("invalid UTF-8 at byte %d of the line", l.Verdict.Offset+1)
	case finding.TrailingData:
		return fmt.Sprintf("a complete object followed by other bytes at byte %d (%s)", l.Verdict.Offset+1, excerpt(l.Raw, l.Verdict.Offset))
	case finding.NotObject:
		return "valid JSON but not an object"
	case finding.ZeroFill:
		if l.Verdict.Offset > 0 {
			return l.zeroTailMessage()
		}
		return fmt.Sprintf("the file ends in %d NUL bytes after its last line (a crash after the file grew); `pisess repair --zero-tail` cuts them", l.Size)
	case finding.LineTooLong:
		return fmt.Sprintf("line of %d bytes or more exceeds the limit (--max-line-bytes)", l.Size)
	}
	return string(l.Code)
}

// zeroTailMessage words a last line that ends in NULs after complete
// objects or a torn one.
func (l *Line) zeroTailMessage() string {
	nuls, k, last := len(l.Raw)-l.Verdict.Offset, len(l.Objects), 0
	if k > 0 {
		last = l.Objects[k-1][1]
	}
	torn := len(bytes.TrimSpace(l.Raw[last:l.Verdict.Offset])) > 0
	var before, fix string
	switch {
	case k == 0:
		before, fix = "a torn object", "cuts them and the torn object"
	case torn:
		before, fix = objectCount(k)+" and a torn one", "cuts them and the torn object, keeping the complete "+plural(k, "one", "ones")
	default:
		before, fix = objectCount(k)+" without a newline", "cuts them, keeping the complete "+plural(k, "object", "objects")
	}
	return fmt.Sprintf("the last line is %s, then %d NUL bytes (a crash after the file grew); pi 1.6.0 skips the whole line; `pisess repair --zero-tail` %s", before, nuls, fix)
}

// objectCount words k complete objects.
func objectCount(k int) string {
	if k == 1 {
		return "a complete object"
	}
	return fmt.Sprintf("%d complete objects", k)
}

// plural picks the singular or plural word for a count.
func plural(k int, one, many string) string {
	if k == 1 {
		return one
	}
	return many
}

// excerpt quotes a few bytes of b around offset off, safe for a terminal.
func excerpt(b []byte, off int) string {
	off = min(off, len(b))
	return fmt.Sprintf("%q", b[off:min(off+16, len(b))])
}

// ErrFileTooLarge is returned by Reader.Err when MaxFileBytes was exceeded.
var ErrFileTooLarge = errors.New("file exceeds --max-file-bytes")

// Reader reads a session file line by line in bounded memory: one line at a
// time (up to MaxLineBytes) plus a fixed read buffer. A line longer than
// the buffer is held once when the reader has a Source to measure it in,
// and twice, for a moment, when it must gather it in pieces (a pipe).
type Reader struct {
	in          *bufio.Reader
	limits      Limits
	cls         Classifier
	line        Line
	src         Source
	buf         []byte   // holds lines longer than the bufio buffer
	measured    bool     // buf was sized for the long line being read (see measure)
	ahead       []byte   // what measure reads the Source into
	inBuf       bool     // the current line is in buf
	pieces      [][]byte // a long line while it is read (see keep)
	used, kept  int      // pieces used by the line; bytes in them
	num         int
	offset      int64
	err         error
	done        bool
	deferred    bool // leave kept lines unclassified
	tooLong     bool // the line being read exceeded MaxLineBytes
	allZeroTail bool // every byte of the too-long line was NUL
}

// readBufferSize is the bufio buffer: most lines are classified in place.
const readBufferSize = 256 << 10

// NewReader returns a Reader of r with the given limits.
func NewReader(in io.Reader, limits Limits) *Reader {
	r := &Reader{in: bufio.NewReaderSize(in, readBufferSize)}
	r.Reset(in, limits) // a no-op for r.in when in is a large enough *bufio.Reader
	return r
}

// Reset makes r read a new input from the start with the given limits,
// as NewReader would, but reusing its buffers (the buffer of a long line
// only up to keepLineBuffer bytes).
func (r *Reader) Reset(in io.Reader, limits Limits) {
	if limits.MaxLineBytes <= 0 {
		limits.MaxLineBytes = DefaultLimits().MaxLineBytes
	}
	r.in.Reset(in)
	buf := r.buf[:0]
	if cap(buf) > keepLineBuffer {
		buf = nil
	}
	src, _ := SourceOf(in)
	*r = Reader{in: r.in, limits: limits, cls: r.cls, buf: buf, ahead: r.ahead, src: src}
}

// A Source is the file under a Reader, which it can read ahead in: at
// holds the reader's input from offset base on. With one, a line longer
// than the read buffer is measured before it is read, and held in one
// buffer of its exact size: a long line costs its length in memory once,
// not again for the pieces it is gathered in.
type Source struct {
	at   io.ReaderAt
	base int64
}

// SourceOf returns the Source of r when r is a regular file, read from
// its current offset; it must be called before anything reads r.
func SourceOf(r io.Reader) (Source, bool) {
	f, ok := r.(interface {
		io.ReaderAt
		io.Seeker
		Stat() (fs.FileInfo, error)
	})
	if !ok {
		return Source{}, false
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return Source{}, false
	}
	base, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return Source{}, false
	}
	return Source{at: f, base: base}, true
}

// SetSource names the file under the reader's input when the reader
// cannot see it (the input is a buffer over the file): s must be taken
// with SourceOf before the buffer read anything.
func (r *Reader) SetSource(s Source) { r.src = s }

// keepLineBuffer is the largest long-line buffer Reset keeps.
const keepLineBuffer = 1 << 20

// DeferClassify makes Next leave the lines it keeps unclassified (Class
// Unclassified), for the caller to classify later, maybe on another
// goroutine, with Line.Classify. A line over MaxLineBytes has no bytes to
// look at and is still classified at once.
func (r *Reader) DeferClassify() { r.deferred = true }

// Classify classifies a line read with DeferClassify, with c (which must
// not be in use by another goroutine); other lines are left as they are.
func (l *Line) Classify(c *Classifier) {
	if l.Class == Unclassified {
		l.Verdict = c.Classify(l.Raw, !l.Newline)
	}
}

// Next advances to the next line and reports whether there is one. After it
// returns false, Err reports an I/O error or ErrFileTooLarge.
func (r *Reader) Next() bool {
	if r.done {
		return false
	}
	raw, size, newline, err := r.readLine()
	if err != nil {
		r.err, r.done = err, true
		return false
	}
	if size == 0 {
		r.done = true
		return false
	}
	r.num++
	r.line = Line{Num: r.num, Offset: r.offset, Newline: newline, Size: size}
	r.offset += size
	if r.limits.MaxFileBytes > 0 && r.offset > r.limits.MaxFileBytes {
		r.err, r.done = ErrFileTooLarge, true
		return false
	}
	if newline && raw != nil {
		raw = raw[:len(raw)-1]
		if n := len(raw); n > 0 && raw[n-1] == '\r' {
			raw, r.line.CRLF = raw[:n-1], true
		}
	}
	if r.tooLong {
		r.line.Verdict = r.longLineVerdict(newline)
		return true
	}
	if r.num == 1 && bytes.HasPrefix(raw, []byte(byteOrderMark)) && !markAlone(raw, newline) {
		raw, r.line.BOM = raw[len(byteOrderMark):], true
	}
	r.line.Raw = raw
	if r.deferred {
		r.line.Verdict = Verdict{Class: Unclassified}
		return true
	}
	r.line.Verdict = r.cls.Classify(raw, !newline)
	return true
}

// longLineVerdict classifies a line that was not kept: a final run of NULs
// is still zero_fill, anything else is line_too_long.
func (r *Reader) longLineVerdict(newline bool) Verdict {
	if !newline && r.allZeroTail {
		return Verdict{Class: Corrupt, Code: finding.ZeroFill}
	}
	return Verdict{Class: Corrupt, Code: finding.LineTooLong}
}

// Line returns the current line. It is overwritten by the next call to Next.
func (r *Reader) Line() *Line { return &r.line }

// Detach hands the current line's bytes over to the caller, who may keep
// them past the next call to Next: the reader will not write into them
// again. A long line is given away with the buffer it was read into, at
// no cost; one read in place is copied.
func (r *Reader) Detach() []byte {
	raw := r.line.Raw
	if r.inBuf {
		r.buf, r.inBuf = nil, false
		return raw
	}
	return bytes.Clone(raw)
}

// Err returns the error that ended reading, if any.
func (r *Reader) Err() error { return r.err }

// BytesRead is the number of bytes consumed so far.
func (r *Reader) BytesRead() int64 { return r.offset }

// readLine reads one physical line, terminator included. A line that fits
// the read buffer is returned in place; a longer one is gathered in r.buf
// up to MaxLineBytes and only counted beyond that. size is 0 at the end.
func (r *Reader) readLine() (raw []byte, size int64, newline bool, err error) {
	r.tooLong, r.allZeroTail, r.inBuf = false, true, false
	chunk, err := r.in.ReadSlice('\n')
	if err == nil || (err == io.EOF && len(chunk) > 0) {
		if rawLength(chunk, err == nil) > r.limits.MaxLineBytes {
			r.tooLong = true
			r.allZeroTail = allZero(chunk)
			return nil, int64(len(chunk)), err == nil, nil
		}
		return chunk, int64(len(chunk)), err == nil, nil
	}
	if err == io.EOF {
		return nil, 0, false, nil
	}
	if err != bufio.ErrBufferFull {
		return nil, 0, false, err
	}
	r.used, r.kept = 0, 0
	r.measure(len(chunk))
	for {
		size += int64(len(chunk))
		r.keep(chunk)
		if err == nil || err == io.EOF {
			break
		}
		if err != bufio.ErrBufferFull {
			return nil, 0, false, err
		}
		if r.limits.MaxFileBytes > 0 && r.offset+size > r.limits.MaxFileBytes {
			break
		}
		chunk, err = r.in.ReadSlice('\n')
	}
	newline = size > 0 && err == nil
	if r.tooLong {
		return nil, size, newline, nil
	}
	line := r.join()
	if rawLength(line, newline) > r.limits.MaxLineBytes { // keep allowed for a "\r\n" the line has not
		r.tooLong = true
		return nil, size, newline, nil
	}
	r.inBuf = true
	return line, size, newline, nil
}

// rawLength is the length of a line read with its terminator, if it has
// one ("\n" or "\r\n"), without it: what Line.Raw holds and the limit
// applies to.
func rawLength(line []byte, newline bool) int {
	n := len(line)
	if newline {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	return n
}

// keep copies chunk into the long line's pieces while the line stays
// within the limit; past the limit it lets them go and only notes whether
// the bytes were all NUL. Pieces rather than one growing buffer: a line
// over the limit costs the limit in memory, not the twice as much that
// doubling a buffer leaves behind (a 1 GiB line at the default 256 MiB
// limit peaked at over 850 MiB).
func (r *Reader) keep(chunk []byte) {
	if r.allZeroTail && !allZero(bytes.TrimSuffix(chunk, []byte{'\n'})) {
		r.allZeroTail = false
	}
	if r.tooLong {
		return
	}
	if r.kept+len(chunk) > r.limits.MaxLineBytes+2 { // +2: the terminator
		r.tooLong = true
		r.pieces, r.used, r.kept = nil, 0, 0
		if r.measured {
			r.buf, r.measured = nil, false
		}
		// Collect them now: left to the pacer, the garbage of one pass
		// over such a line adds up with the next pass's (migrate reads a
		// file three times) before a collection comes.
		runtime.GC()
		return
	}
	if r.measured {
		r.buf = append(r.buf, chunk...) // within its capacity unless the file changed
	} else if r.used < len(r.pieces) {
		r.pieces[r.used] = append(r.pieces[r.used][:0], chunk...)
	} else {
		r.pieces = append(r.pieces, bytes.Clone(chunk))
	}
	r.used++
	r.kept += len(chunk)
}

// keptPiecesMax is the most piece memory kept for the next long line.
const keptPiecesMax = 4 << 20

// join returns the kept pieces as one line in r.buf (reused from line to
// line; allocated at the exact size when it must grow).
func (r *Reader) join() []byte {
	if r.measured {
		r.measured = false
		return r.buf
	}
	if cap(r.buf) < r.kept {
		r.buf = make([]byte, 0, r.kept)
	}
	r.buf = r.buf[:0]
	for _, p := range r.pieces[:r.used] {
		r.buf = append(r.buf, p...)
	}
	if r.kept > keptPiecesMax {
		r.pieces = nil
	}
	return r.buf
}

// collectBefore is the size of line buffer whose allocation is preceded
// by a collection.
const collectBefore = 32 << 20

// measureChunk is how much of the file measure reads at a time.
const measureChunk = 256 << 10

// measure finds, in the Source, the length of the long line being read,
// whose first n bytes the read buffer holds, and makes r.buf hold it
// exactly; keep then copies the line into r.buf (and grows it, should
// the file have changed meanwhile). A line over the limit is not kept at
// all. Without a Source, or when the file cannot be read ahead, keep
// gathers the line in pieces.
func (r *Reader) measure(n int) {
	r.measured = false
	if r.src.at == nil {
		return
	}
	max := int64(r.limits.MaxLineBytes) + 2 // +2: the terminator
	start := r.src.base + r.offset
	if r.ahead == nil {
		r.ahead = make([]byte, measureChunk)
	}
	length, err := lineLength(r.src.at, start, int64(n), max, r.ahead)
	switch {
	case err != nil:
		return
	case length > max:
		r.tooLong = true // nothing of it is kept: keep only looks for NULs
		return
	}
	if int64(cap(r.buf)) < length {
		r.buf, r.line.Raw = nil, nil // let the old one go before the new one is made
		if length >= collectBefore {
			// What an earlier pass over the file left (migrate reads it
			// five times) is garbage the pacer would let stand until the
			// heap doubled: collected now and its pages given back, so
			// that they hold this line. runtime.GC alone left the freed
			// buffer resident beside the new one (du on three 64 MiB
			// lines: 172 MB peak RSS against 94 MB for one).
			debug.FreeOSMemory()
		}
		r.buf = make([]byte, 0, length)
	}
	r.buf, r.measured = r.buf[:0], true
}

// lineLength returns the length, terminator included, of the line at
// offset start of f, whose first from bytes hold no newline: the bytes
// up to the next "\n", or to the end of the file; for a line longer than
// max, a length over max.
func lineLength(f io.ReaderAt, start, from, max int64, scratch []byte) (int64, error) {
	n := from
	for n <= max {
		k, err := f.ReadAt(scratch, start+n)
		if i := bytes.IndexByte(scratch[:k], '\n'); i >= 0 {
			return n + int64(i) + 1, nil
		}
		n += int64(k)
		switch {
		case err == io.EOF:
			return n, nil
		case err != nil:
			return 0, err
		case k == 0:
			return 0, io.ErrNoProgress
		}
	}
	return n, nil
}
