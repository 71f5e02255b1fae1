package cli

import (
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/session"
)

// Each command binds its flags to the fields of one struct of its own
// (urfave/cli's Destination), built with the command, and its code reads
// that struct: a flag's name is written once, where it is defined. The
// groups of flags that several commands share are the types below.

// globals are the flags every command takes, before or after its name.
type globals struct{ noColor, quiet bool }

func (g *globals) flags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-color", Usage: "never colour the output (NO_COLOR is honoured too)", Destination: &g.noColor},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print errors only: no warnings, summaries or progress", Destination: &g.quiet},
	}
}

// pathFlags are the flags of the commands that take many paths.
type pathFlags struct {
	allowEmpty  bool
	sessionsDir string
}

func (p *pathFlags) flags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "allow-empty", Usage: "a directory with no session files is not an error", Destination: &p.allowEmpty},
		&cli.StringFlag{Name: "sessions-dir", Usage: "the sessions `DIR` read when no PATH is given", DefaultText: "as pi: PI_CODING_AGENT_SESSION_DIR, else sessionDir in settings.json, else <agent dir>/sessions", Destination: &p.sessionsDir},
	}
}

// limitFlags are the parser limits.
type limitFlags struct{ maxLine, maxFile byteSize }

func (l *limitFlags) flags() []cli.Flag {
	def := session.DefaultLimits()
	return []cli.Flag{
		sizeFlag(&l.maxLine, "max-line-bytes", int64(def.MaxLineBytes), "longest line accepted"),
		sizeFlag(&l.maxFile, "max-file-bytes", def.MaxFileBytes, "largest file accepted, 0 for no limit"),
	}
}

// limits checks the limits given.
func (l *limitFlags) limits() (session.Limits, error) {
	if l.maxLine <= 0 || l.maxLine > math.MaxInt32 {
		return session.Limits{}, usageErrorf("--max-line-bytes must be from 1 byte to 2GiB")
	}
	return session.Limits{MaxLineBytes: int(l.maxLine), MaxFileBytes: int64(l.maxFile)}, nil
}

// sizeFlag is a byte-size flag read into dest, def by default.
func sizeFlag(dest *byteSize, name string, def int64, usage string) cli.Flag {
	*dest = byteSize(def)
	return &cli.GenericFlag{Name: name, Value: dest, Usage: usage + " (bytes, or with KiB, MiB, GiB, KB, MB, GB)"}
}

// jobsFlag is --jobs, default the number of CPUs.
func jobsFlag(dest *int) cli.Flag {
	return &cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "files processed in parallel", Destination: dest}
}

// workers is --jobs, at least 1.
func workers(jobs int) int { return max(jobs, 1) }

// widthFlag is --width: the columns text is cut to, when given.
type widthFlag struct {
	cols  int
	given bool
}

func (w *widthFlag) flag(usage, defaultText string) cli.Flag {
	return &cli.IntFlag{Name: "width", Usage: usage, DefaultText: defaultText, Destination: &w.cols, Action: given[int](&w.given)}
}

// checked is the width given: 0 (never cut) or more.
func (w widthFlag) checked() (int, error) {
	if w.cols < 0 {
		return 0, usageErrorf("--width must be 0 (never cut) or more, not %d", w.cols)
	}
	return w.cols, nil
}

// given is the action of a flag whose code must know that it was given
// (urfave/cli runs a flag's action only then): it sets *set.
func given[T any](set *bool) func(*cli.Context, T) error {
	return func(*cli.Context, T) error {
		*set = true
		return nil
	}
}

// formatFlag is --format with its choices, read into dest and checked
// before the command's action runs: a value not among them is a usage
// error.
func formatFlag(dest *string, usage string, choices ...string) cli.Flag {
	return &cli.StringFlag{Name: "format", Value: choices[0], Usage: usage, Destination: dest,
		Action: func(_ *cli.Context, v string) error {
			if slices.Contains(choices, v) {
				return nil
			}
			return usageErrorf("--format must be %s, not %q", orList(choices), v)
		}}
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
