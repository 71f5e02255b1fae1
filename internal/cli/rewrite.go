package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
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
		formatFlag("text or json (one object per file)", "text", "json"),
		&cli.BoolFlag{Name: "follow-symlinks", Usage: "rewrite the file a symbolic link points to (refused by default)"},
		jobsFlag(),
	)
}

func (c *CLI) migrateCommand() *cli.Command {
	return command("migrate", "bring version 1/2 files to version 3 with the safe rewrite protocol", "[PATH...]",
		rewriteFlags(), func(ctx *cli.Context) error { return c.runRewrite(ctx, migrate.MigrateFile, migrateVerifier) })
}

func (c *CLI) repairCommand() *cli.Command {
	flags := append(rewriteFlags(),
		&cli.BoolFlag{Name: "zero-tail", Usage: "also cut a trailing run of NUL bytes (zero_fill)"},
		&cli.BoolFlag{Name: "clean-temps", Usage: "first remove temp files a killed pisess run left beside the files (.pisess-tmp-*: only unlocked ones older than a minute)"})
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
func repairVerifier(opts validate.Options) migrate.VerifyFunc {
	return func(name string, r io.Reader) error {
		rep, err := validate.Stream(name, r, opts)
		if err != nil {
			return err
		}
		return firstError(rep, func(f finding.Finding) bool { return parseLevel(f.Code) })
	}
}

// firstError returns the first error finding that counts, as an error.
func firstError(rep *validate.Report, counts func(finding.Finding) bool) error {
	for _, f := range rep.Findings {
		if counts(f) && leftBehind(f) {
			return fmt.Errorf("line %d: %s: %s", f.Line, f.Code, f.Message)
		}
	}
	return nil
}

// rewriteResult is the `--format json` object of migrate and repair.
type rewriteResult struct {
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
	// ReadOnly: the file had no write permission; it was replaced anyway
	// (the directory allows it) and the new file is read-only too.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Carried: bytes another program (pi) appended during the rename,
	// appended to the new file.
	Carried int64 `json:"carriedBytes,omitempty"`
	// Rescued: the old generation as another program left it.
	Rescued string `json:"rescued,omitempty"`
	exit    int
}

// tempResult is the `--format json` object of one temp file --clean-temps
// looked at (action "temp-removed", "temp-would-remove" or "temp-kept").
type tempResult struct {
	File      string `json:"file"`
	FileBytes []byte `json:"fileBytes,omitempty"`
	Action    string `json:"action"`
	Reason    string `json:"reason,omitempty"`
}

// rewriteTally counts the results for the summary line.
type rewriteTally struct {
	files, done, unchanged, refused, tempsRemoved int
}

func (c *CLI) runRewrite(ctx *cli.Context, op fileOp, verify verifier) error {
	format := ctx.String("format")
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
	quiet := globalBool(ctx, "quiet")
	var tally rewriteTally
	if ctx.Bool("clean-temps") {
		tally.tempsRemoved = c.cleanTemps(targets, format, style, opts.DryRun)
	}
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
		tally.count(r)
		c.emitRewrite(format, style, quiet, r)
	})
	if format == "text" && !quiet {
		fmt.Fprintln(c.Stdout, tally.line(style, ctx.Command.Name, opts.DryRun))
	}
	if worst != ExitOK {
		return &ExitError{Code: worst}
	}
	return nil
}

// cleanTemps removes the stale temp files beside the targets
// (--clean-temps), reports each, and returns how many went.
func (c *CLI) cleanTemps(targets []target, format string, s render.Style, dryRun bool) int {
	seen := map[string]bool{}
	removed := 0
	for _, t := range targets {
		dir := filepath.Dir(t.Path)
		if t.Err != nil || t.Stdin || seen[dir] {
			continue
		}
		seen[dir] = true
		verdicts, err := migrate.CleanTemps(migrate.OS(), dir, c.now(), dryRun)
		if err != nil {
			fmt.Fprintf(c.Stderr, "%s %s\n", s.Error("clean-temps:"), render.Safe(err.Error()))
			continue
		}
		for _, v := range verdicts {
			r := tempResult{File: v.Path, Action: "temp-kept", Reason: v.Why}
			switch {
			case v.Removed && dryRun:
				r.Action = "temp-would-remove"
			case v.Removed:
				r.Action, removed = "temp-removed", removed+1
			}
			c.emitTemp(format, s, r)
		}
	}
	return removed
}

func (c *CLI) emitTemp(format string, s render.Style, r tempResult) {
	switch {
	case format == "json":
		r.FileBytes = finding.NameBytes(r.File)
		render.JSONLine(c.Stdout, r)
	case r.Action == "temp-removed":
		fmt.Fprintf(c.Stdout, "%s: %s\n", render.Safe(r.File), s.OK("stale temp file removed"))
	case r.Action == "temp-would-remove":
		fmt.Fprintf(c.Stdout, "%s: %s\n", render.Safe(r.File), s.OK("stale temp file, would be removed"))
	default:
		fmt.Fprintf(c.Stdout, "%s: %s (%s)\n", render.Safe(r.File), s.Dim("temp file kept"), render.Safe(r.Reason))
	}
}

// count adds one result to the tally.
func (t *rewriteTally) count(r rewriteResult) {
	t.files++
	switch r.Action {
	case "refused":
		t.refused++
	case "unchanged":
		t.unchanged++
	default:
		t.done++
	}
}

// line is the summary line of the text format: "✓ 3 files: 2 migrated,
// 1 unchanged, 0 refused".
func (t rewriteTally) line(s render.Style, command string, dryRun bool) string {
	done := map[string]string{"migrate": "migrated", "repair": "repaired"}[command]
	if dryRun {
		done = "would " + command
	}
	line := fmt.Sprintf("%s: %d %s, %d unchanged, %d refused", render.Plural(t.files, "file", "files"), t.done, done, t.unchanged, t.refused)
	if t.tempsRemoved > 0 {
		line += ", " + render.Plural(t.tempsRemoved, "stale temp file", "stale temp files") + " removed"
	}
	if t.refused > 0 {
		return s.Error("✗") + " " + line
	}
	return s.OK("✓") + " " + line
}

// toResult turns a file operation's report and error into its result.
// After the rename an error does not undo what was written: the action
// stays, with the error's reason and code.
func toResult(rep migrate.Report, err error) rewriteResult {
	r := rewriteResult{File: rep.File, Action: string(rep.Action), From: rep.From, To: rep.To, Fixes: rep.Fixes, Diff: rep.Diff,
		ReadOnly: rep.ReadOnly, Carried: rep.Carried, Rescued: rep.Rescued}
	if rep.Backup != "" {
		r.Backup = &rep.Backup
	}
	if err == nil {
		return r
	}
	if rep.Action != migrate.Migrated && rep.Action != migrate.Repaired {
		r.Action = "refused"
	}
	r.Reason, r.exit = err.Error(), ExitUsage
	var merr *migrate.Error
	if errors.As(err, &merr) {
		r.Code, r.exit = string(merr.Code), merr.ExitCode()
	}
	return r
}

// emitRewrite writes one file's result.
func (c *CLI) emitRewrite(format string, s render.Style, quiet bool, r rewriteResult) {
	if format == "json" {
		r.FileBytes = finding.NameBytes(r.File)
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
	line := render.Safe(r.File) + ": " + s.OK(strings.ReplaceAll(r.Action, "-", " "))
	if r.Action == "unchanged" {
		line = render.Safe(r.File) + ": " + s.Dim(r.Action)
	}
	if detail := r.details(); len(detail) > 0 {
		line += " (" + strings.Join(detail, ", ") + ")"
	}
	fmt.Fprintln(c.Stdout, line)
	if r.Reason != "" { // an error after the rename: written, but not all is well
		fmt.Fprintf(c.Stderr, "%s %s\n", s.Error("error:"), render.Safe(r.Reason))
	}
	if r.Diff != "" {
		io.WriteString(c.Stdout, safeLines(r.Diff))
	}
}

// details are the parenthesised facts of a result's text line.
func (r rewriteResult) details() []string {
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
	if r.ReadOnly {
		detail = append(detail, "the file was read-only: replaced anyway, as its directory allows; still read-only")
	}
	if r.Carried > 0 {
		detail = append(detail, fmt.Sprintf("%s appended by another program during the rename carried over", render.Plural(int(r.Carried), "byte", "bytes")))
	}
	if r.Rescued != "" {
		detail = append(detail, "old generation as another program left it kept in "+render.Safe(r.Rescued))
	}
	return detail
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
