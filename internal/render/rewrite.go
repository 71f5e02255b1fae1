package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/text"
)

// RewriteResult is one file's result of `pisess migrate` or `pisess
// repair`, the object of their --format json.
type RewriteResult struct {
	File      string        `json:"file"`
	FileBytes []byte        `json:"fileBytes,omitempty"` // the name's bytes when it is not UTF-8
	Action    string        `json:"action"`
	From      int           `json:"from,omitempty"`
	To        int           `json:"to,omitempty"`
	Backup    *string       `json:"backup"`
	Reason    string        `json:"reason,omitempty"`
	Code      string        `json:"code,omitempty"`
	Fixes     []migrate.Fix `json:"fixes,omitempty"`
	Diff      string        `json:"diff,omitempty"`
	// Findings: migrate's notes, decisions worth knowing (warnings in
	// validate's shape, on the original file's lines).
	Findings []finding.Finding `json:"findings,omitempty"`
	// ReadOnly: the file had no write permission; it was replaced anyway
	// (the directory allows it) and the new file is read-only too.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Carried: bytes another program (pi) appended during the rename,
	// appended to the new file.
	Carried int64 `json:"carriedBytes,omitempty"`
	// Rescued: the old generation as another program left it.
	Rescued string `json:"rescued,omitempty"`
	Exit    int    `json:"-"` // the exit code the result calls for
}

// TempResult is the `--format json` object of one temp file --clean-temps
// looked at (action "temp-removed", "temp-would-remove" or "temp-kept").
type TempResult struct {
	File      string `json:"file"`
	FileBytes []byte `json:"fileBytes,omitempty"`
	Action    string `json:"action"`
	Reason    string `json:"reason,omitempty"`
}

// Rewrites writes the results of migrate and repair in one format (text
// or json): results to Out, refusals and errors to Err. It counts them
// for the summary line.
type Rewrites struct {
	Out, Err io.Writer
	Format   string
	Quiet    bool // text: no unchanged files, no summary
	Style    text.Style

	files, done, unchanged, refused, tempsRemoved int
}

// Result counts one file's result and writes it.
func (p *Rewrites) Result(r RewriteResult) {
	p.count(r)
	if p.Format == "json" {
		r.FileBytes = finding.NameBytes(r.File)
		JSONLine(p.Out, r)
		return
	}
	if r.Action == "refused" {
		Refused(p.Err, p.Style, r.Reason)
		return
	}
	if p.Quiet && (r.Action == "unchanged") {
		return
	}
	line := text.Safe(r.File) + ": " + p.Style.OK(strings.ReplaceAll(r.Action, "-", " "))
	if r.Action == "unchanged" {
		line = text.Safe(r.File) + ": " + p.Style.Dim(r.Action)
	}
	if detail := r.details(); len(detail) > 0 {
		line += " (" + strings.Join(detail, ", ") + ")"
	}
	fmt.Fprintln(p.Out, line)
	if r.Reason != "" { // an error after the rename: written, but not all is well
		fmt.Fprintf(p.Err, "%s %s\n", p.Style.Error("error:"), text.Safe(r.Reason))
	}
	if !p.Quiet { // migrate's notes, warnings as validate writes them
		for _, f := range r.Findings {
			Finding(p.Err, p.Style, r.File, f)
		}
	}
	if r.Diff != "" {
		io.WriteString(p.Out, safeLines(r.Diff))
	}
}

// Refused says on w why a file was left alone.
func Refused(w io.Writer, s text.Style, reason string) {
	fmt.Fprintf(w, "%s %s\n", s.Error("refused:"), text.Safe(reason))
}

// count adds one result to the tally.
func (p *Rewrites) count(r RewriteResult) {
	p.files++
	switch r.Action {
	case "refused":
		p.refused++
	case "unchanged":
		p.unchanged++
	default:
		p.done++
	}
}

// Temp writes what --clean-temps did with one temp file, and counts it.
func (p *Rewrites) Temp(r TempResult) {
	if r.Action == "temp-removed" {
		p.tempsRemoved++
	}
	switch {
	case p.Format == "json":
		r.FileBytes = finding.NameBytes(r.File)
		JSONLine(p.Out, r)
	case r.Action == "temp-removed":
		fmt.Fprintf(p.Out, "%s: %s\n", text.Safe(r.File), p.Style.OK("stale temp file removed"))
	case r.Action == "temp-would-remove":
		fmt.Fprintf(p.Out, "%s: %s\n", text.Safe(r.File), p.Style.OK("stale temp file, would be removed"))
	default:
		fmt.Fprintf(p.Out, "%s: %s (%s)\n", text.Safe(r.File), p.Style.Dim("temp file kept"), text.Safe(r.Reason))
	}
}

// TempsFailed says that the temp files of a directory could not be
// cleaned.
func (p *Rewrites) TempsFailed(err error) {
	fmt.Fprintf(p.Err, "%s %s\n", p.Style.Error("clean-temps:"), text.Safe(err.Error()))
}

// Summary writes the summary line of the text format: "✓ 3 files: 2
// migrated, 1 unchanged, 0 refused".
func (p *Rewrites) Summary(command string, dryRun bool) {
	if p.Format != "text" || p.Quiet {
		return
	}
	done := map[string]string{"migrate": "migrated", "repair": "repaired"}[command]
	if dryRun {
		done = "would " + command
	}
	line := fmt.Sprintf("%s: %d %s, %d unchanged, %d refused", text.Plural(p.files, "file", "files"), p.done, done, p.unchanged, p.refused)
	if p.tempsRemoved > 0 {
		line += ", " + text.Plural(p.tempsRemoved, "stale temp file", "stale temp files") + " removed"
	}
	mark := p.Style.OK("✓")
	if p.refused > 0 {
		mark = p.Style.Error("✗")
	}
	fmt.Fprintln(p.Out, mark+" "+line)
}

// details are the parenthesised facts of a result's text line.
func (r RewriteResult) details() []string {
	var detail []string
	if r.From != 0 && r.To != 0 && r.From != r.To {
		detail = append(detail, fmt.Sprintf("v%d → v%d", r.From, r.To))
	}
	for _, f := range r.Fixes {
		detail = append(detail, fmt.Sprintf("line %d %s", f.Line, f.Code))
	}
	if r.Backup != nil {
		detail = append(detail, "backup "+text.Safe(*r.Backup))
	}
	if r.ReadOnly {
		detail = append(detail, "the file was read-only: replaced anyway, as its directory allows; still read-only")
	}
	if r.Carried > 0 {
		detail = append(detail, fmt.Sprintf("%s appended by another program during the rename carried over", text.Plural(int(r.Carried), "byte", "bytes")))
	}
	if r.Rescued != "" {
		detail = append(detail, "old generation as another program left it kept in "+text.Safe(r.Rescued))
	}
	return detail
}

// safeLines makes each line of a diff safe for a terminal (text.Safe), keeping
// the newlines.
func safeLines(diff string) string {
	lines := strings.Split(diff, "\n")
	for i, l := range lines {
		lines[i] = text.Safe(l)
	}
	return strings.Join(lines, "\n")
}
