package secrets

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// Redacted is the text that replaces a secret of the given kind.
func Redacted(kind string) string { return "[REDACTED:" + kind + "]" }

// RedactResult says what Redact replaced.
type RedactResult struct {
	Lines  int64          // physical lines read
	Count  int            // secrets replaced
	ByKind map[string]int // secrets replaced, by kind
}

// LineError is a line Redact cannot copy or search, so it refuses the
// whole file rather than leave a secret in it or lose bytes.
type LineError struct {
	Line int
	Code finding.Code // the finding it amounts to (line_too_long)
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Redact copies the session read from r to w with every secret replaced
// by Redacted(kind). Every other byte is copied as it is: the rest of each
// string with its escapes, the other members, the line terminators, a
// byte order mark, lines that hold no object (searched as text). A line
// over Limits.MaxLineBytes cannot be searched: Redact fails with a
// *LineError. Errors are I/O errors, session.ErrFileTooLarge and *LineError.
func Redact(r io.Reader, w io.Writer, opts Options) (RedactResult, error) {
	res := RedactResult{ByKind: map[string]int{}}
	ls := &lineScanner{rules: opts.Rules}
	bw := bufio.NewWriterSize(w, 64<<10)
	rd := session.NewReader(r, opts.Limits)
	rd.DeferClassify()
	for rd.Next() {
		l := rd.Line()
		res.Lines++
		if err := checkRoundTrip(l); err != nil {
			return res, err
		}
		if l.BOM {
			bw.WriteString("\uFEFF")
		}
		last := 0
		for _, h := range ls.scanLine(l) {
			bw.Write(l.Raw[last:h.start])
			bw.WriteString(Redacted(h.kind))
			last = h.end
			res.Count++
			res.ByKind[h.kind]++
		}
		bw.Write(l.Raw[last:])
		switch {
		case l.CRLF:
			bw.WriteString("\r\n")
		case l.Newline:
			bw.WriteByte('\n')
		}
	}
	if err := rd.Err(); err != nil {
		return res, err
	}
	return res, bw.Flush()
}

// checkRoundTrip makes sure the line's bytes, terminator and byte order
// mark are all of what it occupies in the file, so that copying them
// loses nothing.
func checkRoundTrip(l *session.Line) error {
	if l.Raw == nil && l.Size > 0 {
		return &LineError{Line: l.Num, Code: finding.LineTooLong, Msg: "longer than --max-line-bytes: it cannot be searched (raise the limit)"}
	}
	n := int64(len(l.Raw))
	if l.BOM {
		n += 3
	}
	switch {
	case l.CRLF:
		n += 2
	case l.Newline:
		n++
	}
	if n != l.Size {
		return &LineError{Line: l.Num, Code: finding.InvalidJSON, Msg: fmt.Sprintf("holds %d bytes the reader does not return as they are: not redacted", l.Size-n)}
	}
	return nil
}
