package render

import (
	"cmp"
	"encoding/csv"
	"io"
	"slices"
	"strings"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/text"
	"github.com/pisess/pisess/internal/validate"
)

// The output of `pisess audit`: the JSON line of each file as it comes
// (AuditFile), then what follows the files (Audit): the table, the summary
// and the problems; the JSON summary line; or the CSV rows.

// AuditRow is one file as audit shows it: its record and its usage in the
// window.
type AuditRow struct {
	Record *audit.Record
	Report *validate.Report // the file's validation, for its JSON object
	Usage  audit.Usage
}

// AuditOptions shape audit's output (its flags).
type AuditOptions struct {
	Format  string        // table, json or csv
	Sort    string        // activity, size, cost, tokens or file; "" keeps the order given
	Desc    bool          // --order desc
	Totals  audit.Options // grouping, window, time zone
	Summary bool          // --summary: no row per file
	Quiet   bool
	Width   int // of the table and text; 0: no limit
	Style   text.Style
}

// AuditResult is what an audit found: the files shown, the totals, how
// many files could not be read and the temp files an interrupted rewrite
// left in the directories searched.
type AuditResult struct {
	Rows       []AuditRow
	Sum        audit.Summary
	Unreadable int
	StaleTemps []string
}

// auditWriter writes one audit's output after the files.
type auditWriter struct {
	AuditResult
	AuditOptions
	out io.Writer
}

// AuditFile writes one file's line of `audit --format json`.
func AuditFile(w io.Writer, row AuditRow) error {
	return JSONLine(w, fileJSON(row))
}

// Audit writes everything that follows the files, in opt's format. It
// orders res's rows and groups in place.
func Audit(w io.Writer, res AuditResult, opt AuditOptions) error {
	a := &auditWriter{AuditResult: res, AuditOptions: opt, out: w}
	a.sortRows()
	if a.Desc {
		slices.Reverse(a.Sum.Groups)
	}
	switch a.Format {
	case "json":
		js := summaryJSON(a.Sum, a.Totals, a.Unreadable)
		js.Summary.StaleTemps = a.StaleTemps
		return JSONLine(a.out, js)
	case "csv":
		cw := csv.NewWriter(a.out)
		switch {
		case a.Totals.By != audit.NoGrouping:
			groupCSV(cw, a.Totals.By, a.Sum.Groups)
		case a.Summary:
			summaryCSV(cw, a.Sum)
		default:
			fileCSV(cw, a.Rows)
		}
		cw.Flush()
		return cw.Error()
	}
	if !a.Quiet {
		var err error
		switch {
		case a.Totals.By != audit.NoGrouping:
			err = a.groupTable(a.Sum)
		case !a.Summary:
			err = a.fileTable()
		}
		if err != nil {
			return err
		}
	}
	a.summaryText(a.Sum)
	return nil
}

// sortRows orders the rows by Sort and Desc. Ascending, the newest,
// largest and costliest come last, next to the summary; ties keep the
// order given either way.
func (a *auditWriter) sortRows() {
	key := map[string]func(x, y AuditRow) int{
		"activity": func(x, y AuditRow) int { return x.Record.LastActivity.Compare(y.Record.LastActivity) },
		"size":     func(x, y AuditRow) int { return cmp.Compare(x.Record.Bytes, y.Record.Bytes) },
		"tokens":   func(x, y AuditRow) int { return cmp.Compare(x.Usage.Tokens.Total, y.Usage.Tokens.Total) },
		"cost":     func(x, y AuditRow) int { return cmp.Compare(x.Usage.Cost, y.Usage.Cost) },
		"file":     func(x, y AuditRow) int { return strings.Compare(x.Record.Path, y.Record.Path) },
	}[a.Sort]
	switch {
	case key == nil && a.Desc:
		slices.Reverse(a.Rows)
	case key != nil && a.Desc:
		slices.SortStableFunc(a.Rows, func(x, y AuditRow) int { return key(y, x) })
	case key != nil:
		slices.SortStableFunc(a.Rows, key)
	}
}
