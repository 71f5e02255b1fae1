package cli

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	_ "time/tzdata" // --tz works where the system has no zone database

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/validate"
)

// auditFlags are audit's flags.
type auditFlags struct {
	limits                                limitFlags
	format, sort, order, by, since, until string
	tz                                    string
	summary, wide, noSchema               bool
	jobs                                  int
}

func (c *CLI) auditCommand() *cli.Command {
	var f auditFlags
	return c.command("audit", "verdict, size, tokens and cost of every session, with totals that count forked and snapshot copies once", "[PATH...]",
		append(f.limits.flags(),
			formatFlag(&f.format, "table, json (one object per file, then a summary line) or csv", "table", "json", "csv"),
			&cli.StringFlag{Name: "sort", Usage: "order of the table or csv rows: activity, size, cost, tokens or file (default: activity for the table, the order given for csv)", Destination: &f.sort},
			&cli.StringFlag{Name: "order", Value: "asc", Usage: "asc (the newest, largest, costliest last, next to the totals) or desc", Destination: &f.order},
			&cli.StringFlag{Name: "by", Usage: "grouped totals by day, week (ISO), month, model (provider/model of each usage), project (header cwd) or session (header id)", Destination: &f.by},
			&cli.StringFlag{Name: "since", Usage: "count usage from this `DATE` on (YYYY-MM-DD, in --tz, or RFC 3339)", Destination: &f.since},
			&cli.StringFlag{Name: "until", Usage: "count usage up to this `DATE`, inclusive (YYYY-MM-DD, in --tz, or RFC 3339)", Destination: &f.until},
			&cli.StringFlag{Name: "tz", Usage: "time `ZONE` of dates, days, weeks and months (IANA name such as Europe/Berlin, or UTC)", DefaultText: "local", Destination: &f.tz},
			&cli.BoolFlag{Name: "summary", Usage: "totals only: no row per file", Destination: &f.summary},
			&cli.BoolFlag{Name: "wide", Usage: "show every table column and whole values, however wide (default on a terminal: fit its width, or COLUMNS; piped output is never cut)", Destination: &f.wide},
			&cli.BoolFlag{Name: "no-schema", Usage: "parse, structure and linkage checks only (faster)", Destination: &f.noSchema},
			jobsFlag(&f.jobs),
		), func(*cli.Context) error { return c.runAudit(&f) })
}

// auditRun is one audit invocation: how its output is shaped, and what
// it found so far.
type auditRun struct {
	c       *CLI
	opt     render.AuditOptions
	res     render.AuditResult
	records []*audit.Record
	bar     *progress
}

func (c *CLI) runAudit(f *auditFlags) error {
	defer debug.SetGCPercent(debug.SetGCPercent(linkGCPercent))
	a, err := c.newAuditRun(f)
	if err != nil {
		return err
	}
	opts, err := validateOptions(&f.limits, !f.noSchema)
	if err != nil {
		return err
	}
	targets := c.targets
	a.res.StaleTemps = c.staleTemps
	opts.Workers = workersPerFile(workers(f.jobs), len(targets))
	a.bar = c.newProgress(a.opt.Format, targets)
	ordered(len(targets), workers(f.jobs), func(i int) auditOutcome {
		o := auditOutcome{err: targets[i].Err}
		if o.err == nil {
			o.rec, o.rep, o.err = auditFile(targets[i].Path, opts, len(targets) == 1)
		}
		a.bar.step(o)
		return o
	}, a.emit)
	a.bar.finish()
	a.res.Sum = audit.Total(a.records, a.opt.Totals)
	if err := render.Audit(a.c.Stdout, a.res, a.opt); err != nil {
		return err
	}
	return filesExit(a.res.Unreadable, a.res.Sum.Verdicts[audit.Corrupt] > 0)
}

// newAuditRun reads and checks the flags.
func (c *CLI) newAuditRun(f *auditFlags) (*auditRun, error) {
	o := render.AuditOptions{Format: f.format, Sort: f.sort, Summary: f.summary,
		Quiet: c.quiet(), Style: c.style(c.Stdout)}
	switch o.Sort {
	case "", "activity", "size", "cost", "tokens", "file":
	default:
		return nil, usageErrorf("--sort must be activity, size, cost, tokens or file, not %q", o.Sort)
	}
	if o.Sort != "" && o.Format == "json" {
		return nil, usageErrorf("--sort orders the table and csv formats; json lines come in the order given")
	}
	if o.Sort == "" && o.Format == "table" {
		o.Sort = "activity"
	}
	switch order := f.order; order {
	case "asc", "desc":
		o.Desc = order == "desc"
	default:
		return nil, usageErrorf("--order must be asc or desc, not %q", order)
	}
	by, err := audit.ParseGrouping(f.by)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	o.Totals.By = by
	if o.Totals.Location, err = location(f.tz); err != nil {
		return nil, err
	}
	if o.Totals.Window, err = window(f.since, f.until, o.Totals.Location); err != nil {
		return nil, err
	}
	// Piped or redirected, nothing is cut: no table cell, no path (as gh,
	// kubectl and ls do). On a terminal the table fits its width unless
	// --wide.
	if !f.wide && c.IsTerminal(c.Stdout) {
		if o.Width, err = c.width(widthFlag{}); err != nil {
			return nil, err
		}
	}
	return &auditRun{c: c, opt: o}, nil
}

// location reads --tz: an IANA zone name, UTC, or empty for local time.
func location(name string) (*time.Location, error) {
	if name == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, usageErrorf("--tz must be a time zone such as UTC or Europe/Berlin, not %q", name)
	}
	return loc, nil
}

// window reads --since and --until: dates are whole days in loc (until
// inclusive), RFC 3339 times are instants.
func window(since, until string, loc *time.Location) (audit.Window, error) {
	var w audit.Window
	from, _, err := bound("since", since, loc)
	if err != nil {
		return w, err
	}
	to, day, err := bound("until", until, loc)
	switch {
	case err != nil:
		return w, err
	case day:
		to = to.AddDate(0, 0, 1) // the whole day
	case until != "":
		to = to.Add(time.Millisecond) // inclusive, to the millisecond entries carry
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return w, usageErrorf("--since %s is after --until %s", since, until)
	}
	return audit.Window{From: from, To: to}, nil
}

// bound reads one --since or --until value, "" the zero time; day says it
// was a date.
func bound(flag, s string, loc *time.Location) (t time.Time, day bool, err error) {
	if s == "" {
		return t, false, nil
	}
	for _, layout := range []string{time.DateOnly, "20060102"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false, nil
	}
	return time.Time{}, false, usageErrorf("--%s must be a date (YYYY-MM-DD) or an RFC 3339 time (2026-01-31T18:00:00Z), not %q", flag, s)
}

// auditOutcome is one file's record and report, or the error that
// prevented them.
type auditOutcome struct {
	rec *audit.Record
	rep *validate.Report
	err error
}

// auditFile audits the file at path in its one validation pass with opts
// (the Observer is set here): the audit's collector gathers the figures
// as validate reads the entries; lone: it is the only file audited. The error is a *validate.IOError when
// the file cannot be read; problems in its content are in the report.
func auditFile(path string, opts validate.Options, lone bool) (*audit.Record, *validate.Report, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, &validate.IOError{Path: path, Err: err}
	}
	c := audit.NewCollector()
	if lone {
		c.Lone()
	}
	opts.Observer = c
	rep, err := validate.File(path, opts)
	if err != nil {
		return nil, nil, err
	}
	return c.Record(path, validation(rep), info.ModTime()), rep, nil
}

// validation is what audit reads of a validation report.
func validation(rep *validate.Report) audit.Validation {
	return audit.Validation{Status: string(rep.Status), TooNew: rep.Kind == validate.TooNew, NotSession: rep.Kind == validate.NotSession,
		Version: rep.Version, Dialect: rep.Dialect, SessionID: rep.SessionID, Entries: rep.Entries, Bytes: rep.Bytes, Findings: rep.Findings}
}

// emit takes one file's outcome in the order given: JSON is written at
// once, the record is kept (without its findings) for the totals. A file
// outside --since/--until is kept for the totals (its entries may be
// copied by others) but not shown.
func (a *auditRun) emit(_ int, o auditOutcome) {
	if o.err != nil {
		a.res.Unreadable++
		a.bar.aside(func() { a.c.printError(o.err) })
		return
	}
	rec := o.rec
	a.records = append(a.records, rec)
	if w := a.opt.Totals.Window; w.Overlaps(rec) {
		row := render.AuditRow{Record: rec, Report: o.rep, Usage: rec.UsageIn(w)}
		if a.opt.Format == "json" && !a.opt.Summary {
			render.AuditFile(a.c.Stdout, row)
		}
		row.Report = nil // written: the rest of the row is all the totals need
		a.res.Rows = append(a.res.Rows, row)
	}
}

// ---- progress ----

// progress is the progress bar on stderr: files done of all, bytes, rate
// and time left. A nil *progress shows nothing.
type progress struct {
	mu    sync.Mutex // one writer at a time: the workers' steps, a message (aside)
	bar   *progressbar.ProgressBar
	files int
	done  atomic.Int64
}

// newProgress returns a progress bar when stderr is a terminal and no
// --quiet, or nil. JSON streamed to the same terminal would mix with it,
// so then there is none either.
func (c *CLI) newProgress(format string, targets []target) *progress {
	if c.quiet() || !c.IsTerminal(c.Stderr) || (format == "json" && c.IsTerminal(c.Stdout)) {
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
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Describe(p.describe(n))
	if o.rec != nil {
		p.bar.Add64(o.rec.Bytes)
	}
}

// aside writes a message to stderr (write) on a line of its own: the bar
// is taken off its line first, and comes back at the next step. Without a
// bar, it just writes.
func (p *progress) aside(write func()) {
	if p == nil {
		write()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Clear()
	write()
}

// finish removes the bar.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.bar.Finish()
}
