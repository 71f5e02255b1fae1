package audit

import (
	"os"

	"github.com/pisess/pisess/internal/validate"
)

// FileReport audits the file at path in its one validation pass, wired
// as cli wires it, and returns the report too: for the tests.
func FileReport(path string, opts validate.Options) (*Record, *validate.Report, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, &validate.IOError{Path: path, Err: err}
	}
	c := NewCollector()
	opts.Observer = c
	rep, err := validate.File(path, opts)
	if err != nil {
		return nil, nil, err
	}
	return c.Record(path, validationOf(rep), info.ModTime()), rep, nil
}

// File is FileReport without the report.
func File(path string, opts validate.Options) (*Record, error) {
	r, _, err := FileReport(path, opts)
	return r, err
}

// validationOf is what audit reads of a report (cli's validation).
func validationOf(rep *validate.Report) Validation {
	return Validation{Status: string(rep.Status), TooNew: rep.Kind == validate.TooNew, NotSession: rep.Kind == validate.NotSession,
		Version: rep.Version, Dialect: rep.Dialect, SessionID: rep.SessionID, Entries: rep.Entries, Bytes: rep.Bytes, Findings: rep.Findings}
}

// LoneFile is File with the collector told its file is the only one
// audited (cli does that for a single file).
func LoneFile(path string, opts validate.Options) (*Record, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	c := NewCollector()
	c.Lone()
	opts.Observer = c
	rep, err := validate.File(path, opts)
	if err != nil {
		return nil, err
	}
	return c.Record(path, validationOf(rep), info.ModTime()), nil
}

// KeyCount is the number of entry keys r keeps.
func KeyCount(r *Record) int { return r.keys.len() }

// WithoutEntries is r without its entry keys and charges, the figures it
// shows.
func WithoutEntries(r *Record) Record {
	c := *r
	c.keys, c.charges = keyList{}, chargeLog{}
	return c
}
