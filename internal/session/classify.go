package session

import (
	"bytes"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/finding"
)

// Class is what a physical line holds.
type Class uint8

// The classes of a line.
const (
	Object       Class = iota // exactly one complete JSON object
	Blank                     // empty or whitespace only (a warning)
	PartialTail               // a torn last line: a viable prefix of an object (a warning)
	Concatenated              // two or more complete objects back to back (an error, repairable)
	Corrupt                   // anything else; Line.Code says what
	Unclassified              // not classified yet (Reader.DeferClassify)
	TornLine                  // a viable prefix of an object, with a newline: a torn write resumed after (a warning)
)

// String names the class.
func (c Class) String() string {
	names := [...]string{"object", "blank", "partial_tail", "concatenated", "corrupt", "unclassified", "torn_line"}
	if int(c) < len(names) {
		return names[c]
	}
	return "corrupt"
}

// Verdict is the classification of one line's bytes.
type Verdict struct {
	Class   Class
	Code    finding.Code // for Corrupt (and the warning classes): the finding code
	Offset  int          // for Corrupt: byte offset in the line of the first bad byte (zero_fill: of the run of NULs); for Concatenated: of a torn object after the complete ones, else 0
	Objects [][2]int     // for Object and Concatenated (and zero_fill): [start,end) of each complete object
}

// Classifier classifies lines. The zero value is ready to use; it keeps a
// reusable nesting stack, so one Classifier must not be shared by goroutines.
type Classifier struct {
	sc scanner
}

// Classify classifies one line (without its line terminator). atEOF says the
// line is the last of the file and has no final newline: only such a line
// may be a partial tail. The same viable prefix with a newline after it is
// a torn line: pi 1.6.0 ends a torn last line with "\n" when it loads the
// file and appends its new entries after it.
//
// Two more leftovers of a crash are told apart at the end of the file only:
// complete objects followed by a torn one (Concatenated, Offset where the
// torn one starts), and a line that ends in a run of NULs after complete
// objects or a torn one (zero_fill, Offset where the NULs start, Objects
// the complete objects before them).
func (c *Classifier) Classify(line []byte, atEOF bool) Verdict {
	v := c.classify(line, atEOF)
	if atEOF && v.Class == Corrupt && v.Code != finding.ZeroFill {
		if z, ok := c.zeroTail(line); ok {
			return z
		}
	}
	return v
}

// zeroTail classifies a last line that ends in a run of NULs as zero_fill
// when what comes before the run is complete objects, a torn object, or
// both.
func (c *Classifier) zeroTail(line []byte) (Verdict, bool) {
	n := len(bytes.TrimRight(line, "\x00"))
	if n == len(line) {
		return Verdict{}, false
	}
	switch v := c.classify(line[:n], true); v.Class {
	case Object, Concatenated, PartialTail:
		return Verdict{Class: Corrupt, Code: finding.ZeroFill, Offset: n, Objects: v.Objects}, true
	}
	return Verdict{}, false
}

func (c *Classifier) classify(line []byte, atEOF bool) Verdict {
	start := skipSpace(line, 0)
	if start == len(line) || (line[start] != '{' && jsBlank(line[start:])) {
		return Verdict{Class: Blank, Code: finding.BlankLine}
	}
	if atEOF && allZero(line) {
		return Verdict{Class: Corrupt, Code: finding.ZeroFill}
	}
	end, out, where := c.sc.value(line, start)
	switch out {
	case invalid:
		if bad := firstInvalidUTF8(line); bad >= 0 && bad <= end {
			return Verdict{Class: Corrupt, Code: finding.InvalidUTF8, Offset: bad}
		}
		return Verdict{Class: Corrupt, Code: finding.InvalidJSON, Offset: end}
	case incomplete:
		return c.classifyIncomplete(line, start, atEOF, where)
	}
	if bad := firstInvalidUTF8(line[:end]); bad >= 0 {
		return Verdict{Class: Corrupt, Code: finding.InvalidUTF8, Offset: bad}
	}
	if line[start] != '{' {
		return Verdict{Class: Corrupt, Code: finding.NotObject, Offset: start}
	}
	objects := [][2]int{{start, end}}
	return c.classifyRest(line, objects, atEOF)
}

// classifyIncomplete decides between a torn write (a partial tail at the
// end of the file, a torn line before a newline) and corruption for a line
// whose JSON value did not end. Either way the line must be a viable prefix
// of an object whose only invalid UTF-8, if any, is a character cut off by
// the tear.
func (c *Classifier) classifyIncomplete(line []byte, start int, atEOF bool, where scanState) Verdict {
	bad := firstInvalidUTF8(line)
	if bad >= 0 && !(where == insideString && tornCharacterAt(line, bad)) {
		return Verdict{Class: Corrupt, Code: finding.InvalidUTF8, Offset: bad}
	}
	switch {
	case line[start] != '{':
		return Verdict{Class: Corrupt, Code: finding.InvalidJSON, Offset: len(line)}
	case atEOF:
		return Verdict{Class: PartialTail, Code: finding.PartialTail}
	}
	return Verdict{Class: TornLine, Code: finding.TornLine}
}

// classifyRest looks at what follows the first object: nothing, more
// complete objects (a lost newline), at the end of the file a torn object
// after them (a lost newline, then a torn write), or trailing data.
func (c *Classifier) classifyRest(line []byte, objects [][2]int, atEOF bool) Verdict {
	i := skipSpace(line, objects[0][1])
	for i < len(line) {
		end, out, where := c.sc.value(line, i)
		if atEOF && out == incomplete && line[i] == '{' &&
			c.classifyIncomplete(line[i:], 0, true, where).Class == PartialTail {
			return Verdict{Class: Concatenated, Code: finding.ConcatenatedObjects, Offset: i, Objects: objects}
		}
		if out != complete || line[i] != '{' {
			return Verdict{Class: Corrupt, Code: finding.TrailingData, Offset: i}
		}
		if bad := firstInvalidUTF8(line[i:end]); bad >= 0 {
			return Verdict{Class: Corrupt, Code: finding.InvalidUTF8, Offset: i + bad}
		}
		objects = append(objects, [2]int{i, end})
		i = skipSpace(line, end)
	}
	if len(objects) > 1 {
		return Verdict{Class: Concatenated, Code: finding.ConcatenatedObjects, Objects: objects}
	}
	return Verdict{Class: Object, Objects: objects}
}

// jsBlank reports whether b is only white space as JavaScript's
// String.prototype.trim knows it (isJSSpace): pi skips such a line as
// blank before it tries JSON.parse.
func jsBlank(b []byte) bool { return len(bytes.TrimLeftFunc(b, isJSSpace)) == 0 }

// firstInvalidUTF8 returns the offset of the first byte that is not part of
// a valid UTF-8 sequence, or -1.
func firstInvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// tornCharacterAt reports whether the invalid UTF-8 at offset bad is only a
// multi-byte character cut off by the end of the input.
func tornCharacterAt(b []byte, bad int) bool {
	rest := b[bad:]
	return len(rest) < utf8.UTFMax && !utf8.FullRune(rest)
}

// allZero reports whether b is non-empty and all NUL bytes.
func allZero(b []byte) bool {
	return len(b) > 0 && len(bytes.TrimLeft(b, "\x00")) == 0
}
