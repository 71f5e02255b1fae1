package cli

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/parse"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/validate"
)

func (c *CLI) validateCommand() *cli.Command {
	return command("validate", "strict parse, JSON Schema per entry and linkage checks", "[PATH...]",
		append(limitFlags(),
			formatFlag("text, json (one object per file) or github (Actions annotations)", "text", "json", "github"),
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
		sizeFlag("max-line-bytes", int64(def.MaxLineBytes), "longest line accepted"),
		sizeFlag("max-file-bytes", def.MaxFileBytes, "largest file accepted, 0 for no limit"),
	}
}

// limits reads the limit flags.
func limits(ctx *cli.Context) (parse.Limits, error) {
	line, file := sizeOf(ctx, "max-line-bytes"), sizeOf(ctx, "max-file-bytes")
	if line <= 0 || line > math.MaxInt32 {
		return parse.Limits{}, usageErrorf("--max-line-bytes must be from 1 byte to 2GiB")
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
	files, valid, tolerated, invalid, unreadable, errors, warnings, omp int
	warningCodes                                                        map[finding.Code]int
}

func (c *CLI) runValidate(ctx *cli.Context) error {
	format := ctx.String("format")
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
		if t.Stdin {
			rep, err := validate.Stream(t.Path, c.Stdin, opts)
			return outcome{rep: rep, err: err}
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
		if rep.Dialect == parse.Omp && !v.quiet {
			fmt.Fprintf(v.out, "%s: %s\n", render.Safe(rep.File), v.style.Dim("oh-my-pi session (dialect omp)"))
		}
		for _, f := range rep.Findings {
			if v.quiet && f.Severity != finding.Error {
				continue
			}
			render.Finding(v.out, v.style, rep.File, f)
		}
	}
}

func (v *validator) count(rep *validate.Report) {
	if rep.Dialect == parse.Omp {
		v.tally.omp++
	}
	v.tally.errors += rep.Errors()
	v.tally.warnings += rep.Warnings()
	for _, f := range rep.Findings {
		if f.Severity == finding.Warning {
			if v.tally.warningCodes == nil {
				v.tally.warningCodes = map[finding.Code]int{}
			}
			v.tally.warningCodes[f.Code]++
		}
	}
	switch rep.Status {
	case validate.Valid:
		v.tally.valid++
	case validate.Tolerated:
		v.tally.tolerated++
	default:
		v.tally.invalid++
	}
}

// summary writes the one-line summary of the text format, and under
// --strict which warnings failed the run.
func (v *validator) summary() {
	if v.format != "text" || v.quiet {
		return
	}
	t := v.tally
	line := fmt.Sprintf("%s: %d valid, %d tolerated, %d invalid", render.Plural(t.files, "file", "files"), t.valid, t.tolerated, t.invalid)
	if t.omp > 0 {
		line = fmt.Sprintf("%s (%d oh-my-pi): %d valid, %d tolerated, %d invalid", render.Plural(t.files, "file", "files"), t.omp, t.valid, t.tolerated, t.invalid)
	}
	if t.unreadable > 0 {
		line += fmt.Sprintf(", %d unreadable", t.unreadable)
	}
	line += fmt.Sprintf(" (%s, %s)", render.Plural(t.errors, "error", "errors"), render.Plural(t.warnings, "warning", "warnings"))
	switch {
	case t.invalid > 0 || t.unreadable > 0:
		line = v.style.Error("✗") + " " + line
	case v.strictFails():
		line = v.style.Error("✗") + " " + line + "; --strict fails on " + warningList(t.warningCodes)
	default:
		line = v.style.OK("✓") + " " + line
	}
	fmt.Fprintln(v.out, line)
}

// strictFails reports whether --strict fails a run that has no error.
func (v *validator) strictFails() bool {
	return v.strict && (v.tally.warnings > 0 || v.tally.tolerated > 0)
}

// warningList names the warning codes with their counts, most first:
// "needs_migration ×3, partial_tail".
func warningList(codes map[finding.Code]int) string {
	names := make([]finding.Code, 0, len(codes))
	for c := range codes {
		names = append(names, c)
	}
	sort.Slice(names, func(i, j int) bool {
		if codes[names[i]] != codes[names[j]] {
			return codes[names[i]] > codes[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, c := range names {
		parts[i] = string(c)
		if n := codes[c]; n > 1 {
			parts[i] += fmt.Sprintf(" ×%d", n)
		}
	}
	return strings.Join(parts, ", ")
}

// exit maps the tally to the exit code.
func (v *validator) exit() error {
	t := v.tally
	switch {
	case t.unreadable > 0:
		return &ExitError{Code: ExitUsage}
	case t.invalid > 0, v.strictFails():
		return &ExitError{Code: ExitInvalid}
	}
	return nil
}
