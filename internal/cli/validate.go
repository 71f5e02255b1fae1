package cli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/parse"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/validate"
)

func (c *CLI) validateCommand() *cli.Command {
	return command("validate", "strict parse, JSON Schema per entry and linkage checks", "[PATH...]",
		append(limitFlags(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, json (one object per file) or github (Actions annotations)"},
			&cli.BoolFlag{Name: "strict", Usage: "warnings fail too"},
			&cli.IntFlag{Name: "require-version", Usage: "files older than `N` fail with needs_migration"},
			&cli.BoolFlag{Name: "no-schema", Usage: "parse, structure and linkage checks only (faster)"},
			jobsFlag(),
		), c.runValidate)
}

// limitFlags are the parser limits.
func limitFlags() []cli.Flag {
	def := parse.DefaultLimits()
	return []cli.Flag{
		&cli.Int64Flag{Name: "max-line-bytes", Value: int64(def.MaxLineBytes), Usage: "longest line accepted"},
		&cli.Int64Flag{Name: "max-file-bytes", Value: def.MaxFileBytes, Usage: "largest file accepted (0 = no limit)"},
	}
}

// limits reads the limit flags.
func limits(ctx *cli.Context) (parse.Limits, error) {
	line, file := ctx.Int64("max-line-bytes"), ctx.Int64("max-file-bytes")
	if line <= 0 || file < 0 {
		return parse.Limits{}, usageErrorf("--max-line-bytes must be positive and --max-file-bytes not negative")
	}
	return parse.Limits{MaxLineBytes: int(line), MaxFileBytes: file}, nil
}

// validateOptions builds the validation options from the flags.
func validateOptions(ctx *cli.Context, withSchemas bool) (validate.Options, error) {
	lim, err := limits(ctx)
	if err != nil {
		return validate.Options{}, err
	}
	opts := validate.Options{Limits: lim, RequireVersion: ctx.Int("require-version")}
	if withSchemas {
		s, err := validate.CompileSchemas()
		if err != nil {
			return opts, fmt.Errorf("compiling the embedded schemas: %w", err)
		}
		opts.Schemas = s
	}
	return opts, nil
}

// workersPerFile shares the jobs between files and the entries of a file:
// one big file still uses every core.
func workersPerFile(jobs, files int) int {
	if files >= jobs || files == 0 {
		return 1
	}
	return jobs / files
}

// outcome is one file's validation result or the error that prevented it.
type outcome struct {
	rep *validate.Report
	err error
}

// validator writes validation results in one output format.
type validator struct {
	out, errw io.Writer
	style     render.Style
	format    string
	quiet     bool
	strict    bool
	tally     tally
}

// tally counts results for the summary and the exit code.
type tally struct {
	files, valid, tolerated, invalid, unreadable, errors, warnings int
}

func (c *CLI) runValidate(ctx *cli.Context) error {
	format := ctx.String("format")
	if format != "text" && format != "json" && format != "github" {
		return usageErrorf("--format must be text, json or github, not %q", format)
	}
	opts, err := validateOptions(ctx, !ctx.Bool("no-schema"))
	if err != nil {
		return err
	}
	targets := c.expand(ctx.Args().Slice())
	opts.Workers = workersPerFile(jobs(ctx), len(targets))
	v := &validator{out: c.Stdout, errw: c.Stderr, style: c.style(ctx, c.Stdout), format: format, quiet: globalBool(ctx, "quiet"), strict: ctx.Bool("strict")}
	ordered(len(targets), jobs(ctx), func(i int) outcome {
		t := targets[i]
		if t.Err != nil {
			return outcome{err: t.Err}
		}
		rep, err := validate.File(t.Path, opts)
		return outcome{rep: rep, err: err}
	}, func(i int, o outcome) { v.emit(targets[i].Path, o) })
	v.summary()
	return v.exit()
}

// emit writes one file's result.
func (v *validator) emit(path string, o outcome) {
	v.tally.files++
	if o.err != nil {
		v.tally.unreadable++
		fmt.Fprintf(v.errw, "pisess: %s\n", render.Safe(o.err.Error()))
		return
	}
	rep := o.rep
	v.count(rep)
	switch v.format {
	case "json":
		render.JSONLine(v.out, rep)
	case "github":
		for _, f := range rep.Findings {
			render.GitHub(v.out, rep.File, f)
		}
	default:
		for _, f := range rep.Findings {
			if v.quiet && f.Severity != finding.Error {
				continue
			}
			render.Finding(v.out, v.style, rep.File, f)
		}
	}
}

func (v *validator) count(rep *validate.Report) {
	v.tally.errors += rep.Errors()
	v.tally.warnings += rep.Warnings()
	switch rep.Status {
	case validate.Valid:
		v.tally.valid++
	case validate.Tolerated:
		v.tally.tolerated++
	default:
		v.tally.invalid++
	}
}

// summary writes the one-line summary of the text format.
func (v *validator) summary() {
	if v.format != "text" || v.quiet {
		return
	}
	t := v.tally
	line := fmt.Sprintf("%d files: %d valid, %d tolerated, %d invalid", t.files, t.valid, t.tolerated, t.invalid)
	if t.unreadable > 0 {
		line += fmt.Sprintf(", %d unreadable", t.unreadable)
	}
	line += fmt.Sprintf(" (%d errors, %d warnings)", t.errors, t.warnings)
	switch {
	case t.invalid > 0 || t.unreadable > 0:
		line = v.style.Error("✗") + " " + line
	default:
		line = v.style.OK("✓") + " " + line
	}
	fmt.Fprintln(v.out, line)
}

// exit maps the tally to the exit code.
func (v *validator) exit() error {
	t := v.tally
	switch {
	case t.unreadable > 0:
		return &ExitError{Code: ExitUsage}
	case t.invalid > 0, v.strict && (t.warnings > 0 || t.tolerated > 0):
		return &ExitError{Code: ExitInvalid}
	}
	return nil
}
