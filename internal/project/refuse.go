package project

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// pi 1.6.0's loader (session-manager.js, loadEntriesFromFile) keeps, of
// each line, what JSON.parse makes of it when that is truthy, and refuses
// the whole file ("Session file is not a valid pi session") unless the
// first such record is an object of type "session" whose id is a string.
// The index skips some lines pi keeps and reads some pi drops; the facts
// below let RefuseAsPi see the file as pi does (docs/format.md, "The views
// read what pi reads").

// RefuseAsPi passes on what Open, OpenDescribed, Load or LoadFile
// returned, unless pi 1.6.0 refuses to open the session: then it closes
// s and returns the refusal, a *HeaderError with the code validate
// reports for the same line. Files of oh-my-pi are read as omp reads
// them, not judged by pi's loader.
func RefuseAsPi(s *Session, err error) (*Session, error) {
	if err != nil || s.Dialect == session.Omp || s.piRefusal == nil {
		return s, err
	}
	s.Close()
	return nil, s.piRefusal
}

// piTakes reports whether pi 1.6.0 keeps a line the index skips as a
// record: a line classified code that JSON.parse accepts (invalid UTF-8
// decoded as U+FFFD, as pi's StringDecoder does) with a truthy value. A
// line with no object on it, taken first, makes pi refuse the file.
func piTakes(raw []byte, code finding.Code) bool {
	if code != finding.NotObject && code != finding.InvalidUTF8 {
		return false
	}
	text := bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	if !json.Valid(text) {
		return false
	}
	return truthy(bytes.TrimSpace(text))
}

// truthy is JavaScript's truthiness of the JSON value v: null, false, 0
// and "" are falsy (pi's parseSessionEntryLine skips them), anything else
// is a record.
func truthy(v []byte) bool {
	switch v[0] {
	case 'n', 'f':
		return false
	case '"':
		return len(v) > 2
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, _ := strconv.ParseFloat(string(v), 64) // out of range: ±Inf, or 0 for an underflow, as JavaScript reads it
		return f != 0
	}
	return true
}

// takenByPi is the refusal of a line pi 1.6.0 takes as its first record
// where the index skipped it.
func takenByPi(line int, code finding.Code) *HeaderError {
	what := "a JSON value that is not an object"
	if code == finding.InvalidUTF8 {
		what = "JSON with invalid UTF-8 (pi reads the bytes as U+FFFD)"
	}
	return &HeaderError{Code: code, Line: line,
		Msg: "the line before the session header is " + what + ": pi 1.6.0 takes it as the first record and refuses the file as not a pi session"}
}

// headerRefusal is why pi 1.6.0 refuses a file whose first record the
// index took as the header f (nil: pi opens it).
func headerRefusal(f *facts, t *session.Tape) *HeaderError {
	switch {
	case f.bom:
		return &HeaderError{Code: finding.BOM, Line: f.line,
			Msg: "the session header follows a UTF-8 byte order mark: pi 1.6.0 cannot parse the line and refuses the file as not a pi session; `pisess repair` removes the mark"}
	case f.concatenated:
		return &HeaderError{Code: finding.ConcatenatedObjects, Line: f.line,
			Msg: "the session header shares its line with another object: pi 1.6.0 drops the line and refuses the file as not a pi session; `pisess repair` splits it"}
	case t.Kind(t.Get(0, "id")) != session.KindString:
		return &HeaderError{Code: finding.Schema, Line: f.line,
			Msg: `the session header has no string "id": pi 1.6.0 refuses the file as not a pi session`}
	}
	return nil
}
