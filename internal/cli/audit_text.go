package cli

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/render"
)

// The text format of `pisess audit`: a table that fits the width, then
// the summary and the problems.

// Columns give way in a fixed order when the table is too wide (Drop:
// lowest first; FILE, VERDICT and COST stay), after the shrinkable ones
// (FILE from the middle, PROJECT and TITLE at the end) are at their
// shortest.
const (
	dropCacheWrite = iota + 1
	dropCacheRead
	dropInput
	dropOutput
	dropBranches
	dropVersion
	dropEntries
	dropMessages
	dropSize
	dropTitle
	dropActivity
	dropProject
	dropTokens
)

// fileTable writes one row per file.
func (a *auditRun) fileTable() error {
	if len(a.rows) == 0 {
		return nil
	}
	cols := []render.Column{
		{Title: "FILE", Min: 24, Middle: true},
		{Title: "PROJECT", Min: 8, Drop: dropProject},
		{Title: "VER", Right: true, Drop: dropVersion},
		{Title: "VERDICT"},
		{Title: "ENTRIES", Right: true, Drop: dropEntries},
		{Title: "BRANCHES", Right: true, Drop: dropBranches},
		{Title: "MSGS", Right: true, Drop: dropMessages},
		{Title: "INPUT", Right: true, Drop: dropInput},
		{Title: "OUTPUT", Right: true, Drop: dropOutput},
		{Title: "CACHE R", Right: true, Drop: dropCacheRead},
		{Title: "CACHE W", Right: true, Drop: dropCacheWrite},
		{Title: "TOKENS", Right: true, Drop: dropTokens},
		{Title: "COST", Right: true},
		{Title: "SIZE", Right: true, Drop: dropSize},
		{Title: "ACTIVITY (" + zoneName(a.totals.Location) + ")", Drop: dropActivity},
		{Title: "TITLE", Min: 12, Drop: dropTitle},
	}
	recs := make([]*audit.Record, len(a.rows))
	for i, row := range a.rows {
		recs[i] = row.rec
	}
	dir := commonDir(recs)
	if dir != "" {
		cols[0].Title = "FILE (in " + render.Safe(dir) + ")"
	}
	rows := make([][]string, 0, len(a.rows))
	for _, row := range a.rows {
		r, u := row.rec, row.usage
		rows = append(rows, []string{
			render.Safe(fileCell(r, dir)), render.Safe(lastElement(r.CWD)), versionText(r.Version), a.verdictCell(r),
			render.Count(int64(r.Entries)), render.Count(int64(r.Branches)), render.Count(int64(r.MessageCount())),
			render.Count(u.Tokens.Input), render.Count(u.Tokens.Output), render.Count(u.Tokens.CacheRead), render.Count(u.Tokens.CacheWrite),
			render.Count(u.Tokens.Total), costText(u), render.Bytes(r.Bytes),
			r.LastActivity.In(a.totals.Location).Format("2006-01-02 15:04"), render.Safe(oneLineText(r.Title())),
		})
	}
	return render.Table(a.out, cols, rows, nil, a.width)
}

// fileCell is how the table names a file: below the directory all files
// share, and without pi's encoded project directory (--home-u-app--),
// which the PROJECT column already shows.
func fileCell(r *audit.Record, dir string) string {
	rel := strings.TrimPrefix(r.Path, dir)
	parent, base := filepath.Split(rel)
	if parent != "" && r.CWD != "" && filepath.Base(parent) == encodedDir(r.CWD) {
		return base
	}
	return rel
}

// encodedDir is the directory name pi gives a project's sessions:
// --<cwd without its leading separator, separators and colons as ->--.
func encodedDir(cwd string) string {
	s := cwd
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) {
		s = s[1:]
	}
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(s) + "--"
}

// costText is a cost as the table shows it: "-" without usage, "n/a" when
// no record says what it cost, "≥$x" when only some do.
func costText(u audit.Usage) string {
	switch {
	case u.Records == 0:
		return "-"
	case u.Priced() == 0:
		return "n/a"
	case u.Unpriced() > 0:
		return "≥" + render.Money(u.Cost)
	}
	return render.Money(u.Cost)
}

// commonDir is the directory prefix (ending in a separator) that every
// record's path shares, or "": the table shows paths below it.
func commonDir(recs []*audit.Record) string {
	if len(recs) == 0 {
		return ""
	}
	prefix := recs[0].Path
	for _, r := range recs[1:] {
		for !strings.HasPrefix(r.Path, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	i := strings.LastIndexByte(prefix, filepath.Separator)
	if i < 0 {
		return ""
	}
	return prefix[:i+1]
}

// groupTable writes the grouped totals with a total row.
func (a *auditRun) groupTable(sum audit.Summary) error {
	by := a.totals.By
	key := render.Column{Title: strings.ToUpper(string(by)), Min: 16, Middle: by == audit.ByProject || by == audit.BySession}
	if by.ByTime() {
		key.Title += " (" + zoneName(a.totals.Location) + ")"
	}
	cols := []render.Column{key}
	session := by == audit.BySession
	if session {
		cols = append(cols, render.Column{Title: "PROJECT", Min: 8, Drop: 7}, render.Column{Title: "TITLE", Min: 12, Drop: 6})
	}
	cols = append(cols, render.Column{Title: "FILES", Right: true, Drop: 8}, render.Column{Title: "USAGES", Right: true, Drop: 5},
		render.Column{Title: "INPUT", Right: true, Drop: 3}, render.Column{Title: "OUTPUT", Right: true, Drop: 4},
		render.Column{Title: "CACHE R", Right: true, Drop: 2}, render.Column{Title: "CACHE W", Right: true, Drop: 1},
		render.Column{Title: "TOKENS", Right: true, Drop: 9}, render.Column{Title: "COST", Right: true})
	cells := func(first []string, files int, u audit.Usage) []string {
		return append(first, render.Count(int64(files)), render.Count(int64(u.Records)),
			render.Count(u.Tokens.Input), render.Count(u.Tokens.Output), render.Count(u.Tokens.CacheRead),
			render.Count(u.Tokens.CacheWrite), render.Count(u.Tokens.Total), costText(u))
	}
	rows := make([][]string, 0, len(sum.Groups))
	for _, g := range sum.Groups {
		first := []string{render.Safe(g.Key)}
		if session {
			first = append(first, render.Safe(lastElement(g.Project)), render.Safe(oneLineText(g.Title)))
		}
		rows = append(rows, cells(first, g.Files, g.Usage))
	}
	first := []string{"total"}
	if session {
		first = append(first, "", "")
	}
	return render.Table(a.out, cols, rows, cells(first, sum.Files, sum.Usage), a.width)
}

// verdictCell is the verdict, then "stuck" for a stuck session.
func (a *auditRun) verdictCell(r *audit.Record) string {
	if r.Stuck {
		return a.verdictText(r.Verdict) + " " + a.style.Warn("stuck")
	}
	return a.verdictText(r.Verdict)
}

func (a *auditRun) verdictText(v audit.Verdict) string {
	switch v {
	case audit.OK:
		return a.style.OK(string(v))
	case audit.Corrupt:
		return a.style.Error(string(v))
	case audit.NotSession:
		return a.style.Dim(string(v))
	}
	return a.style.Warn(string(v))
}

func versionText(v int) string {
	if v == 0 {
		return "-"
	}
	return strconv.Itoa(v)
}

// oneLineText keeps a title to one line.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// lastElement is the last element of a path with / or \ separators.
func lastElement(p string) string {
	p = strings.TrimRight(p, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// clip cuts s to at most n runes, ending in … when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// ---- summary ----

// problemsShown caps each kind of problem listed in the summary.
const problemsShown = 20

// summaryText writes the text summary: files by verdict and version,
// totals, then the problems, worst first. --quiet keeps only the corrupt
// files.
func (a *auditRun) summaryText(s audit.Summary) {
	if !a.quiet {
		a.wrap(a.verdictLine(s), 2)
		a.lines("versions:", versionParts(s))
		if s.Omp > 0 {
			a.lines("dialects:", []string{fmt.Sprintf("pi: %d", s.Files-s.Omp), fmt.Sprintf("oh-my-pi: %d", s.Omp)})
		}
		if w := a.totals.Window; !w.Open() {
			a.lines("window:", windowParts(w, a.totals.Location))
		}
		total := []string{render.Plural(s.Entries, "entry", "entries"), render.Bytes(s.Bytes)}
		if s.Usage.Records == 0 {
			a.lines("total:", append(total, "no usage recorded"))
		} else {
			a.lines("total:", append(total, render.Count(s.Usage.Tokens.Total)+" tokens", costText(s.Usage)))
			a.lines("tokens:", tokenParts(s.Usage.Tokens))
		}
		if u := s.Usage; u.Unpriced() > 0 {
			parts := []string{fmt.Sprintf("not recorded for %d of %s", u.Unpriced(), render.Plural(u.Records, "usage record", "usage records"))}
			if u.CostMissing > 0 {
				parts = append(parts, fmt.Sprintf("%d without a cost", u.CostMissing))
			}
			if u.CostZero > 0 {
				parts = append(parts, fmt.Sprintf("%d with $0 for their tokens", u.CostZero))
			}
			a.lines("cost:", append(parts, "totals leave them out"))
		}
		if d := s.Duplicates; d.Entries > 0 {
			a.lines("copies:", []string{render.Plural(d.Entries, "entry", "entries") + " copied by forks or snapshots counted once",
				render.Count(d.Usage.Tokens.Total) + " tokens and " + render.Money(d.Usage.Cost) + " left out"})
		}
	}
	a.tempsText()
	a.problems()
}

// tempsText lists the temp files an interrupted rewrite left behind, and
// how to remove them.
func (a *auditRun) tempsText() {
	if len(a.staleTemps) == 0 {
		return
	}
	names := make([]string, len(a.staleTemps))
	for i, t := range a.staleTemps {
		names[i] = render.Safe(t)
	}
	a.lines("temp files:", append(names, "left by an interrupted migrate or repair; `pisess repair --clean-temps DIR` removes them"))
}

// lines writes a head and its parts, joined with ", " and wrapped to the
// width, continuation lines indented under the first part.
func (a *auditRun) lines(head string, parts []string) {
	a.wrap(head+" "+strings.Join(parts, ", "), render.Width(head)+1)
}

// wrap writes text wrapped at spaces to the width, continuation lines
// indented by indent columns (at most a third of the width).
func (a *auditRun) wrap(text string, indent int) {
	if a.width <= 0 || render.Width(text) <= a.width {
		fmt.Fprintln(a.out, text)
		return
	}
	pad := strings.Repeat(" ", min(indent, a.width/3))
	line := ""
	for _, word := range strings.Split(text, " ") {
		switch {
		case line == "":
			line = word
		case render.Width(line)+1+render.Width(word) <= a.width:
			line += " " + word
		default:
			fmt.Fprintln(a.out, line)
			line = pad + word
		}
		if render.Width(line) > a.width { // one word wider than the width
			line = render.CutMiddle(line, a.width)
		}
	}
	fmt.Fprintln(a.out, line)
}

func tokenParts(t audit.Tokens) []string {
	return []string{render.Count(t.Input) + " input", render.Count(t.Output) + " output",
		render.Count(t.CacheRead) + " cache read", render.Count(t.CacheWrite) + " cache write"}
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
func (a *auditRun) verdictLine(s audit.Summary) string {
	mark := a.style.OK("✓")
	if s.Verdicts[audit.Corrupt] > 0 || a.unreadable > 0 {
		mark = a.style.Error("✗")
	}
	line := mark + " " + render.Plural(s.Files, "file", "files")
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
	if a.unreadable > 0 {
		line += fmt.Sprintf(" (%d unreadable)", a.unreadable)
	}
	return line
}

func versionParts(s audit.Summary) []string {
	vers := make([]int, 0, len(s.Versions))
	for v := range s.Versions {
		vers = append(vers, v)
	}
	sort.Ints(vers)
	parts := make([]string, 0, len(vers))
	for _, v := range vers {
		name := "v" + strconv.Itoa(v)
		if v == 0 {
			name = "no version"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, s.Versions[v]))
	}
	return parts
}

// problems lists the files that need something, worst verdict first.
func (a *auditRun) problems() {
	byVerdict := map[audit.Verdict][]*audit.Record{}
	for _, row := range a.rows {
		byVerdict[row.rec.Verdict] = append(byVerdict[row.rec.Verdict], row.rec)
	}
	for _, v := range audit.Verdicts() {
		recs := byVerdict[v]
		if v == audit.OK || len(recs) == 0 || (a.quiet && v != audit.Corrupt) {
			continue
		}
		a.problemList(string(v), recs, a.problem)
	}
	var stuck []*audit.Record
	for _, row := range a.rows {
		if row.rec.Stuck {
			stuck = append(stuck, row.rec)
		}
	}
	if len(stuck) > 0 && !a.quiet {
		a.problemList("stuck", stuck, a.stuckProblem)
	}
}

// problemList lists files under a heading, problemsShown at most.
func (a *auditRun) problemList(heading string, recs []*audit.Record, line func(*audit.Record) string) {
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
func (a *auditRun) stuckProblem(r *audit.Record) string {
	head := "  " + a.style.Warn("!") + " "
	tail := " (pisess unstick)"
	file := render.Safe(r.Path)
	if room := a.width - render.Width(head) - render.Width(tail); a.width > 0 && render.Width(file) > room {
		file = render.CutMiddle(file, max(room, 12))
	}
	return head + file + a.style.Dim(tail)
}

// problem describes one file's problem on one line that fits the width:
// the message is cut first, then the path from the middle.
func (a *auditRun) problem(r *audit.Record) string {
	file := render.Safe(r.Path)
	var mark, tail string
	switch r.Verdict {
	case audit.Corrupt:
		mark = a.style.Error("✗")
		if f := r.FirstError; f != nil {
			if f.Line > 0 {
				file += ":" + strconv.Itoa(f.Line)
			}
			tail = " " + string(f.Code) + ": " + render.Safe(clip(f.Message, 160))
		}
	case audit.Repairable:
		mark, tail = a.style.Warn("!"), " (pisess repair)"
	case audit.NeedsMigration:
		mark, tail = a.style.Warn("!"), fmt.Sprintf(" (version %d: pisess migrate)", r.Version)
	case audit.TooNew:
		mark, tail = a.style.Warn("!"), fmt.Sprintf(" (version %d)", r.Version)
	default:
		mark = a.style.Dim("·")
	}
	head := "  " + mark + " "
	if room := a.width - render.Width(head); a.width > 0 && render.Width(file)+render.Width(tail) > room {
		file = render.CutMiddle(file, max(room-render.Width(tail), min(render.Width(file), 40)))
		tail = render.CutEnd(tail, max(room-render.Width(file), 24))
		file = render.CutMiddle(file, max(room-render.Width(tail), 12))
	}
	if r.Verdict != audit.Corrupt {
		tail = a.style.Dim(tail)
	}
	return head + file + tail
}
