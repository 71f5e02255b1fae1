package cli

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/fix"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/sessdir"
	pisession "github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// moveFlags are move's flags.
type moveFlags struct {
	from, to, sessionsDir string
	dryRun, backup        bool
	format                string
}

func (c *CLI) moveCommand() *cli.Command {
	var f moveFlags
	return c.command("move", "move a project's sessions to its new directory, where pi looks for them", "",
		[]cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the project's old `DIR`", Destination: &f.from},
			&cli.StringFlag{Name: "to", Usage: "the project's new `DIR`", Destination: &f.to},
			&cli.StringFlag{Name: "sessions-dir", Usage: "the sessions `DIR`", DefaultText: "as pi: PI_CODING_AGENT_SESSION_DIR, else sessionDir in settings.json, else <agent dir>/sessions", Destination: &f.sessionsDir},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "write nothing; list every change", Destination: &f.dryRun},
			&cli.BoolFlag{Name: "backup", Usage: "keep each rewritten file's original as FILE.bak", Destination: &f.backup},
			formatFlag(&f.format, "text or json (one object per file)", "text", "json"),
		}, func(ctx *cli.Context) error { return c.runMove(ctx, &f) })
}

func (c *CLI) runMove(ctx *cli.Context, f *moveFlags) error {
	if ctx.Args().Len() > 0 {
		return usageErrorf("move takes no PATH: name the project with --from and --to, the sessions with --sessions-dir")
	}
	from, to, err := moveEnds(f.from, f.to)
	if err != nil {
		return err
	}
	dir, err := c.readSessionsDir(f.sessionsDir)
	if err != nil {
		return err
	}
	opts := sessdir.MoveOptions{Root: dir, From: from, To: to, DryRun: f.dryRun, Temps: &safefile.Temps{}, Skipped: c.warnSkipped}
	if f.backup {
		opts.BackupSuffix = fix.BackupSuffix
	}
	defer opts.Temps.RemoveOnSignal(safefile.OS(), c.Exit)() // Ctrl-C removes the temp file of a rewrite under way
	style := c.style(c.Stdout)
	var moved, updated int
	err = sessdir.Move(safefile.OS(), opts, func(ch sessdir.Change) {
		if ch.CwdBefore != ch.CwdAfter {
			moved++
		} else {
			updated++
		}
		render.MoveChange(c.Stdout, style, f.format, ch)
	})
	if f.format == "text" && !c.quiet() && err == nil {
		render.MoveSummary(c.Stdout, style, moved, updated, opts.DryRun)
	}
	return sessdirError(err)
}

// moveEnds reads --from and --to as pi resolves a cwd.
func moveEnds(from, to string) (string, string, error) {
	if from == "" || to == "" {
		return "", "", usageErrorf("move needs --from OLD and --to NEW (the project's directories)")
	}
	old, err := projectDir("move", "from", from)
	if err != nil {
		return "", "", err
	}
	dest, err := projectDir("move", "to", to)
	if err != nil {
		return "", "", err
	}
	switch {
	case old == dest:
		return "", "", usageErrorf("--from and --to name the same directory (%s)", old)
	case old == "/" || len(dest) > len(old) && dest[:len(old)+1] == old+"/":
		return "", "", usageErrorf("--to %s is inside --from %s: a second run would move the sessions again", dest, old)
	}
	return old, dest, nil
}

// warnSkipped warns of a file move or prune left alone, unless --quiet.
func (c *CLI) warnSkipped(err error) {
	if !c.quiet() {
		fmt.Fprintf(c.Stderr, "pisess: warning: %s: left where it is\n", text.Safe(err.Error()))
	}
}

// projectDir reads the project directory of command's flag name as pi resolves a
// cwd. A Windows path (C:\x, C:/x, \\host\share) away from Windows is
// refused: resolved here it would be a directory under the current one,
// and the headers would name that.
func projectDir(command, name, dir string) (string, error) {
	if runtime.GOOS != "windows" && windowsPath(dir) {
		return "", usageErrorf("--%s %q is a Windows path: run %s on Windows, where pi reads it", name, dir, command)
	}
	abs, err := pisession.PiCwd(dir)
	if err != nil {
		return "", usageErrorf("--%s: %v", name, err)
	}
	return abs, nil
}

// windowsPath reports whether dir is an absolute Windows path: a drive
// letter and a separator, or a UNC path.
func windowsPath(dir string) bool {
	if strings.HasPrefix(dir, `\\`) {
		return true
	}
	return len(dir) >= 3 && dir[1] == ':' && (dir[2] == '\\' || dir[2] == '/') &&
		('a' <= dir[0] && dir[0] <= 'z' || 'A' <= dir[0] && dir[0] <= 'Z')
}

// sessdirError gives a refusal exit code 1, anything else 2.
func sessdirError(err error) error {
	var refusal *sessdir.Refusal
	switch {
	case err == nil:
		return nil
	case errors.As(err, &refusal):
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("refused: %s", refusal.Error())}
	}
	var merr *safefile.Error
	if errors.As(err, &merr) && merr.Code == safefile.ChangedDuringRewrite {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	return &ExitError{Code: ExitUsage, Err: err}
}

// pruneFlags are prune's flags.
type pruneFlags struct {
	olderThan, largerThan, project string
	withForks, delete              bool
	sessionsDir                    string
	dryRun                         bool
	format                         string
}

func (c *CLI) pruneCommand() *cli.Command {
	var f pruneFlags
	return c.command("prune", "take old sessions out of the sessions directory, into a trash directory or deleted", "",
		[]cli.Flag{
			&cli.StringFlag{Name: "older-than", Usage: "prune sessions whose last entry is older than `AGE` (30d, 12w, 36h)", Destination: &f.olderThan},
			&cli.StringFlag{Name: "larger-than", Usage: "and larger than `SIZE` (500KB, 10MiB)", Destination: &f.largerThan},
			&cli.StringFlag{Name: "project", Usage: "only sessions whose cwd is `DIR` or inside it", Destination: &f.project},
			&cli.BoolFlag{Name: "with-forks", Usage: "prune the forks of a pruned session with it, instead of keeping a session a kept session forks from", Destination: &f.withForks},
			&cli.BoolFlag{Name: "delete", Usage: "delete the sessions instead of moving them to the trash directory", Destination: &f.delete},
			&cli.StringFlag{Name: "sessions-dir", Usage: "the sessions `DIR`", DefaultText: "as pi: PI_CODING_AGENT_SESSION_DIR, else sessionDir in settings.json, else <agent dir>/sessions", Destination: &f.sessionsDir},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "change nothing; list what would be pruned", Destination: &f.dryRun},
			formatFlag(&f.format, "text or json (one object per session)", "text", "json"),
		}, func(ctx *cli.Context) error { return c.runPrune(ctx, &f) })
}

func (c *CLI) runPrune(ctx *cli.Context, f *pruneFlags) error {
	if ctx.Args().Len() > 0 {
		return usageErrorf("prune takes no PATH: name the sessions directory with --sessions-dir")
	}
	opts, err := f.options(c.Now())
	if err != nil {
		return err
	}
	if opts.Root, err = c.readSessionsDir(f.sessionsDir); err != nil {
		return err
	}
	opts.Skipped = c.warnSkipped
	style := c.style(c.Stdout)
	var count int
	var bytes int64
	err = sessdir.Prune(safefile.OS(), opts, func(p sessdir.Pruned) {
		count++
		bytes += p.Bytes
		render.PrunedSession(c.Stdout, style, f.format, p)
	})
	if f.format == "text" && !c.quiet() && (err == nil || count > 0) {
		render.PruneSummary(c.Stdout, style, count, bytes, opts, sessdir.Trash(opts.Root))
	}
	return sessdirError(err)
}

// options are the prune options of the flags, at the time now.
func (f *pruneFlags) options(now time.Time) (sessdir.PruneOptions, error) {
	opts := sessdir.PruneOptions{WithForks: f.withForks, Delete: f.delete, DryRun: f.dryRun, Now: now}
	age := f.olderThan
	if age == "" {
		return opts, usageErrorf("prune needs --older-than AGE (30d, 12w, 36h)")
	}
	var err error
	if opts.OlderThan, err = parseAge(age); err != nil {
		return opts, usageErrorf("--older-than: %v", err)
	}
	if s := f.largerThan; s != "" {
		n, err := humanize.ParseBytes(s)
		if err != nil || n > math.MaxInt64 {
			return opts, usageErrorf("--larger-than must be a size such as 500KB or 10MiB, not %q", s)
		}
		opts.LargerThan = int64(n)
	}
	if p := f.project; p != "" {
		if opts.Project, err = projectDir("prune", "project", p); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// parseAge reads an age in days, weeks or hours (30d, 12w, 36h, 1.5d), or
// any Go duration (90m, 2h30m).
func parseAge(s string) (time.Duration, error) {
	units := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if s == "" {
		return 0, fmt.Errorf("an empty age")
	}
	if unit, ok := units[s[len(s)-1]]; ok {
		n, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err != nil || n < 0 || math.IsInf(n, 0) || n*float64(unit) > math.MaxInt64 {
			return 0, fmt.Errorf("%q is no age: a number of days, weeks or hours (30d, 12w, 36h)", s)
		}
		return time.Duration(n * float64(unit)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is no age: a number of days, weeks or hours (30d, 12w, 36h)", s)
	}
	return d, nil
}
