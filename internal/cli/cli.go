// Package cli is the pisess command line: it parses arguments, runs the
// commands and maps their outcome to an exit code. Its streams and
// environment are injected, so tests run it in-process.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/pisess/pisess/internal/text"
)

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

// exitCoder is an error that knows its exit code (as in gojq): an
// *ExitError, and the typed errors of the packages below (migrate's).
type exitCoder interface{ ExitCode() int }

// ExitCode is the exit code the error asks for.
func (e *ExitError) ExitCode() int { return e.Code }

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

// exitWith is the exit code of a failure already reported; nil for ExitOK.
func exitWith(code int) error {
	if code == ExitOK {
		return nil
	}
	return &ExitError{Code: code}
}

// filesExit is the exit code of a command over many files, their failures
// already reported: 2 when one could not be read, else 1 when one failed.
func filesExit(unreadable int, failed bool) error {
	switch {
	case unreadable > 0:
		return exitWith(ExitUsage)
	case failed:
		return exitWith(ExitInvalid)
	}
	return nil
}

// CLI is one invocation's environment.
type CLI struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// IsTerminal reports whether w is a terminal (colour, progress bars).
	IsTerminal func(w io.Writer) bool
	// Now is the clock, and Random the source of new ids (fork): tests
	// fix both. A nil Now is time.Now (Run sees to it), a nil Random
	// crypto/rand.
	Now    func() time.Time
	Random io.Reader
	// Build is what the linker stamped into the binary (zero in tests and
	// plain go builds: the build information is read instead).
	Build Build
	// Exit ends the process (main's os.Exit): only a Ctrl-C handler calls
	// it, where the signal cannot be sent again once the temp files are
	// removed (safefile.Temps.RemoveOnSignal). Nil in tests.
	Exit func(code int)

	// The flags of this invocation that are not one command's own: the
	// global flags given before the command name and after it (each
	// bound apart: a command's flag set resets what it is bound to), and
	// the path flags of the commands that take many paths.
	appGlobals, cmdGlobals globals
	paths                  pathFlags

	targets    []target // the files the command's paths name (resolvePaths)
	staleTemps []string // temp files of an interrupted rewrite found there
}

// Run runs pisess on the process's arguments, streams and environment and
// returns the exit code; exit is os.Exit, which main alone calls and hands
// down for the Ctrl-C handler (CLI.Exit).
// It sets no memory limit: the reader collects before it makes a buffer
// for a long line, which frees what the previous pass over the file left
// (session.Reader), and a fixed soft limit below a long line's working set
// makes the collector run without end.
func Run(build Build, exit func(code int)) int {
	c := &CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, IsTerminal: isTerminal, Now: time.Now, Build: build, Exit: exit}
	return c.Run(os.Args)
}

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
	if run.Now == nil {
		run.Now = time.Now
	}
	run.IsTerminal = func(w io.Writer) bool {
		if w == io.Writer(out) {
			w = c.Stdout
		}
		return c.IsTerminal(w)
	}
	code := run.run(args)
	if out.err != nil && code != ExitUsage {
		fmt.Fprintf(c.Stderr, "pisess: writing the output: %s\n", text.Safe(out.err.Error()))
		return ExitUsage
	}
	return code
}

func (c *CLI) run(args []string) int {
	if len(args) == 0 {
		args = []string{"pisess"}
	}
	app := c.app()
	if args[len(args)-1] == completionFlag {
		// A completion request: urfave/cli answers it from the partial line.
		return c.exitCode(app.Run(args))
	}
	line, err := readCommandLine(app, args)
	if err != nil {
		return c.exitCode(err)
	}
	return c.exitCode(app.Run(line.args()))
}

// exitCode reports err on stderr and returns its exit code; it is the one
// place an error is mapped to one. The first error in err's chain that
// knows its code (an exitCoder) gives it, else err is a usage or I/O error
// (exit 2). An *ExitError reports its Err alone, and nothing when Err is
// nil: the reason was reported already.
func (c *CLI) exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var coded exitCoder
	if !errors.As(err, &coded) {
		coded = &ExitError{Code: ExitUsage, Err: err}
	}
	if exit, ok := coded.(*ExitError); ok {
		err = exit.Err
	}
	if err != nil {
		c.printError(err)
	}
	return coded.ExitCode()
}

// printError reports err on stderr, its text made safe for a terminal.
func (c *CLI) printError(err error) {
	fmt.Fprintf(c.Stderr, "pisess: %s\n", text.Safe(err.Error()))
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

// app is pisess's command tree. The commands that take many paths get the
// path flags and have their paths resolved before they run.
func (c *CLI) app() *cli.App {
	var version bool
	app := &cli.App{
		Name:        "pisess",
		Usage:       "validate, migrate, repair and inspect pi coding-agent session files",
		Version:     c.Build.String(),
		HideVersion: true, // --version is one of the Flags
		// --help is listed here because urfave/cli adds it only to an app
		// without a command named help, and pisess has one: without it
		// `pisess --help` was a flag error (exit 2).
		Flags:                append(c.appGlobals.flags(), &cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the version", Destination: &version}, cli.HelpFlag),
		Reader:               c.Stdin,
		Writer:               c.Stdout,
		ErrWriter:            c.Stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: true,
		ExitErrHandler:       func(*cli.Context, error) {}, // Run maps errors to codes
		OnUsageError:         flagError("pisess"),
		Action:               func(ctx *cli.Context) error { return c.runApp(ctx, version) },
		Commands: []*cli.Command{
			c.validateCommand(),
			c.migrateCommand(),
			c.repairCommand(),
			c.treeCommand(),
			c.pathCommand(),
			c.contextCommand(),
			c.auditCommand(),
			c.duCommand(),
			c.schemaCommand(),
			c.helpCommand(),
			c.versionCommand(),
			c.completionCommand(),
			c.manCommand(),
			c.unstickCommand(),
			c.slimCommand(),
			c.forkCommand(),
			c.recoverHeaderCommand(),
			c.exportCommand(),
			c.scanCommand(),
			c.redactCommand(),
			c.grepCommand(),
			c.moveCommand(),
			c.pruneCommand(),
		},
	}
	addHelp(app.Commands)
	for _, cmd := range app.Commands {
		if cmd.ArgsUsage == "[PATH...]" {
			cmd.Flags = append(cmd.Flags, c.paths.flags()...)
			cmd.Before = func(ctx *cli.Context) error { return c.resolvePaths(ctx, ctx.Args().Slice()) }
		}
	}
	return app
}

// command builds a command with the global flags repeated on it, so they
// work after the command name too.
func (c *CLI) command(name, usage, argsUsage string, flags []cli.Flag, action cli.ActionFunc) *cli.Command {
	return &cli.Command{
		Name:            name,
		Usage:           usage,
		ArgsUsage:       argsUsage,
		Flags:           append(flags, c.cmdGlobals.flags()...),
		Action:          action,
		HideHelpCommand: true, // `pisess validate help` is a file named help
		OnUsageError:    flagError("pisess " + name),
	}
}

// flagError makes a flag parse error a usage error that points to the help
// of where, with flags spelt as users type them: the flag package writes
// -format for --format.
func flagError(where string) cli.OnUsageErrorFunc {
	return func(_ *cli.Context, err error, _ bool) error {
		return usageErrorf("%s (see `%s --help`)", strings.ReplaceAll(err.Error(), "for flag -", "for --"), where)
	}
}

// quiet is --quiet, before or after the command name.
func (c *CLI) quiet() bool { return c.appGlobals.quiet || c.cmdGlobals.quiet }

// style returns the colour style for w: none with --no-color (before or
// after the command name), NO_COLOR or when w is no terminal.
func (c *CLI) style(w io.Writer) text.Style {
	off := c.appGlobals.noColor || c.cmdGlobals.noColor || c.Getenv("NO_COLOR") != "" || !c.IsTerminal(w)
	return text.NewStyle(!off)
}
