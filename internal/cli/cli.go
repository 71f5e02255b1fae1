// Package cli is the pisess command line: it parses arguments, runs the
// commands and maps their outcome to an exit code. Its streams and
// environment are injected, so tests run it in-process.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/pisess/pisess/internal/render"
)

// Version is the pisess version, set at build time with -ldflags.
var version = "dev"

// Exit codes (cli.md).
const (
	ExitOK      = 0 // success; every file checked is valid
	ExitInvalid = 1 // a file is invalid, or an operation was refused to protect data
	ExitUsage   = 2 // usage error, or a file could not be read or written
)

// ExitError carries the exit code of a failure. A nil Err means the reason
// was already reported (findings, refusals).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// usageErrorf returns a usage error (exit 2).
func usageErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// CLI is one invocation's environment.
type CLI struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// IsTerminal reports whether w is a terminal (colour, progress bars).
	IsTerminal func(w io.Writer) bool
}

// New returns a CLI on the process's own streams and environment.
func New() *CLI {
	return &CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, IsTerminal: isTerminal}
}

// Run runs pisess with the process's arguments and returns the exit code.
func Run() int {
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit makes the collector free one pass's line buffer
		// before the next pass grows its own (repair and migrate read a
		// file twice): peak memory stays near one --max-line-bytes line.
		debug.SetMemoryLimit(softMemoryLimit)
	}
	return New().Run(os.Args)
}

// softMemoryLimit is above the default line limit plus the working set.
const softMemoryLimit = 320 << 20

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Run runs the command line args (args[0] is the program name) and returns
// the exit code. Output that could not be written (a full disk, an I/O
// error) is an I/O error, exit 2, whatever the command found.
func (c *CLI) Run(args []string) int {
	out := &output{w: c.Stdout}
	run := *c
	run.Stdout = out
	run.IsTerminal = func(w io.Writer) bool {
		if w == io.Writer(out) {
			w = c.Stdout
		}
		return c.IsTerminal(w)
	}
	code := run.run(args)
	if out.err != nil && code != ExitUsage {
		fmt.Fprintf(c.Stderr, "pisess: writing the output: %s\n", render.Safe(out.err.Error()))
		return ExitUsage
	}
	return code
}

func (c *CLI) run(args []string) int {
	app := c.app()
	err := app.Run(args)
	if err == nil {
		return ExitOK
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		if exit.Err != nil {
			fmt.Fprintf(c.Stderr, "pisess: %s\n", render.Safe(exit.Err.Error()))
		}
		return exit.Code
	}
	fmt.Fprintf(c.Stderr, "pisess: %s\n", render.Safe(err.Error()))
	return ExitUsage
}

// output is standard output that remembers its first write error (the
// commands write results as they go and do not all check).
type output struct {
	w   io.Writer
	err error
}

func (o *output) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil && o.err == nil {
		o.err = err
	}
	return n, err
}

// Fd is the file descriptor of a file underneath (for the terminal width),
// else an invalid one.
func (o *output) Fd() uintptr {
	if f, ok := o.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// globalFlags are accepted before or after the command name.
func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-color", Usage: "never colour the output (NO_COLOR is honoured too)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print errors only: no warnings, summaries or progress"},
	}
}

func (c *CLI) app() *cli.App {
	return &cli.App{
		Name:                 "pisess",
		Usage:                "validate, migrate, repair and inspect pi coding-agent session files",
		Version:              version,
		Flags:                globalFlags(),
		Reader:               c.Stdin,
		Writer:               c.Stdout,
		ErrWriter:            c.Stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: false,
		ExitErrHandler:       func(*cli.Context, error) {}, // Run maps errors to codes
		OnUsageError: func(ctx *cli.Context, err error, _ bool) error {
			return usageErrorf("%v (see `pisess %s --help`)", err, ctx.Command.Name)
		},
		Commands: []*cli.Command{
			c.validateCommand(),
			c.migrateCommand(),
			c.repairCommand(),
			c.treeCommand(),
			c.pathCommand(),
			c.contextCommand(),
			c.auditCommand(),
			c.schemaCommand(),
		},
		CommandNotFound: func(ctx *cli.Context, name string) {
			fmt.Fprintf(c.Stderr, "pisess: unknown command %q (see `pisess --help`)\n", name)
		},
	}
}

// command builds a command with the global flags repeated on it, so they
// work after the command name too.
func command(name, usage, argsUsage string, flags []cli.Flag, action cli.ActionFunc) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: argsUsage,
		Flags:     append(flags, globalFlags()...),
		Action:    action,
		OnUsageError: func(ctx *cli.Context, err error, _ bool) error {
			return usageErrorf("%v (see `pisess %s --help`)", err, name)
		},
	}
}

// style returns the colour style for w under the context's flags.
func (c *CLI) style(ctx *cli.Context, w io.Writer) render.Style {
	off := globalBool(ctx, "no-color") || c.Getenv("NO_COLOR") != "" || !c.IsTerminal(w)
	return render.NewStyle(!off)
}

// jobsFlag is --jobs, default the number of CPUs.
func jobsFlag() cli.Flag {
	return &cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "files processed in parallel"}
}

// jobs reads --jobs, at least 1.
func jobs(ctx *cli.Context) int {
	if n := ctx.Int("jobs"); n > 0 {
		return n
	}
	return 1
}

// globalBool reads a global flag given before or after the command name:
// the command's own copy of the flag would hide the application's.
func globalBool(ctx *cli.Context, name string) bool {
	for _, c := range ctx.Lineage() {
		if c.Bool(name) {
			return true
		}
	}
	return false
}
