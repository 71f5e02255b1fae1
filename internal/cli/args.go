package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"
)

// commandLine is a command line read in full before any command runs:
// urfave/cli, like the flag package, stops at the first positional
// argument, so flags typed after a path would be taken for paths. The
// whole line is read here against the command's flag set, and handed to
// urfave/cli in the order it expects.
//
// It is the first half of the one way flags are read, not a second
// parser: it knows only the names and aliases of the flags and which take
// a value, from the definitions themselves (flagTable), and so can reject
// an unknown flag with a suggestion; urfave/cli then parses every value
// once, into the command's flag struct (flags.go).
type commandLine struct {
	prog        string
	globals     []string // flags before the command name
	command     string   // "" when none was given
	flags       []string // the command's flags, values attached
	positionals []string
	help        bool // the command's --help is set
}

// args is the line in urfave/cli's order: flags first, then "--" so that
// no positional argument is ever read as a flag.
func (l *commandLine) args() []string {
	out := append([]string{l.prog}, l.globals...)
	if l.command == "" {
		return out
	}
	if l.help {
		// urfave/cli would take the first path for a help topic
		// ("No help topic for 'f.jsonl'"): the command's help is asked.
		return slices.Concat(out, []string{l.command, "--help"})
	}
	return slices.Concat(out, []string{l.command}, l.flags, []string{"--"}, l.positionals)
}

// asksHelp reports whether the flag arg (as typed) is --help or -h, set
// true, and whether it is a help flag at all.
func asksHelp(arg string) (isHelp, set bool) {
	name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	if !slices.Contains(cli.HelpFlag.Names(), name) {
		return false, false
	}
	on, err := strconv.ParseBool(value)
	return true, !hasValue || (err == nil && on)
}

// completionFlag is urfave/cli's shell-completion request, always last.
const completionFlag = "--generate-bash-completion"

// readCommandLine reads args against the application's commands and flags.
// An unknown command or flag, or a flag without its value, is a usage
// error that names the nearest valid spelling.
func readCommandLine(app *cli.App, args []string) (*commandLine, error) {
	l := &commandLine{prog: args[0]}
	rest := args[1:]
	global := flagTable(app.Flags)
	for len(rest) > 0 && isFlag(rest[0]) {
		n, err := take(rest, global, "pisess", &l.globals)
		if err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	if len(rest) == 0 {
		return l, nil
	}
	if rest[0] == "--" {
		return nil, usageErrorf("a command must come before `--` (see `pisess --help`)")
	}
	cmd := app.Command(rest[0]) // (a hidden command runs; it is only left out of the help and the suggestions)
	if cmd == nil {
		return nil, unknownCommand(app, rest[0])
	}
	l.command = cmd.Name
	local := flagTable(cmd.Flags)
	for i := 1; i < len(rest); {
		arg := rest[i]
		switch {
		case arg == "--":
			l.positionals = append(l.positionals, rest[i+1:]...)
			return l, nil
		case isFlag(arg):
			n, err := take(rest[i:], local, "pisess "+cmd.Name, &l.flags)
			if err != nil {
				return nil, err
			}
			if isHelp, set := asksHelp(arg); isHelp {
				l.help = set
			}
			i += n
		default:
			l.positionals = append(l.positionals, arg)
			i++
		}
	}
	return l, nil
}

// isFlag reports whether arg is spelt as a flag ("-" alone is standard
// input, "--" ends the flags).
func isFlag(arg string) bool {
	return len(arg) > 1 && arg[0] == '-' && arg != "--"
}

// flagTable maps every name and alias of flags (and of --help) to whether
// the flag takes a value.
func flagTable(flags []cli.Flag) map[string]bool {
	table := map[string]bool{}
	for _, f := range append(slices.Clip(flags), cli.HelpFlag) {
		v, ok := f.(cli.DocGenerationFlag)
		for _, n := range f.Names() {
			table[n] = ok && v.TakesValue()
		}
	}
	return table
}

// take reads the flag at args[0] (and its value from args[1] when it needs
// one and has no "="), appends it to into and returns how many arguments
// it used.
func take(args []string, table map[string]bool, where string, into *[]string) (int, error) {
	arg := args[0]
	name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	takesValue, ok := table[name]
	if !ok {
		return 0, unknownFlag(table, arg, name, where)
	}
	if !takesValue || hasValue {
		*into = append(*into, arg)
		return 1, nil
	}
	if len(args) < 2 {
		return 0, usageErrorf("flag %s needs a value (see `%s --help`)", arg, where)
	}
	*into = append(*into, arg, args[1])
	return 2, nil
}

// unknownCommand is the usage error for a command that does not exist.
func unknownCommand(app *cli.App, name string) error {
	var names []string
	for _, c := range app.VisibleCommands() {
		names = append(names, c.Names()...)
	}
	msg := fmt.Sprintf("unknown command %q", name)
	if s := suggest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return usageErrorf("%s (see `pisess --help`)", msg)
}

// unknownFlag is the usage error for a flag the command does not have.
func unknownFlag(table map[string]bool, arg, name, where string) error {
	names := make([]string, 0, len(table))
	for n := range table {
		if len(n) > 1 {
			names = append(names, n)
		}
	}
	msg := fmt.Sprintf("unknown flag %s", arg)
	if s := suggest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean --%s?", s)
	}
	return usageErrorf("%s (see `%s --help`)", msg, where)
}

// suggest returns the candidate nearest to word by edit distance, or ""
// when none is near: within two edits (a third for long words), or a
// candidate that word is a prefix of.
func suggest(word string, candidates []string) string {
	slices.Sort(candidates)
	best, bestDist := "", 0
	for _, c := range candidates {
		d := smetrics.WagnerFischer(strings.ToLower(word), c, 1, 1, 1)
		if best == "" || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := 2
	if len(word) >= 8 {
		limit = 3
	}
	if best != "" && bestDist <= limit {
		return best
	}
	for _, c := range candidates {
		if len(word) >= 2 && strings.HasPrefix(c, word) {
			return c
		}
	}
	return ""
}
