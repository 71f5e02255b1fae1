package cli

import (
	"errors"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/fix"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// The repairs of issue 14: unstick and slim append, fork writes a new
// file, recover-header rewrites the file with the safe rewrite protocol.

// fixFlags are the flags of unstick, slim, fork and recover-header; each
// command defines those it takes.
type fixFlags struct {
	limits                  limitFlags
	leaf, format            string
	leafGiven               bool
	backup, dryRun, rewrite bool
	maxBytes                byteSize
	output                  string
	outputGiven             bool
	dropCustom              cli.StringSlice
	dropCustomGiven         bool
	id, cwd                 string
}

// common are the flags of unstick, slim and fork.
func (f *fixFlags) common(leafUsage string) []cli.Flag {
	return append(f.limits.flags(),
		&cli.StringFlag{Name: "leaf", Usage: leafUsage, Destination: &f.leaf, Action: given[string](&f.leafGiven)},
		&cli.BoolFlag{Name: "backup", Usage: "first keep a copy of the file as FILE.bak (never overwrites a different one)", Destination: &f.backup},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "write nothing; say what would be done", Destination: &f.dryRun},
		formatFlag(&f.format, "text or json", "text", "json"),
	)
}

const defaultLeafUsage = "work on the context of the entry with this `ID` (or unique id prefix); default: the last entry"

func (c *CLI) unstickCommand() *cli.Command {
	var f fixFlags
	return c.command("unstick", "make a stuck session's context well-formed again by appending what is missing", "FILE",
		f.common(defaultLeafUsage), func(ctx *cli.Context) error { return c.runFix(ctx, &f, fix.UnstickFile) })
}

func (c *CLI) slimCommand() *cli.Command {
	var f fixFlags
	flags := append(f.common(defaultLeafUsage),
		sizeFlag(&f.maxBytes, "max-bytes", 64<<10, "hide each message whose content is larger than this (--rewrite: each content block)"),
		&cli.BoolFlag{Name: "rewrite", Usage: "remove the blocks from the file itself, in every entry of every branch (needs --backup or --output)", Destination: &f.rewrite},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "with --rewrite: write the result to `NEW` and leave FILE as it is", Destination: &f.output, Action: given[string](&f.outputGiven)},
		&cli.StringSliceFlag{Name: "drop-custom", Usage: "with --rewrite: also drop the custom entries of this customType (`TYPE`, repeatable) that a later one supersedes on every branch", Destination: &f.dropCustom, Action: given[[]string](&f.dropCustomGiven)})
	return c.command("slim", "hide giant tool outputs and images from the model with context_edit entries, or remove them (--rewrite)", "FILE",
		flags, func(ctx *cli.Context) error {
			if f.rewrite {
				return c.runFix(ctx, &f, fix.SlimRewriteFile)
			}
			return c.runFix(ctx, &f, fix.SlimFile)
		})
}

func (c *CLI) forkCommand() *cli.Command {
	var f fixFlags
	flags := append(f.common("the entry whose path becomes the new session (`ID` or unique id prefix; required)"),
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the new session to `FILE` (default: <timestamp>_<id>.jsonl beside the source, as pi names it)", Destination: &f.output})
	return c.command("fork", "write one branch of a session as a new session file, as pi's /fork does", "FILE",
		flags, func(ctx *cli.Context) error { return c.runFix(ctx, &f, fix.ForkFile) })
}

func (c *CLI) recoverHeaderCommand() *cli.Command {
	var f fixFlags
	flags := append(f.limits.flags(),
		&cli.BoolFlag{Name: "backup", Usage: "keep the original as FILE.bak (always done: accepted for symmetry)", Destination: &f.backup},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "write nothing; show the header that would be written", Destination: &f.dryRun},
		formatFlag(&f.format, "text or json", "text", "json"),
		&cli.StringFlag{Name: "id", Usage: "the session `ID` (when the file name is not <timestamp>_<id>.jsonl)", Destination: &f.id},
		&cli.StringFlag{Name: "cwd", Usage: "the session's working `DIR` (when the directory name does not say it)", Destination: &f.cwd},
	)
	return c.command("recover-header", "give a session file that lost its header line a new one", "FILE",
		flags, func(ctx *cli.Context) error { return c.runFix(ctx, &f, fix.RecoverHeaderFile) })
}

// fixOp is one of the fix package's file operations.
type fixOp func(safefile.FS, string, fix.Options) (fix.Report, error)

func (c *CLI) runFix(ctx *cli.Context, f *fixFlags, op fixOp) error {
	name := ctx.Command.Name
	file, err := oneFile(ctx)
	if err != nil {
		return err
	}
	if file == "-" {
		return usageErrorf("%s changes a file: it cannot read standard input", name)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(indexGCPercent)) // as the views: the index is most of the heap, and holds few pointers
	vopts, err := validateOptions(&f.limits, true)
	if err != nil {
		return err
	}
	opts := fix.Options{
		Leaf: f.leaf, ResolveLeaf: resolveLeaf, Now: c.Now(), Random: c.Random, Validate: vopts,
		Backup: f.backup, DryRun: f.dryRun, Output: f.output,
		ID: f.id, Cwd: f.cwd, Temps: &safefile.Temps{},
	}
	switch name {
	case "recover-header":
		if opts.ID != "" {
			if err := fix.CheckSessionID(opts.ID); err != nil {
				return usageErrorf("%v", err)
			}
		}
	case "fork":
		if opts.Leaf == "" {
			return usageErrorf("fork needs --leaf ID: the entry whose path becomes the new session (see `pisess tree FILE`)")
		}
	case "slim":
		opts.MaxBytes = int64(f.maxBytes)
		if opts.MaxBytes < session.MinSlimBytes {
			return usageErrorf("--max-bytes must be at least %s (the placeholder must fit)", text.Bytes(session.MinSlimBytes))
		}
		if err := f.checkSlim(&opts); err != nil {
			return err
		}
	}
	if opts.Output == "-" {
		what := name
		if f.rewrite {
			what += " --rewrite"
		}
		return usageErrorf("%s --output needs a file name: \"-\" (standard output) cannot be written safely", what)
	}
	defer opts.Temps.RemoveOnSignal(safefile.OS(), c.Exit)() // Ctrl-C removes the temp files and partial copies
	rep, err := op(safefile.OS(), file, opts)
	var leafErr *fix.LeafError
	if errors.As(err, &leafErr) {
		return usageErrorf("%s: %v", file, leafErr.Err)
	}
	return c.emitFix(name, f.format, rep, err)
}

// emitFix writes the outcome of command and returns the exit code as an
// error.
func (c *CLI) emitFix(command, format string, rep fix.Report, err error) error {
	r := fixResult{Report: rep}
	exit := ExitOK
	if err != nil {
		r.Reason = err.Error()
		r.Code, exit = failure(err)
		if !strings.HasSuffix(r.Action, "ed") || r.Action == "unchanged" {
			r.Action = "refused"
		}
	}
	fixReport{Out: c.Stdout, Err: c.Stderr, Command: command, Format: format,
		Quiet: c.quiet(), Style: c.style(c.Stdout)}.Result(r)
	return exitWith(exit)
}

// checkSlim checks the flags that belong to slim --rewrite: it needs a
// place for the original, works on every branch (no --leaf), and --output
// and --drop-custom mean nothing without it.
func (f *fixFlags) checkSlim(opts *fix.Options) error {
	opts.DropCustom = f.dropCustom.Value()
	if !f.rewrite {
		switch {
		case f.outputGiven:
			return usageErrorf("--output needs --rewrite")
		case f.dropCustomGiven:
			return usageErrorf("--drop-custom needs --rewrite")
		}
		return nil
	}
	switch {
	case f.leafGiven:
		return usageErrorf("slim --rewrite works on every entry of every branch: it takes no --leaf")
	case !opts.Backup && opts.Output == "":
		return usageErrorf("%v", fix.ErrNoPlaceForOriginal)
	case opts.Backup && opts.Output != "":
		return usageErrorf("slim --rewrite takes --backup or --output, not both (with --output the file is left as it is)")
	}
	for _, t := range opts.DropCustom {
		if t == "" {
			return usageErrorf("--drop-custom needs a customType")
		}
	}
	return nil
}
