package cli

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/validate"
)

func (c *CLI) auditCommand() *cli.Command {
	return command("audit", "verdict, size, tokens and cost of every session, with totals that count forked copies once", "[PATH...]",
		append(limitFlags(),
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table, json (one object per file, then a summary line) or csv"},
			&cli.StringFlag{Name: "sort", Usage: "order of the table or csv rows: activity, size, cost, tokens or file, ascending (default: activity for the table, the order given for csv)"},
			&cli.StringFlag{Name: "by", Usage: "grouped totals by project (header cwd), model (provider/model of each usage) or day (UTC)"},
			&cli.BoolFlag{Name: "no-schema", Usage: "parse, structure and linkage checks only (faster)"},
			jobsFlag(),
		), c.runAudit)
}

// auditRun is one audit invocation.
type auditRun struct {
	out, errw io.Writer
	style     render.Style
	format    string
	order     string
	by        audit.Grouping
	quiet     bool

	records    []*audit.Record
	unreadable int
}

func (c *CLI) runAudit(ctx *cli.Context) error {
	a, err := c.newAuditRun(ctx)
	if err != nil {
		return err
	}
	opts, err := validateOptions(ctx, !ctx.Bool("no-schema"))
	if err != nil {
		return err
	}
	targets := c.expand(ctx.Args().Slice())
	opts.Workers = workersPerFile(jobs(ctx), len(targets))
	bar := c.newProgress(ctx, a.format, targets)
	ordered(len(targets), jobs(ctx), func(i int) auditOutcome {
		o := auditOne(targets[i], opts)
		bar.step(o)
		return o
	}, a.emit)
	bar.finish()
	sum := audit.Total(a.records, a.by)
	if err := a.write(sum); err != nil {
		return err
	}
	return a.exit(sum)
}

// newAuditRun reads and checks the flags.
func (c *CLI) newAuditRun(ctx *cli.Context) (*auditRun, error) {
	a := &auditRun{out: c.Stdout, errw: c.Stderr, style: c.style(ctx, c.Stdout),
		format: ctx.String("format"), order: ctx.String("sort"), quiet: globalBool(ctx, "quiet")}
	switch a.format {
	case "table", "json", "csv":
	default:
		return nil, usageErrorf("--format must be table, json or csv, not %q", a.format)
	}
	switch a.order {
	case "", "activity", "size", "cost", "tokens", "file":
	default:
		return nil, usageErrorf("--sort must be activity, size, cost, tokens or file, not %q", a.order)
	}
	if a.order != "" && a.format == "json" {
		return nil, usageErrorf("--sort orders the table and csv formats; json lines come in the order given")
	}
	by, err := audit.ParseGrouping(ctx.String("by"))
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	a.by = by
	if a.order == "" && a.format == "table" {
		a.order = "activity"
	}
	return a, nil
}

// auditOutcome is one file's record or the error that prevented it.
type auditOutcome struct {
	rec *audit.Record
	err error
}

// auditOne audits one target.
func auditOne(t target, opts validate.Options) auditOutcome {
	if t.Err != nil {
		return auditOutcome{err: t.Err}
	}
	rec, err := audit.File(t.Path, opts)
	return auditOutcome{rec: rec, err: err}
}

// emit takes one file's outcome in the order given: JSON is written at
// once, the record is kept (without its findings) for the totals.
func (a *auditRun) emit(_ int, o auditOutcome) {
	if o.err != nil {
		a.unreadable++
		fmt.Fprintf(a.errw, "pisess: %s\n", render.Safe(o.err.Error()))
		return
	}
	rec := o.rec
	if a.format == "json" {
		render.JSONLine(a.out, fileJSON(rec))
	}
	rec.Report = nil
	a.records = append(a.records, rec)
}

// write writes everything that follows the files.
func (a *auditRun) write(sum audit.Summary) error {
	a.sort()
	switch a.format {
	case "json":
		return render.JSONLine(a.out, summaryJSON(sum, a.by, a.unreadable))
	case "csv":
		if a.by != audit.NoGrouping {
			return groupCSV(a.out, a.by, sum.Groups)
		}
		return fileCSV(a.out, a.records)
	}
	if !a.quiet {
		var err error
		if a.by != audit.NoGrouping {
			err = groupTable(a.out, a.by, sum)
		} else {
			err = a.fileTable()
		}
		if err != nil {
			return err
		}
	}
	a.summary(sum)
	return nil
}

// exit maps the results to the exit code.
func (a *auditRun) exit(sum audit.Summary) error {
	switch {
	case a.unreadable > 0:
		return &ExitError{Code: ExitUsage}
	case sum.Verdicts[audit.Corrupt] > 0:
		return &ExitError{Code: ExitInvalid}
	}
	return nil
}

// sort orders the records by --sort, ascending: the newest, largest and
// costliest come last, next to the summary. Ties keep the order given.
func (a *auditRun) sort() {
	key := map[string]func(x, y *audit.Record) int{
		"activity": func(x, y *audit.Record) int { return x.LastActivity.Compare(y.LastActivity) },
		"size":     func(x, y *audit.Record) int { return cmp.Compare(x.Bytes, y.Bytes) },
		"tokens":   func(x, y *audit.Record) int { return cmp.Compare(x.Usage.Tokens, y.Usage.Tokens) },
		"cost":     func(x, y *audit.Record) int { return cmp.Compare(x.Usage.Cost, y.Usage.Cost) },
		"file":     func(x, y *audit.Record) int { return strings.Compare(x.Path, y.Path) },
	}[a.order]
	if key == nil {
		return
	}
	sort.SliceStable(a.records, func(i, j int) bool { return key(a.records[i], a.records[j]) < 0 })
}

// ---- JSON ----

// auditFile is one file's `audit --format json` object: validate's report
// fields, then the audit's.
type auditFile struct {
	*validate.Report
	Verdict       audit.Verdict  `json:"verdict"`
	CWD           string         `json:"cwd"`
	Name          string         `json:"name"`
	Messages      map[string]int `json:"messages"`
	Branches      int            `json:"branches"`
	LeafCount     int            `json:"leafCount"`
	Tokens        int64          `json:"tokens"`
	Cost          float64        `json:"cost"`
	Models        []string       `json:"models"`
	Bytes         int64          `json:"bytes"`
	Modified      string         `json:"modified"`
	LastActivity  string         `json:"lastActivity"`
	Compactions   int            `json:"compactions"`
	UsageRecords  int            `json:"usageRecords"`
	ParentSession *string        `json:"parentSession"`
	FirstMessage  string         `json:"firstMessage"`
}

func fileJSON(r *audit.Record) auditFile {
	f := auditFile{
		Report: r.Report, Verdict: r.Verdict, CWD: r.CWD, Name: r.Name,
		Messages: r.Messages, Branches: r.Branches, LeafCount: r.Leaves,
		Tokens: r.Usage.Tokens, Cost: money(r.Usage.Cost), Models: r.Models,
		Bytes: r.Bytes, Modified: isoTime(r.Modified), LastActivity: isoTime(r.LastActivity),
		Compactions: r.Compactions, UsageRecords: r.Usage.Records, FirstMessage: r.FirstMessage,
	}
	if f.Models == nil {
		f.Models = []string{}
	}
	if r.ParentSession != "" {
		f.ParentSession = &r.ParentSession
	}
	return f
}

// auditSummary is the last line of `audit --format json`.
type auditSummary struct {
	Summary auditTotals `json:"summary"`
}

type auditTotals struct {
	Files            int            `json:"files"`
	Verdicts         verdictCounts  `json:"verdicts"`
	Entries          int            `json:"entries"`
	Tokens           int64          `json:"tokens"`
	Cost             float64        `json:"cost"`
	DuplicateEntries int            `json:"duplicateEntries"`
	DuplicateTokens  int64          `json:"duplicateTokens"`
	DuplicateCost    float64        `json:"duplicateCost"`
	Versions         map[string]int `json:"versions"`
	Bytes            int64          `json:"bytes"`
	Unreadable       int            `json:"unreadable"`
	By               string         `json:"by,omitempty"`
	Groups           []groupTotals  `json:"groups,omitempty"`
}

// verdictCounts keeps the verdicts in a fixed order, all present.
type verdictCounts struct {
	OK             int `json:"ok"`
	NeedsMigration int `json:"needs-migration"`
	Repairable     int `json:"repairable"`
	Corrupt        int `json:"corrupt"`
	TooNew         int `json:"too-new"`
	NotSession     int `json:"not-a-session"`
}

type groupTotals struct {
	Key    string  `json:"key"`
	Files  int     `json:"files"`
	Usages int     `json:"usages"`
	Tokens int64   `json:"tokens"`
	Cost   float64 `json:"cost"`
}

func summaryJSON(s audit.Summary, by audit.Grouping, unreadable int) auditSummary {
	v := s.Verdicts
	t := auditTotals{
		Files: s.Files,
		Verdicts: verdictCounts{OK: v[audit.OK], NeedsMigration: v[audit.NeedsMigration], Repairable: v[audit.Repairable],
			Corrupt: v[audit.Corrupt], TooNew: v[audit.TooNew], NotSession: v[audit.NotSession]},
		Entries: s.Entries, Tokens: s.Usage.Tokens, Cost: money(s.Usage.Cost),
		DuplicateEntries: s.Duplicates.Entries, DuplicateTokens: s.Duplicates.Usage.Tokens,
		DuplicateCost: money(s.Duplicates.Usage.Cost),
		Versions:      map[string]int{}, Bytes: s.Bytes, Unreadable: unreadable, By: string(by),
	}
	for ver, n := range s.Versions {
		t.Versions[strconv.Itoa(ver)] = n
	}
	for _, g := range s.Groups {
		t.Groups = append(t.Groups, groupTotals{Key: g.Key, Files: g.Files, Usages: g.Usage.Records, Tokens: g.Usage.Tokens, Cost: money(g.Usage.Cost)})
	}
	return auditSummary{Summary: t}
}

// money rounds a sum of dollars to nano-dollars, dropping float noise
// (0.30000000000000004 → 0.3).
func money(x float64) float64 {
	if r := math.Round(x*1e9) / 1e9; !math.IsInf(r, 0) {
		return r
	}
	return x // too large to have nano-dollar noise (x*1e9 overflows)
}

// isoTime formats a time in UTC, RFC 3339 with milliseconds; "" for zero.
func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// ---- CSV ----

// fileCSV writes one row per file under a header row.
func fileCSV(w io.Writer, recs []*audit.Record) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"file", "verdict", "status", "version", "sessionId", "cwd", "name",
		"entries", "messages", "user", "assistant", "toolResult", "branches", "leafCount", "compactions",
		"usageRecords", "tokens", "cost", "models", "bytes", "modified", "lastActivity", "parentSession",
		"firstError", "firstMessage"})
	for _, r := range recs {
		cw.Write(safeRow(r.Path, string(r.Verdict), string(r.Status), strconv.Itoa(r.Version), r.SessionID, r.CWD, r.Name,
			strconv.Itoa(r.Entries), strconv.Itoa(r.MessageCount()), strconv.Itoa(r.Messages["user"]),
			strconv.Itoa(r.Messages["assistant"]), strconv.Itoa(r.Messages["toolResult"]),
			strconv.Itoa(r.Branches), strconv.Itoa(r.Leaves), strconv.Itoa(r.Compactions),
			strconv.Itoa(r.Usage.Records), strconv.FormatInt(r.Usage.Tokens, 10), moneyText(r.Usage.Cost),
			strings.Join(r.Models, ";"), strconv.FormatInt(r.Bytes, 10), isoTime(r.Modified), isoTime(r.LastActivity),
			r.ParentSession, firstErrorText(r), r.FirstMessage))
	}
	cw.Flush()
	return cw.Error()
}

// groupCSV writes the grouped totals under a header row.
func groupCSV(w io.Writer, by audit.Grouping, groups []audit.Group) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{string(by), "files", "usages", "tokens", "cost"})
	for _, g := range groups {
		cw.Write(safeRow(g.Key, strconv.Itoa(g.Files), strconv.Itoa(g.Usage.Records),
			strconv.FormatInt(g.Usage.Tokens, 10), moneyText(g.Usage.Cost)))
	}
	cw.Flush()
	return cw.Error()
}

// safeRow escapes the control characters of CSV cells that come from the
// files (paths, names, texts), as every text output does.
func safeRow(cells ...string) []string {
	for i, c := range cells {
		cells[i] = render.Safe(c)
	}
	return cells
}

func moneyText(x float64) string { return strconv.FormatFloat(money(x), 'f', -1, 64) }

// firstErrorText is "line code", or "".
func firstErrorText(r *audit.Record) string {
	if r.FirstError == nil {
		return ""
	}
	return fmt.Sprintf("%d %s", r.FirstError.Line, r.FirstError.Code)
}

// ---- table ----

// fileTable writes one row per file.
func (a *auditRun) fileTable() error {
	cols := []render.Column{{Title: "FILE"}, {Title: "PROJECT"}, {Title: "VER", Right: true}, {Title: "VERDICT"},
		{Title: "ENTRIES", Right: true}, {Title: "BRANCHES", Right: true}, {Title: "MSGS", Right: true},
		{Title: "TOKENS", Right: true}, {Title: "COST", Right: true}, {Title: "SIZE", Right: true},
		{Title: "LAST ACTIVITY (UTC)"}, {Title: "TITLE"}}
	dir := commonDir(a.records)
	if dir != "" {
		cols[0].Title = "FILE (in " + render.Safe(dir) + ")"
	}
	rows := make([][]string, 0, len(a.records))
	for _, r := range a.records {
		rows = append(rows, []string{
			render.Safe(strings.TrimPrefix(r.Path, dir)), render.Safe(clip(lastElement(r.CWD), 24)), versionText(r.Version), a.verdictText(r.Verdict),
			render.Count(int64(r.Entries)), render.Count(int64(r.Branches)), render.Count(int64(r.MessageCount())),
			render.Count(r.Usage.Tokens), render.Money(r.Usage.Cost), render.Bytes(r.Bytes),
			r.LastActivity.UTC().Format("2006-01-02 15:04"), render.Safe(clip(title(r), 40)),
		})
	}
	if len(rows) == 0 {
		return nil
	}
	return render.Table(a.out, cols, rows, nil)
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
func groupTable(w io.Writer, by audit.Grouping, sum audit.Summary) error {
	cols := []render.Column{{Title: strings.ToUpper(string(by))}, {Title: "FILES", Right: true},
		{Title: "USAGES", Right: true}, {Title: "TOKENS", Right: true}, {Title: "COST", Right: true}}
	rows := make([][]string, 0, len(sum.Groups))
	for _, g := range sum.Groups {
		rows = append(rows, []string{render.Safe(g.Key), render.Count(int64(g.Files)), render.Count(int64(g.Usage.Records)),
			render.Count(g.Usage.Tokens), render.Money(g.Usage.Cost)})
	}
	foot := []string{"total", render.Count(int64(sum.Files)), render.Count(int64(sum.Usage.Records)),
		render.Count(sum.Usage.Tokens), render.Money(sum.Usage.Cost)}
	return render.Table(w, cols, rows, foot)
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

// title is the session's name, else its first user message.
func title(r *audit.Record) string {
	if r.Name != "" {
		return r.Name
	}
	return r.FirstMessage
}

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

// summary writes the text summary: files by verdict and version, totals,
// then the problems, worst first. --quiet keeps only the corrupt files.
func (a *auditRun) summary(s audit.Summary) {
	if !a.quiet {
		fmt.Fprintln(a.out, a.verdictLine(s))
		fmt.Fprintln(a.out, versionLine(s))
		fmt.Fprintf(a.out, "total: %s entries, %s tokens, %s, %s\n", render.Count(int64(s.Entries)),
			render.Count(s.Usage.Tokens), render.Money(s.Usage.Cost), render.Bytes(s.Bytes))
		if d := s.Duplicates; d.Entries > 0 {
			fmt.Fprintf(a.out, "forks: %s copied entries counted once (%s tokens, %s left out)\n",
				render.Count(int64(d.Entries)), render.Count(d.Usage.Tokens), render.Money(d.Usage.Cost))
		}
	}
	a.problems()
}

func (a *auditRun) verdictLine(s audit.Summary) string {
	var parts []string
	for _, v := range audit.Verdicts() {
		if n := s.Verdicts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	line := fmt.Sprintf("%d files", s.Files)
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if a.unreadable > 0 {
		line += fmt.Sprintf(" (%d unreadable)", a.unreadable)
	}
	mark := a.style.OK("✓")
	if s.Verdicts[audit.Corrupt] > 0 || a.unreadable > 0 {
		mark = a.style.Error("✗")
	}
	return mark + " " + line
}

func versionLine(s audit.Summary) string {
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
	return "versions: " + strings.Join(parts, ", ")
}

// problems lists the files that need something, worst verdict first.
func (a *auditRun) problems() {
	byVerdict := map[audit.Verdict][]*audit.Record{}
	for _, r := range a.records {
		byVerdict[r.Verdict] = append(byVerdict[r.Verdict], r)
	}
	for _, v := range audit.Verdicts() {
		recs := byVerdict[v]
		if v == audit.OK || len(recs) == 0 || (a.quiet && v != audit.Corrupt) {
			continue
		}
		fmt.Fprintf(a.out, "%s (%d):\n", v, len(recs))
		for i, r := range recs {
			if i == problemsShown {
				fmt.Fprintf(a.out, "  … and %d more (see --format json)\n", len(recs)-i)
				break
			}
			fmt.Fprintln(a.out, "  "+a.problem(r))
		}
	}
}

// problem describes one file's problem on one line.
func (a *auditRun) problem(r *audit.Record) string {
	file := render.Safe(r.Path)
	switch r.Verdict {
	case audit.Corrupt:
		f := r.FirstError
		if f == nil {
			return a.style.Error("✗") + " " + file
		}
		loc := file
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
		}
		return fmt.Sprintf("%s %s %s: %s", a.style.Error("✗"), loc, f.Code, render.Safe(clip(f.Message, 160)))
	case audit.Repairable:
		return a.style.Warn("!") + " " + file + a.style.Dim(" (pisess repair)")
	case audit.NeedsMigration:
		return a.style.Warn("!") + " " + file + a.style.Dim(fmt.Sprintf(" (version %d: pisess migrate)", r.Version))
	case audit.TooNew:
		return a.style.Warn("!") + " " + file + a.style.Dim(fmt.Sprintf(" (version %d)", r.Version))
	}
	return a.style.Dim("·") + " " + file
}

// ---- progress ----

// progress is the progress bar on stderr: files done of all, bytes, rate
// and time left. A nil *progress shows nothing.
type progress struct {
	bar   *progressbar.ProgressBar
	files int
	done  atomic.Int64
}

// newProgress returns a progress bar when stderr is a terminal and no
// --quiet, or nil. JSON streamed to the same terminal would mix with it,
// so then there is none either.
func (c *CLI) newProgress(ctx *cli.Context, format string, targets []target) *progress {
	if globalBool(ctx, "quiet") || !c.IsTerminal(c.Stderr) || (format == "json" && c.IsTerminal(c.Stdout)) {
		return nil
	}
	var total int64
	for _, t := range targets {
		if t.Err != nil {
			continue
		}
		if info, err := os.Stat(t.Path); err == nil {
			total += info.Size()
		}
	}
	p := &progress{files: len(targets)}
	p.bar = progressbar.NewOptions64(max(total, 1),
		progressbar.OptionSetWriter(c.Stderr),
		progressbar.OptionSetDescription(p.describe(0)),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
	)
	return p
}

func (p *progress) describe(done int64) string {
	return fmt.Sprintf("audit %d/%d files", done, p.files)
}

// step counts one finished file.
func (p *progress) step(o auditOutcome) {
	if p == nil {
		return
	}
	n := p.done.Add(1)
	p.bar.Describe(p.describe(n))
	if o.rec != nil {
		p.bar.Add64(o.rec.Bytes)
	}
}

// finish removes the bar.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.bar.Finish()
}
