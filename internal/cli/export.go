package cli

import (
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/export"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/safefile"
)

// exportFlags are export's flags.
type exportFlags struct {
	limits               limitFlags
	format, leaf, output string
	leafGiven            bool
	allBranches, redact  bool
	rules                rulesFlag
	maxBlock             int
}

func (c *CLI) exportCommand() *cli.Command {
	var f exportFlags
	return c.command("export", "render a session as one self-contained HTML page or a Markdown transcript", "FILE",
		append(f.limits.flags(),
			formatFlag(&f.format, "html (the tree and the conversation, one offline file) or md (a transcript of the path)", "html", "md"),
			&cli.StringFlag{Name: "leaf", Usage: "show the conversation up to the entry with this `ID` (or unique id prefix); default: the last entry", Destination: &f.leaf, Action: given[string](&f.leafGiven)},
			&cli.BoolFlag{Name: "all-branches", Usage: "md: the path to every leaf, each as its own section, each entry written once", Destination: &f.allBranches},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of standard output (FILE must not exist; - is standard output)", Destination: &f.output},
			&cli.BoolFlag{Name: "redact", Usage: "replace every secret `pisess scan` would find with [REDACTED:<kind>]", Destination: &f.redact},
			f.rules.flag(),
			&cli.IntFlag{Name: "max-block", Value: export.DefaultMaxBlock, Usage: "md: keep `N` bytes of each tool call, tool result or thinking block", Destination: &f.maxBlock},
		), func(ctx *cli.Context) error { return c.runExport(ctx, &f) })
}

func (c *CLI) runExport(ctx *cli.Context, f *exportFlags) error {
	file, err := oneFile(ctx)
	if err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	lim, err := f.limits.limits()
	if err != nil {
		return err
	}
	v := &view{file: file}
	opts := export.Options{Name: filepath.Base(v.file), Summary: render.Summary, MaxBlock: f.maxBlock}
	if f.redact {
		if opts.Redact, err = f.rules.load(); err != nil {
			return err
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(indexGCPercent)) // as the views: the index is most of the heap
	if file == "-" {
		opts.Name = ""
	}
	if err := c.open(v, lim, nil, f.leaf); err != nil {
		return err
	}
	defer v.session.Close()
	defer limitExportMemory(v.session)()
	var out safefile.Spool // a page of a huge session costs no memory; a failure half-way writes nothing
	defer out.Close()
	switch {
	case f.format == "html":
		err = export.HTML(&out, v.session, v.leaf, opts)
	case f.allBranches:
		err = export.MarkdownBranches(&out, v.session, opts)
	default:
		err = export.Markdown(&out, v.session, v.leaf, opts)
	}
	if err != nil {
		return v.pathError(err)
	}
	return c.deliver(safefile.OS(), f.output, &out)
}

// check checks the flags that go together.
func (f *exportFlags) check() error {
	switch {
	case f.rules.given && !f.redact:
		return usageErrorf("--rules goes with --redact")
	case f.maxBlock < 0:
		return usageErrorf("--max-block must be 0 (the default, %d) or more, not %d", export.DefaultMaxBlock, f.maxBlock)
	case f.allBranches && f.format != "md":
		return usageErrorf("--all-branches goes with --format md (the page holds every branch already)")
	case f.allBranches && f.leafGiven:
		return usageErrorf("--all-branches writes every leaf's path: it takes no --leaf")
	}
	return nil
}

// limitExportMemory sets the collector for writing the page: the index is
// most of the heap and lives to the end, and the page adds one record at a
// time and the garbage of rendering it (goldmark's, mostly). A soft memory
// limit of the index (after a collection) plus a margin and 1.5 times the
// largest entry keeps the peak there, and the collector runs as often as
// that needs, not all the time: the views' low GOGC (viewGCPercent) made
// the page of a 300 MB session take 3.6 times as long. It returns the
// function that restores the collector's settings (the tests run many
// commands in one process).
func limitExportMemory(s *project.Session) (restore func()) {
	percent := debug.SetGCPercent(100)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	live := int64(ms.HeapAlloc)
	limit := debug.SetMemoryLimit(max(exportMargin, live+live/4) + int64(s.Largest())*3/2)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}

// exportMargin is the least memory limit for writing the page, beyond
// 1.5 times the largest entry.
const exportMargin = 40 << 20
