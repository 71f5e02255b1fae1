package render

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/text"
)

// The text summary of `pisess audit`, with its list of problems.

// problemsShown caps each kind of problem listed in the summary.
const problemsShown = 20

// summaryText writes the text summary: files by verdict and version,
// totals, then the problems, worst first. --quiet keeps only the corrupt
// files.
func (a *auditWriter) summaryText(s audit.Summary) {
	if !a.Quiet {
		a.wrap(a.verdictLine(s), 2)
		if len(s.Versions) > 0 { // no file, no version to list
			a.lines("versions:", versionParts(s))
		}
		if s.Omp > 0 {
			a.lines("dialects:", []string{fmt.Sprintf("pi: %d", s.Files-s.Omp), fmt.Sprintf("oh-my-pi: %d", s.Omp)})
		}
		if w := a.Totals.Window; !w.Open() {
			a.lines("window:", windowParts(w, a.Totals.Location))
		}
		total := []string{text.Plural(s.Entries, "entry", "entries"), text.Bytes(s.Bytes)}
		if s.Usage.Records == 0 {
			a.lines("total:", append(total, "no usage recorded"))
		} else {
			a.lines("total:", append(total, text.Count(s.Usage.Tokens.Total)+" tokens", costText(s.Usage)))
			a.lines("tokens:", tokenParts(s.Usage.Tokens))
		}
		if u := s.Usage; u.Unpriced() > 0 {
			parts := []string{fmt.Sprintf("not recorded for %d of %s", u.Unpriced(), text.Plural(u.Records, "usage record", "usage records"))}
			if u.CostMissing > 0 {
				parts = append(parts, fmt.Sprintf("%d without a cost", u.CostMissing))
			}
			if u.CostZero > 0 {
				parts = append(parts, fmt.Sprintf("%d with $0 for their tokens", u.CostZero))
			}
			a.lines("cost:", append(parts, "totals leave them out"))
		}
		if d := s.Duplicates; d.Entries > 0 {
			a.lines("copies:", []string{text.Plural(d.Entries, "entry", "entries") + " copied by forks or snapshots counted once",
				text.Count(d.Usage.Tokens.Total) + " tokens and " + text.Money(d.Usage.Cost) + " left out"})
		}
	}
	a.tempsText()
	a.problems()
}

// tempsText lists the temp files an interrupted rewrite left behind, and
// how to remove them (not with --quiet: they are no error).
func (a *auditWriter) tempsText() {
	if len(a.StaleTemps) == 0 || a.Quiet {
		return
	}
	names := make([]string, len(a.StaleTemps))
	for i, t := range a.StaleTemps {
		names[i] = text.Safe(t)
	}
	a.lines("temp files:", append(names, "left by an interrupted migrate or repair; `pisess repair --clean-temps DIR` removes them"))
}

// lines writes a head and its parts, joined with ", " and wrapped to the
// width, continuation lines indented under the first part.
func (a *auditWriter) lines(head string, parts []string) {
	a.wrap(head+" "+strings.Join(parts, ", "), text.Width(head)+1)
}

// wrap writes s wrapped at spaces to the width, continuation lines
// indented by indent columns (at most a third of the width).
func (a *auditWriter) wrap(s string, indent int) {
	if a.Width <= 0 || text.Width(s) <= a.Width {
		fmt.Fprintln(a.out, s)
		return
	}
	pad := strings.Repeat(" ", min(indent, a.Width/3))
	line := ""
	for _, word := range strings.Split(s, " ") {
		switch {
		case line == "":
			line = word
		case text.Width(line)+1+text.Width(word) <= a.Width:
			line += " " + word
		default:
			fmt.Fprintln(a.out, line)
			line = pad + word
		}
		if text.Width(line) > a.Width { // one word wider than the width
			line = text.CutMiddle(line, a.Width)
		}
	}
	fmt.Fprintln(a.out, line)
}

func tokenParts(t audit.Tokens) []string {
	return []string{text.Count(t.Input) + " input", text.Count(t.Output) + " output",
		text.Count(t.CacheRead) + " cache read", text.Count(t.CacheWrite) + " cache write"}
}

// windowParts says which usage --since and --until count.
func windowParts(w audit.Window, loc *time.Location) []string {
	var parts []string
	if !w.From.IsZero() {
		parts = append(parts, "from "+w.From.In(loc).Format("2006-01-02 15:04:05.000"))
	}
	if !w.To.IsZero() {
		parts = append(parts, "before "+w.To.In(loc).Format("2006-01-02 15:04:05.000"))
	}
	return append(parts, "times in "+zoneName(loc))
}

// verdictLine is "✓ 34 files: 2 corrupt, …" (the mark, then the parts).
func (a *auditWriter) verdictLine(s audit.Summary) string {
	mark := a.Style.OK("✓")
	if s.Verdicts[audit.Corrupt] > 0 || a.Unreadable > 0 {
		mark = a.Style.Error("✗")
	}
	line := mark + " " + text.Plural(s.Files, "file", "files")
	var parts []string
	for _, v := range audit.Verdicts() {
		if n := s.Verdicts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if s.Stuck > 0 {
		line += fmt.Sprintf("; %d stuck", s.Stuck)
	}
	if a.Unreadable > 0 {
		line += fmt.Sprintf(" (%d unreadable)", a.Unreadable)
	}
	return line
}

func versionParts(s audit.Summary) []string {
	var parts []string
	for _, v := range slices.Sorted(maps.Keys(s.Versions)) {
		name := "v" + strconv.Itoa(v)
		if v == 0 {
			name = "no version"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, s.Versions[v]))
	}
	return parts
}

// problems lists the files that need something, worst verdict first.
func (a *auditWriter) problems() {
	byVerdict := map[audit.Verdict][]*audit.Record{}
	for _, row := range a.Rows {
		byVerdict[row.Record.Verdict] = append(byVerdict[row.Record.Verdict], row.Record)
	}
	for _, v := range audit.Verdicts() {
		recs := byVerdict[v]
		if v == audit.OK || len(recs) == 0 || (a.Quiet && v != audit.Corrupt) {
			continue
		}
		a.problemList(string(v), recs, a.problem)
	}
	var stuck []*audit.Record
	for _, row := range a.Rows {
		if row.Record.Stuck {
			stuck = append(stuck, row.Record)
		}
	}
	if len(stuck) > 0 && !a.Quiet {
		a.problemList("stuck", stuck, a.stuckProblem)
	}
}

// problemList lists files under a heading, problemsShown at most.
func (a *auditWriter) problemList(heading string, recs []*audit.Record, line func(*audit.Record) string) {
	fmt.Fprintf(a.out, "%s (%d):\n", heading, len(recs))
	for i, r := range recs {
		if i == problemsShown {
			fmt.Fprintf(a.out, "  … and %d more (see --format json)\n", len(recs)-i)
			break
		}
		fmt.Fprintln(a.out, line(r))
	}
}

// stuckProblem is one stuck session: the path, then what fixes it.
func (a *auditWriter) stuckProblem(r *audit.Record) string {
	head := "  " + a.Style.Warn("!") + " "
	tail := " (pisess unstick)"
	file := text.Safe(r.Path)
	if room := a.Width - text.Width(head) - text.Width(tail); a.Width > 0 && text.Width(file) > room {
		file = text.CutMiddle(file, max(room, 12))
		file, tail = squeeze(file, tail, a.Width-text.Width(head))
	}
	return head + file + a.Style.Dim(tail)
}

// problem describes one file's problem on one line that fits the width:
// the message is cut first, then the path from the middle.
func (a *auditWriter) problem(r *audit.Record) string {
	file := text.Safe(r.Path)
	var mark, tail string
	switch r.Verdict {
	case audit.Corrupt:
		mark = a.Style.Error("✗")
		if f := r.FirstError; f != nil {
			if f.Line > 0 {
				file += ":" + strconv.Itoa(f.Line)
			}
			tail = " " + string(f.Code) + ": " + text.Safe(cut(f.Message, 160))
		}
	case audit.Repairable:
		mark, tail = a.Style.Warn("!"), " (pisess repair)"
	case audit.NeedsMigration:
		mark, tail = a.Style.Warn("!"), fmt.Sprintf(" (version %d: pisess migrate)", r.Version)
	case audit.TooNew:
		mark, tail = a.Style.Warn("!"), fmt.Sprintf(" (version %d)", r.Version)
	default:
		mark = a.Style.Dim("·")
	}
	head := "  " + mark + " "
	if room := a.Width - text.Width(head); a.Width > 0 && text.Width(file)+text.Width(tail) > room {
		file = text.CutMiddle(file, max(room-text.Width(tail), min(text.Width(file), 40)))
		tail = text.CutEnd(tail, max(room-text.Width(file), 24))
		file = text.CutMiddle(file, max(room-text.Width(tail), 12))
		file, tail = squeeze(file, tail, room)
	}
	if r.Verdict != audit.Corrupt {
		tail = a.Style.Dim(tail)
	}
	return head + file + tail
}

// squeeze fits a path and the text after it into room columns when the
// minimums they were cut to do not fit (a terminal under 40 columns): the
// text gives way first, then the path.
func squeeze(file, tail string, room int) (string, string) {
	if text.Width(file)+text.Width(tail) <= room {
		return file, tail
	}
	tail = text.CutEnd(tail, room-text.Width(file))
	return text.CutMiddle(file, room-text.Width(tail)), tail
}
