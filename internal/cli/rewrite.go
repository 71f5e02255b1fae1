package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/validate"
)

// rewriteFlags are the flags of migrate and repair (strict migrate's,
// zero-tail and clean-temps repair's).
type rewriteFlags struct {
	limits                       limitFlags
	backup, dryRun, diff         bool
	format                       string
	followSymlinks               bool
	strict, zeroTail, cleanTemps bool
	jobs                         int
}

func (f *rewriteFlags) flags(extra ...cli.Flag) []cli.Flag {
	return append(append(f.limits.flags(),
		&cli.BoolFlag{Name: "backup", Usage: "keep the original beside the file (never overwrites an existing backup)", Destination: &f.backup},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "write nothing; say what would change", Destination: &f.dryRun},
		&cli.BoolFlag{Name: "diff", Usage: "with --dry-run: show a unified diff of what would change", Destination: &f.diff},
		formatFlag(&f.format, "text or json (one object per file)", "text", "json"),
		&cli.BoolFlag{Name: "follow-symlinks", Usage: "rewrite the file a symbolic link points to (refused by default)", Destination: &f.followSymlinks},
		jobsFlag(&f.jobs),
	), extra...)
}

func (c *CLI) migrateCommand() *cli.Command {
	var f rewriteFlags
	flags := f.flags(
		&cli.BoolFlag{Name: "strict", Usage: "refuse a file with any validation error (refused_invalid), where pi 1.6.0 would migrate it: for CI", Destination: &f.strict})
	return c.command("migrate", "bring version 1/2 files to version 3 with the safe rewrite protocol", "[PATH...]",
		flags, func(ctx *cli.Context) error { return c.runRewrite(ctx, &f, migrate.MigrateFile, migrateVerifier) })
}

func (c *CLI) repairCommand() *cli.Command {
	var f rewriteFlags
	flags := f.flags(
		&cli.BoolFlag{Name: "zero-tail", Usage: "also cut a trailing run of NUL bytes (zero_fill)", Destination: &f.zeroTail},
		&cli.BoolFlag{Name: "clean-temps", Usage: "first remove temp files a killed pisess run left beside the files (.pisess-tmp-*: only unlocked ones older than a minute)", Destination: &f.cleanTemps})
	return c.command("repair", "safe repairs only: torn tails, missing final newline, lost newlines between objects", "[PATH...]",
		flags, func(ctx *cli.Context) error { return c.runRewrite(ctx, &f, migrate.RepairFile, repairVerifier) })
}

// fileOp is migrate.MigrateFile or migrate.RepairFile.
type fileOp func(safefile.FS, string, migrate.Options) (migrate.Report, error)

// verifier builds the check a new generation must pass before it replaces
// the original, and, for migrate, the check of the original (nil: the
// same check).
type verifier func(f *rewriteFlags, opts validate.Options) (safefile.VerifyFunc, migrate.CheckFunc)

// migrateVerifier: with --strict, a migrated file, like the file it came
// from, has no validation error at all. Without, migrate takes what pi
// 1.6.0 takes (migrateChecker). Warnings never count: a tolerated file (a
// torn line, a missing final newline) is migrated with them kept as they
// are.
func migrateVerifier(f *rewriteFlags, opts validate.Options) (safefile.VerifyFunc, migrate.CheckFunc) {
	verify := verifyNone(opts, func(f finding.Finding) bool { return f.Severity == finding.Error })
	if f.strict {
		return verify, nil
	}
	return verify, migrateChecker(opts)
}

// migrateChecker checks the original of a migration as pi 1.6.0 sees it:
// pi migrates a session whatever its entries hold, so a schema or linkage
// error of the original is reported as a warning of the migration (code
// and line kept) and does not block it; an error that makes the file no
// session pi can load blocks it (blocksMigration). The new generation may
// keep the original's errors, on their lines, but have no other.
func migrateChecker(opts validate.Options) migrate.CheckFunc {
	return func(name string, r io.Reader) ([]finding.Finding, safefile.VerifyFunc, error) {
		rep, err := validate.Stream(name, r, opts)
		if err != nil {
			return nil, nil, err
		}
		type place struct {
			line int
			code finding.Code
		}
		had := map[place]bool{}
		var warnings []finding.Finding
		for _, f := range rep.Findings {
			if f.Severity != finding.Error {
				continue
			}
			if blocksMigration(f.Code) {
				return nil, nil, &safefile.FindingError{Finding: f}
			}
			had[place{f.Line, f.Code}] = true
			f.Severity = finding.Warning
			warnings = append(warnings, f)
		}
		verify := verifyNone(opts, func(f finding.Finding) bool {
			return f.Severity == finding.Error && !had[place{f.Line, f.Code}]
		})
		return warnings, verify, nil
	}
}

// blocksMigration reports whether an error of code in the original stops
// a migration without --strict: damage pi's own migration would lose
// (the parse-level codes; migrate's first pass refuses those lines
// itself, saying so) and what makes the file no session to migrate.
func blocksMigration(code finding.Code) bool {
	switch code {
	case finding.MissingHeader, finding.NotASession, finding.UnsupportedVersion, finding.MisplacedHeader,
		finding.FileTooLarge, finding.TooDeep:
		return true
	}
	return parseLevel(code)
}

// parseLevel reports whether code is one repair exists to remove.
func parseLevel(code finding.Code) bool {
	switch code {
	case finding.PartialTail, finding.TornLine, finding.BOM, finding.InvalidJSON, finding.InvalidUTF8,
		finding.TrailingData, finding.ConcatenatedObjects, finding.NotObject,
		finding.MissingFinalNewline, finding.ZeroFill, finding.LineTooLong:
		return true
	}
	return false
}

// leftBehind reports whether f, in a new generation, is a problem that
// generation must not have: any error, and the repairable warnings.
func leftBehind(f finding.Finding) bool {
	switch f.Code {
	case finding.PartialTail, finding.TornLine, finding.MissingFinalNewline:
		return true
	}
	return f.Severity == finding.Error
}

// repairVerifier: a repaired file has no parse-level problem left (other
// problems are not repair's to fix, and are reported by validate).
func repairVerifier(_ *rewriteFlags, opts validate.Options) (safefile.VerifyFunc, migrate.CheckFunc) {
	return verifyNone(opts, func(f finding.Finding) bool { return parseLevel(f.Code) }), nil
}

// verifyNone accepts a new generation in which no finding that counts is
// one it must not have (leftBehind); else the first such finding is the
// error.
func verifyNone(opts validate.Options, counts func(finding.Finding) bool) safefile.VerifyFunc {
	return func(name string, r io.Reader) error {
		rep, err := validate.Stream(name, r, opts)
		if err != nil {
			return err
		}
		for _, f := range rep.Findings {
			if counts(f) && leftBehind(f) {
				return &safefile.FindingError{Finding: f}
			}
		}
		return nil
	}
}

func (c *CLI) runRewrite(ctx *cli.Context, f *rewriteFlags, op fileOp, verify verifier) error {
	defer debug.SetGCPercent(debug.SetGCPercent(linkGCPercent))
	if f.diff && !f.dryRun { // a real run is not previewed
		return usageErrorf("--diff goes with --dry-run (it shows what a dry run would change)")
	}
	vopts, err := validateOptions(&f.limits, true)
	if err != nil {
		return err
	}
	opts := migrate.Options{
		Backup: f.backup, DryRun: f.dryRun, Diff: f.diff,
		FollowSymlinks: f.followSymlinks, ZeroTail: f.zeroTail,
		Limits: vopts.Limits, Temps: &safefile.Temps{},
	}
	opts.Verify, opts.Check = verify(f, vopts)
	if !opts.DryRun { // Ctrl-C removes the temp files of the runs under way
		defer opts.Temps.RemoveOnSignal(safefile.OS(), c.Exit)()
	}
	targets := c.targets
	p := &render.Rewrites{Out: c.Stdout, Err: c.Stderr, Format: f.format, Quiet: c.quiet(), Style: c.style(c.Stdout)}
	if f.cleanTemps {
		c.cleanTemps(targets, p, opts.DryRun)
	}
	worst := ExitOK
	ordered(len(targets), workers(f.jobs), func(i int) render.RewriteResult {
		t := targets[i]
		if t.Err != nil {
			return toResult(migrate.Report{File: t.Path, Action: migrate.Refused}, unreadable(t))
		}
		return toResult(op(safefile.OS(), t.Path, opts))
	}, func(_ int, r render.RewriteResult) {
		worst = max(worst, r.Exit)
		p.Result(r)
	})
	p.Summary(ctx.Command.Name, opts.DryRun)
	return exitWith(worst)
}

// cleanTemps removes the stale temp files beside the targets
// (--clean-temps) and reports each.
func (c *CLI) cleanTemps(targets []target, p *render.Rewrites, dryRun bool) {
	seen := map[string]bool{}
	for _, t := range targets {
		dir := filepath.Dir(t.Path)
		if t.Err != nil || t.Stdin || seen[dir] {
			continue
		}
		seen[dir] = true
		verdicts, err := safefile.CleanTemps(safefile.OS(), dir, c.Now(), dryRun)
		if err != nil {
			p.TempsFailed(err)
			continue
		}
		for _, v := range verdicts {
			r := render.TempResult{File: v.Path, Action: "temp-kept", Reason: v.Why}
			switch {
			case v.Removed && dryRun:
				r.Action = "temp-would-remove"
			case v.Removed:
				r.Action = "temp-removed"
			}
			p.Temp(r)
		}
	}
}

// unreadable is the refusal of a target the walk could not read: a path
// that is not a regular file (a FIFO, a device) is not_regular, anything
// else read_failed; both exit 2, as migrate's own refusals of them.
func unreadable(t target) *safefile.Error {
	code := safefile.ReadFailed
	if info, err := os.Stat(t.Path); err == nil && !info.Mode().IsRegular() && !info.IsDir() {
		code = safefile.NotRegular
	}
	return &safefile.Error{Code: code, Path: t.Path, Err: t.Err}
}

// toResult turns a file operation's report and error into its result.
// After the rename an error does not undo what was written: the action
// stays, with the error's reason and code.
func toResult(rep migrate.Report, err error) render.RewriteResult {
	r := render.RewriteResult{File: rep.File, Action: string(rep.Action), From: rep.From, To: rep.To, Fixes: rep.Fixes, Diff: rep.Diff,
		Findings: rep.Notes, ReadOnly: rep.ReadOnly, Carried: rep.Carried, Rescued: rep.Rescued}
	if rep.Backup != "" {
		r.Backup = &rep.Backup
	}
	if err == nil {
		return r
	}
	if rep.Action != migrate.Migrated && rep.Action != migrate.Repaired {
		r.Action = "refused"
	}
	r.Reason = err.Error()
	r.Code, r.Exit = failure(err)
	return r
}

// failure is the code and exit code of a failed write: a *safefile.Error
// carries both; any other error is an I/O error (exit 2) without a code.
func failure(err error) (code string, exit int) {
	var merr *safefile.Error
	if errors.As(err, &merr) {
		return string(merr.Code), merr.ExitCode()
	}
	return "", ExitUsage
}
