package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// The garbage collector's targets for the views (Go's default is 100):
// while the index is built, and then while the view is written. The
// index is most of the heap and lives to the end, and it holds few
// pointers (project.Entry), so a cycle costs little: a low target keeps
// the peak near the index's size, and a higher one while it grows spares
// the cycles its growth alone would set off.
const (
	indexGCPercent = 25
	viewGCPercent  = 8
	// At --width 0 a line is a whole text, decoded into the output: the
	// garbage is the texts', not the index's, and at 8 the collector ran
	// for a quarter of tree's time (8.5 s against 6.2 s at 12 on the 1 GB
	// session of 269,177 entries, at 61-64 MiB of the 64.5 MiB bound).
	wholeViewGCPercent = 12
)

// collectAfter is the size of an entry past which the index's garbage is
// collected before the view is built: the bytes the index pass read such
// an entry into are garbage by then, and a view that reads the entry back
// would otherwise hold it twice.
const collectAfter = 16 << 20

// defaultWidth is the line width when stdout is not a terminal and COLUMNS
// is not set.
const defaultWidth = 100

// viewHelp is the part of the tree, path and context help that they share.
const viewHelp = `The leaf is the last entry of the file unless --leaf names another one
(a unique prefix of its id is enough, e.g. the 8 characters the views show).

Text output is cut to the width of the terminal (COLUMNS, else the
terminal's own width, else 100 columns when stdout is not a terminal, where
the line naming the file is never cut); --width 0 never cuts. Everything from the file is shown with control
characters escaped. --format json prints one JSON document on one line,
the stable form for scripts.

Exit codes: 0 shown; 1 the file is not a session (or is of an unsupported
version, or too large), or (path, context) a parentId cycle lies on the
leaf's path; 2 usage error (including a --leaf that names no entry) or the
file could not be read. On failure nothing is written to stdout.`

// viewFlags are the flags of tree, path and context (compact and depth
// tree's only).
type viewFlags struct {
	limits       limitFlags
	leaf, format string
	width        widthFlag
	compact      bool
	depth        int
}

func (f *viewFlags) flags(extra ...cli.Flag) []cli.Flag {
	return append(append(f.limits.flags(),
		&cli.StringFlag{Name: "leaf", Usage: "show the session as of the entry with this `ID` (or unique id prefix); default: the last entry", Destination: &f.leaf},
		formatFlag(&f.format, "text or json (one document, the stable form for scripts)", "text", "json"),
		f.width.flag("cut text lines to `N` columns; 0 never cuts", "COLUMNS, else the terminal's width, else 100"),
	), extra...)
}

func (c *CLI) treeCommand() *cli.Command {
	var f viewFlags
	return c.command("tree", "show the whole session tree: branches, labels, the active path and the leaf", "FILE", f.flags(
		&cli.BoolFlag{Name: "compact", Usage: "fold linear runs into one \"… N entries …\" line (text)", Destination: &f.compact},
		&cli.IntFlag{Name: "depth", Usage: "show branches nested at most `N` levels deep; deeper ones are summed up (text)", Destination: &f.depth},
	), func(ctx *cli.Context) error { return c.runTree(ctx, &f) })
}

func (c *CLI) pathCommand() *cli.Command {
	var f viewFlags
	return c.command("path", "list the entries from the root to the leaf", "FILE", f.flags(),
		func(ctx *cli.Context) error { return c.runPath(ctx, &f) })
}

func (c *CLI) contextCommand() *cli.Command {
	var f viewFlags
	return c.command("context", "show the model context pi builds for the leaf (what the model is sent)", "FILE", f.flags(),
		func(ctx *cli.Context) error { return c.runContext(ctx, &f) })
}

// view is one tree, path or context invocation, with the session indexed
// and the leaf resolved.
type view struct {
	session *project.Session
	leaf    *project.Entry
	file    string
	format  string
	opts    render.ViewOptions
}

func (c *CLI) runTree(ctx *cli.Context, f *viewFlags) error {
	if f.depth < 0 {
		return usageErrorf("--depth must be 0 (all) or more, not %d", f.depth)
	}
	return c.showView(ctx, f, true, func(v *view) error {
		v.opts.Compact, v.opts.Depth = f.compact, f.depth
		return c.emit(v.session.Described(), func(out io.Writer) error {
			if v.format == "json" {
				return render.TreeJSON(out, v.session, v.leaf)
			}
			return render.Tree(out, v.session, v.leaf, v.opts)
		})
	})
}

func (c *CLI) runPath(ctx *cli.Context, f *viewFlags) error {
	return c.showView(ctx, f, true, func(v *view) error {
		path, err := v.session.Path(v.leaf)
		if err != nil {
			return v.pathError(err)
		}
		return c.emit(v.session.Described(), func(out io.Writer) error {
			if v.format == "json" {
				return render.PathJSON(out, v.session, v.leaf, path)
			}
			return render.Path(out, v.session, path, v.opts)
		})
	})
}

func (c *CLI) runContext(ctx *cli.Context, f *viewFlags) error {
	return c.showView(ctx, f, false, func(v *view) error {
		pc, err := v.session.Context(v.leaf)
		if err != nil {
			return v.pathError(err)
		}
		return c.emit(false, func(out io.Writer) error {
			if v.format == "json" {
				return render.ContextJSON(out, pc)
			}
			return render.Context(out, pc, v.opts)
		})
	})
}

// emit writes a view to stdout: all of it, or nothing when it could not
// be built. The output is held in a spool (memory, then a temporary file
// past spoolMemory) until write has finished, unless the view cannot fail
// (sure: it reads nothing back from the file, all it shows is in the
// index), when it goes straight out.
func (c *CLI) emit(sure bool, write func(io.Writer) error) error {
	if sure {
		e := newEscaper(c.Stdout)
		if err := write(e); err != nil && e.err == nil {
			return &ExitError{Code: ExitInvalid, Err: err}
		}
		if err := e.flush(true); err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the output: %w", err)}
		}
		return nil
	}
	var sp safefile.Spool
	defer sp.Close()
	if err := write(&sp); err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	if err := copyEscaped(c.Stdout, &sp); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the output: %w", err)}
	}
	return nil
}

// showView checks the arguments, indexes the file and resolves the leaf
// (open), then shows the view with show. With lines (tree, path) the index
// describes every entry for its line.
func (c *CLI) showView(ctx *cli.Context, f *viewFlags, lines bool, show func(*view) error) error {
	file, err := oneFile(ctx)
	if err != nil {
		return err
	}
	v := &view{file: file, format: f.format}
	width, err := c.width(f.width)
	if err != nil {
		return err
	}
	lim, err := f.limits.limits()
	if err != nil {
		return err
	}
	debug.SetGCPercent(indexGCPercent)
	// Piped with no width asked for, the line naming the file is whole.
	whole := !c.IsTerminal(c.Stdout) && !f.width.given && c.Getenv("COLUMNS") == ""
	v.opts = render.ViewOptions{Width: width, Quiet: c.quiet(), WholeHeader: whole}
	var describe project.Describer
	if lines {
		describe = render.ViewDescriber(v.format == "json", v.opts)
	}
	if err := c.open(v, lim, describe, f.leaf); err != nil {
		return err
	}
	defer v.session.Close()
	if width == 0 {
		debug.SetGCPercent(wholeViewGCPercent)
	} else {
		debug.SetGCPercent(viewGCPercent)
	}
	if v.session.Largest() > collectAfter {
		runtime.GC()
	}
	v.opts.Style, v.opts.File = c.style(c.Stdout), v.file
	return show(v)
}

// open indexes v.file for a view or export (describe: each entry, for its
// line) and resolves --leaf, then warns of the lines that hold no entry,
// unless --quiet. Standard input ("-") and a pipe are spooled to a
// temporary file first, so records can be read back from them.
func (c *CLI) open(v *view, lim session.Limits, describe project.Describer, leaf string) error {
	var err error
	switch {
	case v.file == "-":
		v.file = stdinName
		v.session, err = c.openSpooled(c.Stdin, lim, describe)
	case isPipe(v.file):
		v.session, err = c.openPipe(v.file, lim, describe)
	default:
		v.session, err = project.OpenDescribed(v.file, lim, describe)
	}
	if v.session, err = project.RefuseAsPi(v.session, err); err != nil {
		return v.loadError(err)
	}
	if v.leaf, err = resolveLeaf(v.session, leaf); err != nil {
		v.session.Close()
		return usageErrorf("%s: %v", v.file, err)
	}
	if !c.quiet() && len(v.session.Skipped) > 0 {
		fmt.Fprintf(c.Stderr, "pisess: warning: %s: %s no entry (blank, torn or corrupt: `pisess validate %s` explains)\n",
			text.Safe(v.file), skippedLines(v.session.Skipped), text.Safe(v.file))
	}
	return nil
}

// isPipe says whether name is a pipe, a socket or a character device
// (<(…), /dev/stdin, a FIFO): read once, it cannot be read back.
func isPipe(name string) bool {
	info, err := os.Stat(name)
	return err == nil && info.Mode()&(os.ModeNamedPipe|os.ModeSocket|os.ModeCharDevice) != 0
}

// openPipe spools the pipe at name, as standard input is. It opens it as
// session.OpenFile does, so a FIFO that no process writes reads as empty
// instead of hanging the view.
func (c *CLI) openPipe(name string, lim session.Limits, describe project.Describer) (*project.Session, error) {
	f, err := session.OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return c.openSpooled(f, lim, describe)
}

// openSpooled copies in to a scratch file (removed once the index has it
// open, which keeps it readable; Ctrl-C meanwhile removes it too) and
// indexes that, so that records can be read back.
func (c *CLI) openSpooled(in io.Reader, lim session.Limits, describe project.Describer) (*project.Session, error) {
	temps := &safefile.Temps{}
	defer temps.RemoveOnSignal(safefile.OS(), c.Exit)()
	f, err := safefile.Scratch(temps, "pisess-stdin-*.jsonl")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if lim.MaxFileBytes > 0 {
		in = io.LimitReader(in, lim.MaxFileBytes+1) // one byte more: the index pass reports the file too large
	}
	if _, err := io.Copy(f, in); err != nil {
		return nil, err
	}
	return project.OpenDescribed(f.Name(), lim, describe)
}

// width is --width when given, else COLUMNS, else the terminal's width,
// else defaultWidth.
func (c *CLI) width(width widthFlag) (int, error) {
	if width.given {
		return width.checked()
	}
	return cmp.Or(c.columns(), defaultWidth), nil
}

// columns is COLUMNS, else the width of the terminal stdout is, else 0.
func (c *CLI) columns() int {
	if cols, err := strconv.Atoi(strings.TrimSpace(c.Getenv("COLUMNS"))); err == nil && cols > 0 {
		return cols
	}
	if f, ok := c.Stdout.(interface{ Fd() uintptr }); ok && c.IsTerminal(c.Stdout) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}

// loadError maps a load failure to its exit code: a file that cannot be
// read is exit 2, one that is not a session (or too large) exit 1.
func (v *view) loadError(err error) error {
	var he *project.HeaderError
	switch {
	case errors.As(err, &he):
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%d: %s: %s", v.file, he.Line, he.Code, he.Msg)}
	case errors.Is(err, session.ErrFileTooLarge):
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s: %s: %v", v.file, finding.FileTooLarge, err)}
	}
	return &ExitError{Code: ExitUsage, Err: err}
}

// pathError reports a parentId cycle on the leaf's path (exit 1).
func (v *view) pathError(err error) error {
	var ce *project.CycleError
	if errors.As(err, &ce) {
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%d: %s: %v", v.file, ce.Line, finding.ParentCycle, ce)}
	}
	return &ExitError{Code: ExitInvalid, Err: err}
}

// resolveLeaf resolves --leaf: "" is the default leaf, an exact id wins,
// else a prefix that starts exactly one entry's id.
func resolveLeaf(s *project.Session, id string) (*project.Entry, error) {
	e, err := s.Leaf(id)
	var unknown *project.UnknownEntryError
	if err == nil || !errors.As(err, &unknown) {
		return e, err
	}
	var ids []string
	for _, e := range s.Entries {
		if e.ID() != "" && strings.HasPrefix(e.ID(), id) {
			ids = append(ids, e.ID())
		}
	}
	slices.Sort(ids)
	switch ids = slices.Compact(ids); len(ids) {
	case 0:
		return nil, fmt.Errorf("--leaf %q names no entry", id)
	case 1:
		return s.Leaf(ids[0])
	}
	n := len(ids)
	if n > 5 {
		ids = append(ids[:5], "…")
	}
	return nil, fmt.Errorf("--leaf %q is ambiguous: it starts %d entry ids (%s)", id, n, strings.Join(ids, ", "))
}

// skippedLines describes the lines that held no entry: "line 7 holds" or
// "3 lines (7, 9, 12) hold".
func skippedLines(lines []int) string {
	if len(lines) == 1 {
		return fmt.Sprintf("line %d holds", lines[0])
	}
	nums := make([]string, 0, 4)
	for i, n := range lines {
		if i == 3 {
			nums = append(nums, "…")
			break
		}
		nums = append(nums, strconv.Itoa(n))
	}
	return fmt.Sprintf("%d lines (%s) hold", len(lines), strings.Join(nums, ", "))
}
