package render

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/text"
)

// The tables of `pisess audit`: one row per file, or the grouped totals;
// they fit the width.

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
func (a *auditWriter) fileTable() error {
	if len(a.Rows) == 0 {
		return nil
	}
	cols := []text.Column{
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
		{Title: "ACTIVITY (" + zoneName(a.Totals.Location) + ")", Drop: dropActivity},
		{Title: "TITLE", Min: 12, Drop: dropTitle},
	}
	recs := make([]*audit.Record, len(a.Rows))
	for i, row := range a.Rows {
		recs[i] = row.Record
	}
	dir := commonDir(recs)
	if dir != "" {
		cols[0].Title = "FILE (in " + text.Safe(dir) + ")"
	}
	rows := make([][]string, 0, len(a.Rows))
	for _, row := range a.Rows {
		r, u := row.Record, row.Usage
		rows = append(rows, []string{
			text.Safe(auditFileCell(r, dir)), text.Safe(lastElement(r.CWD)), versionText(r.Version), a.verdictCell(r),
			text.Count(int64(r.Entries)), text.Count(int64(r.Branches)), text.Count(int64(r.MessageCount())),
			text.Count(u.Tokens.Input), text.Count(u.Tokens.Output), text.Count(u.Tokens.CacheRead), text.Count(u.Tokens.CacheWrite),
			text.Count(u.Tokens.Total), costText(u), text.Bytes(r.Bytes),
			r.LastActivity.In(a.Totals.Location).Format("2006-01-02 15:04"), text.Safe(oneLineText(r.Title())),
		})
	}
	return text.Table(a.out, cols, rows, nil, a.Width)
}

// auditFileCell is how the table names a file: below the directory all files
// share, and without pi's encoded project directory (--home-u-app--),
// which the PROJECT column already shows.
func auditFileCell(r *audit.Record, dir string) string {
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
		return "≥" + text.Money(u.Cost)
	}
	return text.Money(u.Cost)
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
func (a *auditWriter) groupTable(sum audit.Summary) error {
	by := a.Totals.By
	key := text.Column{Title: strings.ToUpper(string(by)), Min: 16, Middle: by == audit.ByProject || by == audit.BySession}
	if by.ByTime() {
		key.Title += " (" + zoneName(a.Totals.Location) + ")"
	}
	cols := []text.Column{key}
	session := by == audit.BySession
	if session {
		cols = append(cols, text.Column{Title: "PROJECT", Min: 8, Drop: 7}, text.Column{Title: "TITLE", Min: 12, Drop: 6})
	}
	cols = append(cols, text.Column{Title: "FILES", Right: true, Drop: 8}, text.Column{Title: "USAGES", Right: true, Drop: 5},
		text.Column{Title: "INPUT", Right: true, Drop: 3}, text.Column{Title: "OUTPUT", Right: true, Drop: 4},
		text.Column{Title: "CACHE R", Right: true, Drop: 2}, text.Column{Title: "CACHE W", Right: true, Drop: 1},
		text.Column{Title: "TOKENS", Right: true, Drop: 9}, text.Column{Title: "COST", Right: true})
	cells := func(first []string, files int, u audit.Usage) []string {
		return append(first, text.Count(int64(files)), text.Count(int64(u.Records)),
			text.Count(u.Tokens.Input), text.Count(u.Tokens.Output), text.Count(u.Tokens.CacheRead),
			text.Count(u.Tokens.CacheWrite), text.Count(u.Tokens.Total), costText(u))
	}
	rows := make([][]string, 0, len(sum.Groups))
	for _, g := range sum.Groups {
		first := []string{text.Safe(g.Key)}
		if session {
			first = append(first, text.Safe(lastElement(g.Project)), text.Safe(oneLineText(g.Title)))
		}
		rows = append(rows, cells(first, g.Files, g.Usage))
	}
	first := []string{"total"}
	if session {
		first = append(first, "", "")
	}
	return text.Table(a.out, cols, rows, cells(first, sum.Files, sum.Usage), a.Width)
}

// verdictCell is the verdict, then "stuck" for a stuck session and
// "interleaved" for one two writers appended to.
func (a *auditWriter) verdictCell(r *audit.Record) string {
	cell := a.verdictText(r.Verdict)
	if r.Stuck {
		cell += " " + a.Style.Warn("stuck")
	}
	if r.Interleaved {
		cell += " " + a.Style.Warn("interleaved")
	}
	return cell
}

func (a *auditWriter) verdictText(v audit.Verdict) string {
	switch v {
	case audit.OK:
		return a.Style.OK(string(v))
	case audit.Corrupt:
		return a.Style.Error(string(v))
	case audit.NotSession:
		return a.Style.Dim(string(v))
	}
	return a.Style.Warn(string(v))
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
