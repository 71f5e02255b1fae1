package migrate

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/parse"
)

// RepairOptions select what Repair may fix beyond the always-safe repairs.
type RepairOptions struct {
	// ZeroTail cuts a run of NUL bytes after the last newline (zero_fill).
	ZeroTail bool
	Limits   parse.Limits
}

// Fix is one repair made (or, in a dry run, that would be made).
type Fix struct {
	Line    int          `json:"line"` // physical line in the input
	Code    finding.Code `json:"code"` // the finding repaired
	Message string       `json:"message"`
}

// RepairResult describes one repair.
type RepairResult struct {
	Changed  bool // the output differs from the input
	Lines    int  // physical lines read
	LinesOut int  // physical lines written
	Fixes    []Fix
}

// Repair copies the session read from in to out, making only the repairs
// that need no guessing (cli.md, `repair`):
//
//   - a tolerated partial tail (torn last line) is dropped, so the file ends
//     with the newline of the last complete line;
//   - a missing final newline is added;
//   - a line of concatenated complete objects becomes one line per object
//     (whitespace between the objects is dropped);
//   - with ZeroTail, a run of NUL bytes after the last newline is cut.
//
// Every line kept is copied byte for byte with its own terminator (CRLF
// stays CRLF). A terminator Repair adds is the one of the line it completes
// when it has one, else "\r\n" if the previous line ended so, else "\n".
// Blank lines are kept. Any other corruption (invalid_json, invalid_utf8,
// trailing_data, not_object, line_too_long, zero_fill without ZeroTail,
// file_too_large) is refused with an *Error carrying the finding; so is a
// file in which no complete object would remain. Repair does not look at
// what the objects mean: the caller verifies the result.
func Repair(in io.Reader, out io.Writer, opts RepairOptions) (RepairResult, error) {
	var res RepairResult
	bw := bufio.NewWriterSize(out, 64<<10)
	rd := parse.NewReader(in, opts.Limits)
	prevCRLF, objects := false, 0
	for rd.Next() {
		l := rd.Line()
		res.Lines = l.Num
		fix, err := repairLine(bw, l, prevCRLF, opts, &res)
		if err != nil {
			return RepairResult{}, err
		}
		if fix != nil {
			res.Fixes = append(res.Fixes, *fix)
		}
		if l.Class == parse.Object || l.Class == parse.Concatenated {
			objects += len(l.Objects)
		}
		prevCRLF = l.CRLF
	}
	if err := readError(rd.Err(), res.Lines+1); err != nil {
		return RepairResult{}, err
	}
	if objects == 0 {
		return RepairResult{}, refuse(RefusedCorrupt, finding.Errorf(finding.MissingHeader, 1,
			"no complete record would remain: nothing to repair into a session"))
	}
	if err := bw.Flush(); err != nil {
		return RepairResult{}, &Error{Code: WriteFailed, Err: err}
	}
	res.Changed = len(res.Fixes) > 0
	return res, nil
}

// repairLine writes the repaired form of one line and returns the fix made,
// if any.
func repairLine(w *bufio.Writer, l *parse.Line, prevCRLF bool, opts RepairOptions, res *RepairResult) (*Fix, error) {
	term := terminator(l, prevCRLF)
	switch l.Class {
	case parse.Blank:
		res.LinesOut++
		return nil, writeLine(w, l.Raw, l)
	case parse.Object:
		res.LinesOut++
		if l.Newline {
			return nil, writeLine(w, l.Raw, l)
		}
		return &Fix{l.Num, finding.MissingFinalNewline, "added the missing final newline"},
			writeRaw(w, l.Raw, term)
	case parse.PartialTail:
		return &Fix{l.Num, finding.PartialTail, plural(len(l.Raw), "dropped the torn last line (%d byte%s)")}, nil
	case parse.Concatenated:
		for k := range l.Objects {
			res.LinesOut++
			if err := writeRaw(w, l.Object(k), term); err != nil {
				return nil, err
			}
		}
		return &Fix{l.Num, finding.ConcatenatedObjects, plural(len(l.Objects), "split the line into %d line%s, one per object")}, nil
	}
	if l.Code == finding.ZeroFill && opts.ZeroTail {
		return &Fix{l.Num, finding.ZeroFill, plural(int(l.Size), "cut the trailing run of %d NUL byte%s")}, nil
	}
	return nil, lineRefusal(l)
}

// terminator is the line terminator Repair writes after (part of) line l.
func terminator(l *parse.Line, prevCRLF bool) string {
	if l.CRLF || (!l.Newline && prevCRLF) {
		return "\r\n"
	}
	return "\n"
}

func writeRaw(w *bufio.Writer, b []byte, term string) error {
	if _, err := w.Write(b); err != nil {
		return &Error{Code: WriteFailed, Err: err}
	}
	if _, err := w.WriteString(term); err != nil {
		return &Error{Code: WriteFailed, Err: err}
	}
	return nil
}

// plural formats a message with one %d and one %s for an "s" suffix.
func plural(n int, format string) string {
	s := "s"
	if n == 1 {
		s = ""
	}
	return fmt.Sprintf(format, n, s)
}
