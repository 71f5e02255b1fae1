package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/validate"
)

// validateFlags are validate's flags.
type validateFlags struct {
	limits         limitFlags
	format         string
	strict         bool
	requireVersion int
	noSchema       bool
	jobs           int
}

func (c *CLI) validateCommand() *cli.Command {
	var f validateFlags
	return c.command("validate", "strict parse, JSON Schema per entry and linkage checks", "[PATH...]",
		append(f.limits.flags(),
			formatFlag(&f.format, "text, json (one object per file) or github (Actions annotations)", "text", "json", "github"),
			&cli.BoolFlag{Name: "strict", Usage: "warnings fail too", Destination: &f.strict},
			&cli.IntFlag{Name: "require-version", Usage: "files older than `N` fail with needs_migration", Destination: &f.requireVersion},
			&cli.BoolFlag{Name: "no-schema", Usage: "parse, structure and linkage checks only (faster)", Destination: &f.noSchema},
			jobsFlag(&f.jobs),
		), func(*cli.Context) error { return c.runValidate(&f) })
}

// validateOptions builds the validation options from the limits given.
func validateOptions(l *limitFlags, withSchemas bool) (validate.Options, error) {
	lim, err := l.limits()
	if err != nil {
		return validate.Options{}, err
	}
	opts := validate.Options{Limits: lim}
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

// linkGCPercent is the garbage collector's target (Go's default is 100)
// in the commands that keep more than the linkage checks' tables to the
// end of a file (audit its figures; migrate and repair a second pass). On
// a file of many entries those tables are most of the heap; they hold no
// pointers, so a cycle costs little, and a lower target keeps the peak
// near their size (issue 26). validate itself stays at Go's default: its
// peak is within the bound there, and the cycles cost it 5-8 % of its CPU
// time on a file of many small entries (issue 28).
const linkGCPercent = 50

func (c *CLI) runValidate(f *validateFlags) error {
	opts, err := validateOptions(&f.limits, !f.noSchema)
	if err != nil {
		return err
	}
	opts.RequireVersion = f.requireVersion
	opts.Workers = workersPerFile(workers(f.jobs), len(c.targets))
	v := &render.Validation{Format: f.format, Quiet: c.quiet(), Strict: f.strict, Style: c.style(c.Stdout)}
	eachTarget(c.targets, f.jobs, func(t target) (*validate.Report, error) {
		if t.Stdin {
			return validate.Stream(t.Path, c.Stdin, opts)
		}
		return validate.File(t.Path, opts)
	}, func(_ target, rep *validate.Report, err error) {
		if err != nil {
			v.Unreadable()
			c.printError(err)
			return
		}
		v.Report(c.Stdout, rep)
	})
	v.Summary(c.Stdout)
	return filesExit(v.Tally.Unreadable, v.Tally.Invalid > 0 || v.StrictFails())
}
