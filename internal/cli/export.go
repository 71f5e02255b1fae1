package cli

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/export"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/render"
)

func (c *CLI) exportCommand() *cli.Command {
	cmd := command("export", "render a session as one self-contained HTML page or a Markdown transcript", "FILE",
		append(limitFlags(),
			formatFlag("html (the tree and the conversation, one offline file) or md (a transcript of the path)", "html", "md"),
			&cli.StringFlag{Name: "leaf", Usage: "show the conversation up to the entry with this `ID` (or unique id prefix); default: the last entry"},
			&cli.BoolFlag{Name: "all-branches", Usage: "md: the path to every leaf, each as its own section, each entry written once"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of standard output (FILE must not exist; - is standard output)"},
			&cli.BoolFlag{Name: "redact", Usage: "replace every secret `pisess scan` would find with [REDACTED:<kind>]"},
			rulesFlag(),
			&cli.IntFlag{Name: "max-block", Value: export.DefaultMaxBlock, Usage: "md: keep `N` bytes of each tool call, tool result or thinking block"},
		), c.runExport)
	cmd.Description = `html: one file with its style and its one small script inside and no
reference to anything outside it (it works offline; light or dark as the
system is). It shows the whole tree, branches collapsible, the path to the
leaf marked, labels, compactions and branch summaries, and the conversation
along that path: message text rendered from Markdown (raw HTML left out,
links shown as text), thinking, tool calls and their results collapsed with
their sizes, images inline, model changes, tokens and cost per turn and in
total. Everything from the file is escaped: it cannot add markup or script.

The page holds every entry once: pick one in the tree (click, or Enter) and
the conversation along its path shows, the other branches hidden; at first
it shows the path to the leaf (or --leaf).

md: the path as a transcript to paste into an issue: a heading per entry,
tool calls and results in fenced blocks, long ones cut to --max-block bytes
and marked. With --all-branches, the path to every leaf as its own section,
in the tree's order; a section starts where its path leaves the sections
before it and names the entry it continues from.

The page or transcript is written as it is made (the file's entries are
read back one at a time), so its memory is about the largest entry's.

--redact applies the rules of ` + "`pisess scan`" + ` (and --rules) to everything
rendered. The file is never changed. --output never overwrites a file.

Exit codes: 0 written; 1 the file is not a session, or a parentId cycle lies
on the leaf's path; 2 usage error, or a file could not be read or written.

Examples:
   pisess export f.jsonl > session.html                # the page, to open or attach
   pisess export --redact --output s.html f.jsonl      # to share: no secrets, never overwrites
   pisess export --format md --leaf 3fc31a98 f.jsonl   # a transcript up to that entry, for an issue
   pisess export --format md --all-branches f.jsonl    # every branch, shared turns once`
	return cmd
}

func (c *CLI) runExport(ctx *cli.Context) error {
	file, err := oneFile(ctx)
	if err != nil {
		return err
	}
	if err := exportUsage(ctx); err != nil {
		return err
	}
	lim, err := limits(ctx)
	if err != nil {
		return err
	}
	v := &view{file: file}
	opts := export.Options{Name: filepath.Base(v.file), MaxBlock: ctx.Int("max-block")}
	if ctx.Bool("redact") {
		if opts.Redact, err = loadRules(ctx); err != nil {
			return err
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(indexGCPercent)) // as the views: the index is most of the heap
	switch {
	case v.file == "-":
		v.file, opts.Name = stdinName, ""
		v.session, err = openSpooled(c.Stdin, lim, nil)
	case isPipe(v.file):
		v.session, err = openPipe(v.file, lim, nil)
	default:
		v.session, err = project.Open(v.file, lim)
	}
	if v.session, err = project.RefuseAsPi(v.session, err); err != nil {
		return v.loadError(err)
	}
	defer v.session.Close()
	defer limitExportMemory(v.session)()
	if v.leaf, err = resolveLeaf(v.session, ctx.String("leaf")); err != nil {
		return usageErrorf("%s: %v", v.file, err)
	}
	if !globalBool(ctx, "quiet") && len(v.session.Skipped) > 0 {
		fmt.Fprintf(c.Stderr, "pisess: warning: %s: %s no entry (blank, torn or corrupt: `pisess validate %s` explains)\n",
			render.Safe(v.file), skippedLines(v.session.Skipped), render.Safe(v.file))
	}
	var out migrate.Spool // a page of a huge session costs no memory; a failure half-way writes nothing
	defer out.Close()
	switch {
	case ctx.String("format") == "html":
		err = export.HTML(&out, v.session, v.leaf, opts)
	case ctx.Bool("all-branches"):
		err = export.MarkdownBranches(&out, v.session, opts)
	default:
		err = export.Markdown(&out, v.session, v.leaf, opts)
	}
	if err != nil {
		return v.pathError(err)
	}
	return c.deliver(migrate.OS(), ctx.String("output"), &out)
}

// exportUsage checks the flags that go together.
func exportUsage(ctx *cli.Context) error {
	switch {
	case ctx.IsSet("rules") && !ctx.Bool("redact"):
		return usageErrorf("--rules goes with --redact")
	case ctx.Int("max-block") < 0:
		return usageErrorf("--max-block must be 0 (the default, %d) or more, not %d", export.DefaultMaxBlock, ctx.Int("max-block"))
	case ctx.Bool("all-branches") && ctx.String("format") != "md":
		return usageErrorf("--all-branches goes with --format md (the page holds every branch already)")
	case ctx.Bool("all-branches") && ctx.IsSet("leaf"):
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
