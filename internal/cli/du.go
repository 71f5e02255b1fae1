package cli

import (
	"cmp"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/du"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// duFlags are du's flags.
type duFlags struct {
	limits   limitFlags
	format   string
	summary  bool
	maxBytes byteSize
	width    widthFlag
	jobs     int
}

func (c *CLI) duCommand() *cli.Command {
	var f duFlags
	return c.command("du", "where the bytes of sessions are: by entry type, role, customType, tool, tool call and image", "[PATH...]",
		append(f.limits.flags(),
			formatFlag(&f.format, "table or json (one object per row: file, kind, name, entries, bytes)", "table", "json"),
			&cli.BoolFlag{Name: "summary", Usage: "the totals of all files only", Destination: &f.summary},
			sizeFlag(&f.maxBytes, "max-bytes", 0, "also say what slim --rewrite --max-bytes `N` would take off each row (0: not)"),
			f.width.flag("cut names to fit `N` columns; 0 never cuts", "the terminal's width; never cut when stdout is not a terminal"),
			jobsFlag(&f.jobs),
		), func(*cli.Context) error { return c.runDU(&f) })
}

func (c *CLI) runDU(f *duFlags) error {
	lim, err := f.limits.limits()
	if err != nil {
		return err
	}
	maxBytes := int64(f.maxBytes)
	if maxBytes != 0 && maxBytes < session.MinSlimBytes {
		return usageErrorf("--max-bytes must be 0 (not asked) or at least %s, as slim --rewrite takes it", text.Bytes(session.MinSlimBytes))
	}
	opt := render.DUOptions{Format: f.format, Summary: f.summary, Shrink: maxBytes > 0}
	if opt.Width, err = c.duWidth(f.width); err != nil {
		return err
	}
	opts := du.Options{Limits: lim, Workers: workersPerFile(workers(f.jobs), len(c.targets)), MaxBytes: maxBytes}
	var files []*du.Usage
	unreadable := 0
	eachTarget(c.targets, f.jobs, func(t target) (*du.Usage, error) { return du.File(t.Path, opts) },
		func(_ target, u *du.Usage, err error) {
			if err != nil {
				unreadable++
				c.printError(err)
				return
			}
			files = append(files, u)
		})
	slices.SortStableFunc(files, func(a, b *du.Usage) int { return cmp.Compare(b.Bytes, a.Bytes) })
	var total *du.Usage
	if len(files) > 1 {
		total = du.Sum("", files)
	}
	if err := render.DU(c.Stdout, files, total, opt); err != nil {
		return err
	}
	return filesExit(unreadable, false)
}

// duWidth is the width the tables fit: --width, else COLUMNS or the
// terminal's width when stdout is a terminal; piped output is never cut.
func (c *CLI) duWidth(width widthFlag) (int, error) {
	switch {
	case width.given:
		return width.checked()
	case !c.IsTerminal(c.Stdout):
		return 0, nil
	}
	return c.columns(), nil
}
