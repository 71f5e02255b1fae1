package render

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
	"github.com/pisess/pisess/internal/validate"
)

// Validation writes the results of `pisess validate` in one format and
// counts them for the summary line (and the exit code).
type Validation struct {
	Format string // text, json (one report per file) or github (annotations)
	Quiet  bool   // text: errors only, no dialect note, no summary
	Strict bool   // --strict: warnings fail the run too
	Style  text.Style
	Tally  ValidateTally
}

// ValidateTally counts validate's results.
type ValidateTally struct {
	Files, Valid, Tolerated, Invalid, Unreadable, Errors, Warnings, Omp int
	WarningCodes                                                        map[finding.Code]int
}

// Unreadable counts a file that could not be validated (its error is the
// caller's to report).
func (v *Validation) Unreadable() {
	v.Tally.Files++
	v.Tally.Unreadable++
}

// Report counts one file's report and writes it.
func (v *Validation) Report(w io.Writer, rep *validate.Report) {
	v.Tally.Files++
	v.count(rep)
	switch v.Format {
	case "json":
		JSONLine(w, rep)
	case "github":
		for _, f := range rep.Findings {
			GitHub(w, rep.File, f)
		}
	default:
		if rep.Dialect == session.Omp && !v.Quiet {
			fmt.Fprintf(w, "%s: %s\n", text.Safe(rep.File), v.Style.Dim("oh-my-pi session (dialect omp)"))
		}
		for _, f := range rep.Findings {
			if v.Quiet && f.Severity != finding.Error {
				continue
			}
			Finding(w, v.Style, rep.File, f)
		}
	}
}

func (v *Validation) count(rep *validate.Report) {
	t := &v.Tally
	if rep.Dialect == session.Omp {
		t.Omp++
	}
	t.Errors += rep.Errors()
	t.Warnings += rep.Warnings()
	for _, f := range rep.Findings {
		if f.Severity == finding.Warning {
			if t.WarningCodes == nil {
				t.WarningCodes = map[finding.Code]int{}
			}
			t.WarningCodes[f.Code]++
		}
	}
	switch rep.Status {
	case validate.Valid:
		t.Valid++
	case validate.Tolerated:
		t.Tolerated++
	default:
		t.Invalid++
	}
}

// Summary writes the one-line summary of the text format, and under
// --strict which warnings failed the run.
func (v *Validation) Summary(w io.Writer) {
	if v.Format != "text" || v.Quiet {
		return
	}
	t := v.Tally
	files := text.Plural(t.Files, "file", "files")
	if t.Omp > 0 {
		files += fmt.Sprintf(" (%d oh-my-pi)", t.Omp)
	}
	line := fmt.Sprintf("%s: %d valid, %d tolerated, %d invalid", files, t.Valid, t.Tolerated, t.Invalid)
	if t.Unreadable > 0 {
		line += fmt.Sprintf(", %d unreadable", t.Unreadable)
	}
	line += fmt.Sprintf(" (%s, %s)", text.Plural(t.Errors, "error", "errors"), text.Plural(t.Warnings, "warning", "warnings"))
	switch {
	case t.Invalid > 0 || t.Unreadable > 0:
		line = v.Style.Error("✗") + " " + line
	case v.StrictFails():
		line = v.Style.Error("✗") + " " + line + "; --strict fails on " + warningList(t.WarningCodes)
	default:
		line = v.Style.OK("✓") + " " + line
	}
	fmt.Fprintln(w, line)
}

// StrictFails reports whether --strict fails a run that has no error.
func (v *Validation) StrictFails() bool {
	return v.Strict && (v.Tally.Warnings > 0 || v.Tally.Tolerated > 0)
}

// warningList names the warning codes with their counts, most first:
// "needs_migration ×3, partial_tail".
func warningList(codes map[finding.Code]int) string {
	names := slices.SortedFunc(maps.Keys(codes), func(a, b finding.Code) int {
		return cmp.Or(cmp.Compare(codes[b], codes[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(names))
	for i, c := range names {
		parts[i] = string(c)
		if n := codes[c]; n > 1 {
			parts[i] += fmt.Sprintf(" ×%d", n)
		}
	}
	return strings.Join(parts, ", ")
}
