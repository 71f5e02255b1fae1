package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/validate"
)

func rewriteFlags() []cli.Flag {
	return append(limitFlags(),
		&cli.BoolFlag{Name: "backup", Usage: "keep the original beside the file (never overwrites an existing backup)"},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "write nothing; say what would change"},
		&cli.BoolFlag{Name: "diff", Usage: "show a unified diff of what changes"},
		&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json (one object per file)"},
		&cli.BoolFlag{Name: "follow-symlinks", Usage: "rewrite the file a symbolic link points to (refused by default)"},
		jobsFlag(),
	)
}

func (c *CLI) migrateCommand() *cli.Command {
	return command("migrate", "bring version 1/2 files to version 3 with the safe rewrite protocol", "[PATH...]",
		rewriteFlags(), func(ctx *cli.Context) error { return c.runRewrite(ctx, migrate.MigrateFile, migrateVerifier) })
}

func (c *CLI) repairCommand() *cli.Command {
	flags := append(rewriteFlags(), &cli.BoolFlag{Name: "zero-tail", Usage: "also cut a trailing run of NUL bytes (zero_fill)"})
	return command("repair", "safe repairs only: torn tails, missing final newline, lost newlines between objects", "[PATH...]",
		flags, func(ctx *cli.Context) error { return c.runRewrite(ctx, migrate.RepairFile, repairVerifier) })
}

// fileOp is migrate.MigrateFile or migrate.RepairFile.
type fileOp func(migrate.FS, string, migrate.Options) (migrate.Report, error)

// verifier builds the check a new generation must pass before it replaces
// the original.
type verifier func(opts validate.Options) migrate.VerifyFunc

// migrateVerifier: a migrated file, like the file it came from, has no
// validation error at all.
func migrateVerifier(opts validate.Options) migrate.VerifyFunc {
	return func(name string, r io.Reader) error {
		rep, err := validate.Stream(name, r, opts)
		if err != nil {
			return err
		}
		return firstError(rep, func(finding.Finding) bool { return true })
	}
}

// parseLevel are the codes repair exists to remove.
var parseLevel = map[finding.Code]bool{
	finding.PartialTail: true, finding.InvalidJSON: true, finding.InvalidUTF8: true,
	finding.TrailingData: true, finding.ConcatenatedObjects: true, finding.NotObject: true,
	finding.MissingFinalNewline: true, finding.ZeroFill: true, finding.LineTooLong: true,
}

// repairVerifier: a repaired file has no parse-level problem left (other
// problems are not repair's to fix, and are reported by validate).
func repairVerifier(opts validate.Options) migrate.VerifyFunc {
	return func(name string, r io.Reader) error {
		rep, err := validate.Stream(name, r, opts)
		if err != nil {
			return err
		}
		return firstError(rep, func(f finding.Finding) bool { return parseLevel[f.Code] })
	}
}

// firstError returns the first error finding that counts, as an error.
func firstError(rep *validate.Report, counts func(finding.Finding) bool) error {
	for _, f := range rep.Findings {
		if counts(f) && (f.Severity == finding.Error || f.Code == finding.PartialTail || f.Code == finding.MissingFinalNewline) {
			return fmt.Errorf("line %d: %s: %s", f.Line, f.Code, f.Message)
		}
	}
	return nil
}

// rewriteResult is the `--format json` object of migrate and repair.
type rewriteResult struct {
	File   string        `json:"file"`
	Action string        `json:"action"`
	From   int           `json:"from,omitempty"`
	To     int           `json:"to,omitempty"`
	Backup *string       `json:"backup"`
	Reason string        `json:"reason,omitempty"`
	Code   string        `json:"code,omitempty"`
	Fixes  []migrate.Fix `json:"fixes,omitempty"`
	Diff   string        `json:"diff,omitempty"`
	exit   int
}

func (c *CLI) runRewrite(ctx *cli.Context, op fileOp, verify verifier) error {
	format := ctx.String("format")
	if format != "text" && format != "json" {
		return usageErrorf("--format must be text or json, not %q", format)
	}
	vopts, err := validateOptions(ctx, true)
	if err != nil {
		return err
	}
	opts := migrate.Options{
		Backup: ctx.Bool("backup"), DryRun: ctx.Bool("dry-run"), Diff: ctx.Bool("diff"),
		FollowSymlinks: ctx.Bool("follow-symlinks"), ZeroTail: ctx.Bool("zero-tail"),
		Limits: vopts.Limits, Verify: verify(vopts),
	}
	targets := c.expand(ctx.Args().Slice())
	style := c.style(ctx, c.Stdout)
	worst := ExitOK
	ordered(len(targets), jobs(ctx), func(i int) rewriteResult {
		t := targets[i]
		if t.Err != nil {
			return rewriteResult{File: t.Path, Action: "refused", Reason: t.Err.Error(), exit: ExitUsage}
		}
		rep, err := op(migrate.OS(), t.Path, opts)
		return toResult(rep, err)
	}, func(i int, r rewriteResult) {
		worst = max(worst, r.exit)
		c.emitRewrite(format, style, globalBool(ctx, "quiet"), r)
	})
	if worst != ExitOK {
		return &ExitError{Code: worst}
	}
	return nil
}

// toResult turns a file operation's report and error into its result.
func toResult(rep migrate.Report, err error) rewriteResult {
	r := rewriteResult{File: rep.File, Action: string(rep.Action), From: rep.From, To: rep.To, Fixes: rep.Fixes, Diff: rep.Diff}
	if rep.Backup != "" {
		r.Backup = &rep.Backup
	}
	if err == nil {
		return r
	}
	r.Action, r.Reason, r.exit = "refused", err.Error(), ExitUsage
	var merr *migrate.Error
	if errors.As(err, &merr) {
		r.Code, r.exit = string(merr.Code), merr.ExitCode()
	}
	return r
}

// emitRewrite writes one file's result.
func (c *CLI) emitRewrite(format string, s render.Style, quiet bool, r rewriteResult) {
	if format == "json" {
		render.JSONLine(c.Stdout, r)
		return
	}
	if r.Action == "refused" {
		fmt.Fprintf(c.Stderr, "%s %s\n", s.Error("refused:"), render.Safe(r.Reason))
		return
	}
	if quiet && (r.Action == "unchanged") {
		return
	}
	var detail []string
	if r.From != 0 && r.To != 0 && r.From != r.To {
		detail = append(detail, fmt.Sprintf("v%d → v%d", r.From, r.To))
	}
	for _, f := range r.Fixes {
		detail = append(detail, fmt.Sprintf("line %d %s", f.Line, f.Code))
	}
	if r.Backup != nil {
		detail = append(detail, "backup "+render.Safe(*r.Backup))
	}
	line := render.Safe(r.File) + ": " + s.OK(r.Action)
	if r.Action == "unchanged" {
		line = render.Safe(r.File) + ": " + s.Dim(r.Action)
	}
	if len(detail) > 0 {
		line += " (" + strings.Join(detail, ", ") + ")"
	}
	fmt.Fprintln(c.Stdout, line)
	if r.Diff != "" {
		io.WriteString(c.Stdout, safeLines(r.Diff))
	}
}

// safeLines makes each line of a diff safe for a terminal (render.Safe),
// keeping the newlines.
func safeLines(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		lines[i] = render.Safe(body)
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}
