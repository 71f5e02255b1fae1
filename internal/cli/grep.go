package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/grep"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// grepFlags are grep's flags.
type grepFlags struct {
	limits                            limitFlags
	ignoreCase, fixedStrings          bool
	filesWithMatches, count, thinking bool
	role                              cli.StringSlice
	since, until, format              string
	jobs                              int
}

func (c *CLI) grepCommand() *cli.Command {
	var f grepFlags
	cmd := c.command("grep", "find text in sessions as a person reads it, in every branch", "PATTERN [PATH...]",
		append(append(f.limits.flags(),
			&cli.BoolFlag{Name: "ignore-case", Aliases: []string{"i"}, Usage: "letters match in either case", Destination: &f.ignoreCase},
			&cli.BoolFlag{Name: "fixed-strings", Aliases: []string{"F"}, Usage: "PATTERN is a plain string, not a regular expression", Destination: &f.fixedStrings},
			&cli.BoolFlag{Name: "files-with-matches", Aliases: []string{"l"}, Usage: "print only the names of files with a match", Destination: &f.filesWithMatches},
			&cli.BoolFlag{Name: "count", Aliases: []string{"c"}, Usage: "print only each file's number of matches", Destination: &f.count},
			&cli.BoolFlag{Name: "thinking", Usage: "search the assistant's thinking too", Destination: &f.thinking},
			&cli.StringSliceFlag{Name: "role", Usage: "only entries of `ROLE` (repeat or comma-separate: " + strings.Join(grep.Roles(), ", ") + ")", Destination: &f.role},
			&cli.StringFlag{Name: "since", Usage: "only entries from `TIME` on (YYYY-MM-DD in UTC, or RFC 3339)", Destination: &f.since},
			&cli.StringFlag{Name: "until", Usage: "only entries up to `TIME`, inclusive (YYYY-MM-DD in UTC, or RFC 3339)", Destination: &f.until},
			formatFlag(&f.format, "text or json (one object per match)", "text", "json"),
			jobsFlag(&f.jobs),
		), c.paths.flags()...), func(ctx *cli.Context) error { return c.runGrep(ctx, &f) })
	cmd.Before = c.resolveGrepTargets
	return cmd
}

// resolveGrepTargets resolves the paths after grep's PATTERN.
func (c *CLI) resolveGrepTargets(ctx *cli.Context) error {
	args := ctx.Args().Slice()
	if len(args) == 0 {
		return usageErrorf("grep needs a PATTERN (see `pisess grep --help`)")
	}
	return c.resolvePaths(ctx, args[1:])
}

// grepOutcome is one file's matches, or the error that stopped its search.
type grepOutcome struct {
	matches []grep.Match
	onPath  []bool // per match, when asked for
	tooLong []int
	err     error
}

func (c *CLI) runGrep(ctx *cli.Context, f *grepFlags) error {
	opts, err := f.options(ctx.Args().First())
	if err != nil {
		return err
	}
	m, err := grep.Compile(opts)
	if err != nil {
		return usageErrorf("%v", err)
	}
	format := f.format
	list, count := f.filesWithMatches, f.count
	needPath := format == "json" && !list && !count
	targets := c.targets
	style := c.style(c.Stdout)
	quiet := c.quiet()
	var matched, unreadable int
	ordered(len(targets), workers(f.jobs), func(i int) grepOutcome {
		return grepTarget(m, targets[i], opts.Limits, needPath)
	}, func(i int, o grepOutcome) {
		name := targets[i].Path
		if o.err != nil {
			unreadable++
			c.printError(o.err)
		}
		if len(o.tooLong) > 0 && !quiet {
			fmt.Fprintf(c.Stderr, "pisess: warning: %s: %s more than --max-line-bytes: not searched\n",
				text.Safe(name), skippedLines(o.tooLong))
		}
		matched += len(o.matches)
		switch {
		case count:
			render.GrepFile(c.Stdout, format, name, len(o.matches))
		case list:
			if len(o.matches) > 0 {
				render.GrepFile(c.Stdout, format, name, -1)
			}
		default:
			for k, x := range o.matches {
				render.GrepMatch(c.Stdout, style, format, name, x, needPath && o.onPath[k])
			}
		}
	})
	return filesExit(unreadable, matched == 0)
}

// options are the search options of pattern and grep's flags.
func (f *grepFlags) options(pattern string) (grep.Options, error) {
	lim, err := f.limits.limits()
	if err != nil {
		return grep.Options{}, err
	}
	opts := grep.Options{Pattern: pattern, Fixed: f.fixedStrings, IgnoreCase: f.ignoreCase,
		Thinking: f.thinking, Limits: lim}
	for _, r := range f.role.Value() {
		for _, one := range strings.Split(r, ",") {
			if !slices.Contains(grep.Roles(), one) {
				return opts, usageErrorf("--role %q is none of %s", one, strings.Join(grep.Roles(), ", "))
			}
			opts.Roles = append(opts.Roles, one)
		}
	}
	w, err := window(f.since, f.until, time.UTC)
	opts.Since, opts.Until = w.From, w.To
	return opts, err
}

// grepTarget searches one file. With needPath, or when a match has no
// entry id (a version-1 file), the file is indexed to say which matches
// are on the default leaf's path and what the entries' ids are.
func grepTarget(m *grep.Matcher, t target, lim session.Limits, needPath bool) grepOutcome {
	if t.Err != nil {
		return grepOutcome{err: t.Err}
	}
	f, err := session.OpenFile(t.Path)
	if err != nil {
		return grepOutcome{err: err}
	}
	defer f.Close()
	var o grepOutcome
	st, err := m.File(f, func(x grep.Match) { o.matches = append(o.matches, x) })
	o.tooLong = st.TooLong
	switch {
	case errors.Is(err, session.ErrFileTooLarge):
		o.err = fmt.Errorf("%s: %s: %w", t.Path, finding.FileTooLarge, err)
	case err != nil:
		o.err = fmt.Errorf("%s: %w", t.Path, err)
	}
	noID := slices.ContainsFunc(o.matches, func(x grep.Match) bool { return x.EntryID == "" })
	if len(o.matches) > 0 && (needPath || noID) {
		o.onPath = placeMatches(t.Path, lim, o.matches)
	}
	return o
}

// placeMatches indexes the file to tell which matches lie on the default
// leaf's path, and fills in the ids pi derives for version-1 entries. A
// file the index cannot read (or whose path is a cycle) has no match on
// the path.
func placeMatches(path string, lim session.Limits, matches []grep.Match) []bool {
	on := make([]bool, len(matches))
	s, err := project.Open(path, lim)
	if err != nil {
		return on
	}
	defer s.Close()
	byLine := map[int][]*project.Entry{}
	for _, e := range s.Entries {
		byLine[e.Line] = append(byLine[e.Line], e)
	}
	onPath := map[*project.Entry]bool{}
	if p, err := s.Path(s.DefaultLeaf()); err == nil {
		for _, e := range p {
			onPath[e] = true
		}
	}
	for k := range matches {
		x := &matches[k]
		for _, e := range byLine[x.Line] {
			if x.EntryID == "" || e.ID() == x.EntryID {
				x.EntryID = e.ID()
				on[k] = onPath[e]
				break
			}
		}
	}
	return on
}
