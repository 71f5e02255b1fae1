package cli

import (
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/grep"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/session"
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

// grepOutcome is one file's matches.
type grepOutcome struct {
	matches []grep.Match
	onPath  []bool // per match, when asked for
	tooLong []int
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
	needPath := f.format == "json" && !f.filesWithMatches && !f.count
	style := c.style(c.Stdout)
	var matched, unreadable int
	eachTarget(c.targets, f.jobs, func(t target) (grepOutcome, error) { return grepTarget(m, t, opts.Limits, needPath) },
		func(t target, o grepOutcome, err error) {
			if err != nil {
				unreadable++
				c.printError(err)
			}
			c.warnNotSearched(t.Path, o.tooLong)
			matched += len(o.matches)
			switch {
			case f.count:
				render.GrepFile(c.Stdout, f.format, t.Path, len(o.matches))
			case f.filesWithMatches:
				if len(o.matches) > 0 {
					render.GrepFile(c.Stdout, f.format, t.Path, -1)
				}
			default:
				for k, x := range o.matches {
					render.GrepMatch(c.Stdout, style, f.format, t.Path, x, needPath && o.onPath[k])
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
func grepTarget(m *grep.Matcher, t target, lim session.Limits, needPath bool) (grepOutcome, error) {
	var o grepOutcome
	f, err := session.OpenFile(t.Path)
	if err != nil {
		return o, err
	}
	defer f.Close()
	st, err := m.File(f, func(x grep.Match) { o.matches = append(o.matches, x) })
	o.tooLong = st.TooLong
	noID := slices.ContainsFunc(o.matches, func(x grep.Match) bool { return x.EntryID == "" })
	if len(o.matches) > 0 && (needPath || noID) {
		o.onPath = placeMatches(t.Path, lim, o.matches)
	}
	return o, fileError(t.Path, err)
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
