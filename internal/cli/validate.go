package cli

import (
	"fmt"
	"math"

	"github.com/urfave/cli/v2"

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

// linkGCPercent is the garbage collector's target (Go's default is 100)
// in the commands that keep more than the linkage checks' tables to the
// end of a file (audit its figures; migrate and repair a second pass). On
// a file of many entries those tables are most of the heap; they hold no
// pointers, so a cycle costs little, and a lower target keeps the peak
// near their size (issue 26). validate itself stays at Go's default: its
// peak is within the bound there, and the cycles cost it 5-8 % of its CPU
// time on a file of many small entries (issue 28).
const linkGCPercent = 50

func (c *CLI) runValidate(ctx *cli.Context) error {
	opts, err := validateOptions(ctx, !ctx.Bool("no-schema"))
	if err != nil {
		return err
	}
	targets := c.targets
	opts.Workers = workersPerFile(jobs(ctx), len(targets))
	v := &render.Validation{Format: ctx.String("format"), Quiet: globalBool(ctx, "quiet"), Strict: ctx.Bool("strict"), Style: c.style(ctx, c.Stdout)}
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
	}, func(_ int, o outcome) {
		if o.err != nil {
			v.Unreadable()
			c.printError(o.err)
			return
		}
		v.Report(c.Stdout, o.rep)
	})
	v.Summary(c.Stdout)
	return filesExit(v.Tally.Unreadable, v.Tally.Invalid > 0 || v.StrictFails())
}
