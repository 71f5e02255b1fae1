package cli

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// runApp runs `pisess` with no command: --version, else the help.
func (c *CLI) runApp(ctx *cli.Context, version bool) error {
	if version {
		fmt.Fprintf(c.Stdout, "pisess %s\n", c.Build)
		return nil
	}
	return cli.ShowAppHelp(ctx)
}

func (c *CLI) helpCommand() *cli.Command {
	return c.command("help", "show the help of pisess or of a command", "[COMMAND]", nil, c.runHelp)
}

func (c *CLI) runHelp(ctx *cli.Context) error {
	app := ctx.Lineage()[1]
	args := ctx.Args().Slice()
	switch {
	case len(args) == 0:
		return cli.ShowAppHelp(app)
	case len(args) > 1:
		return usageErrorf("help takes one COMMAND, not %d", len(args))
	}
	if ctx.App.Command(args[0]) == nil {
		return unknownCommand(ctx.App, args[0])
	}
	return cli.ShowCommandHelp(app, args[0])
}

func (c *CLI) versionCommand() *cli.Command {
	return c.command("version", "print the version of pisess and of the Go toolchain that built it", "", nil, c.runVersion)
}

func (c *CLI) runVersion(ctx *cli.Context) error {
	if ctx.Args().Present() {
		return usageErrorf("version takes no arguments")
	}
	fmt.Fprintf(c.Stdout, "pisess %s\n%s %s/%s\n", c.Build, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// Build names the binary: what the linker stamped (-X main.version and
// friends, set by make build and the release).
type Build struct {
	Version string // a release tag, or git describe's name of the commit
	Commit  string // the full commit hash
	Date    string // the commit's date (RFC 3339)
}

// String is the stamped version with its commit and date; else the module
// version from the build information (set by `go install …@version`), else
// the VCS revision and time (set by `go build` in a checkout unless
// -buildvcs=false), else "devel" with the reason no version is known.
func (b Build) String() string {
	if b.Version != "" || b.Commit != "" {
		return b.stamped()
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel (no build information)"
	}
	return fromBuildInfo(info)
}

func (b Build) stamped() string {
	version, details := cmp.Or(b.Version, "devel"), []string{}
	if b.Commit != "" && !strings.HasPrefix(b.Commit, strings.TrimSuffix(version, "-dirty")) {
		details = append(details, "commit "+b.Commit[:min(12, len(b.Commit))])
	}
	if b.Date != "" {
		details = append(details, b.Date)
	}
	if len(details) == 0 {
		return version
	}
	return version + " (" + strings.Join(details, ", ") + ")"
}

func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev == "" {
		return "devel (built without version control information: make build or go install …@version stamps one)"
	}
	return fmt.Sprintf("devel (revision %s, %s%s)", rev[:min(12, len(rev))], at, dirty)
}

// manCommand prints pisess's man page (section 1, roff) made from the
// command definitions; hidden, it is how the release makes pisess.1.
func (c *CLI) manCommand() *cli.Command {
	cmd := c.command("man", "print the man page (roff)", "", nil, c.runMan)
	cmd.Hidden = true
	return cmd
}

func (c *CLI) runMan(ctx *cli.Context) error {
	if ctx.Args().Present() {
		return usageErrorf("man takes no arguments")
	}
	page, err := ctx.App.ToManWithSection(1)
	if err != nil {
		return err
	}
	fmt.Fprint(c.Stdout, page)
	return nil
}

func (c *CLI) completionCommand() *cli.Command {
	return c.command("completion", "print a shell completion script for bash, zsh or fish", "SHELL", nil, c.runCompletion)
}

func (c *CLI) runCompletion(ctx *cli.Context) error {
	args := ctx.Args().Slice()
	if len(args) != 1 {
		return usageErrorf("completion takes one SHELL: bash, zsh or fish")
	}
	switch args[0] {
	case "bash":
		fmt.Fprint(c.Stdout, bashCompletion)
	case "zsh":
		fmt.Fprint(c.Stdout, zshCompletion)
	case "fish":
		script, err := ctx.App.ToFishCompletion()
		if err != nil {
			return err
		}
		fmt.Fprint(c.Stdout, strings.TrimRight(script, "\n")+"\n")
	default:
		return usageErrorf("no completion for shell %q: bash, zsh or fish", args[0])
	}
	return nil
}

// bashCompletion asks pisess itself for the words (urfave/cli's
// --generate-bash-completion) and falls back to file names.
const bashCompletion = `# bash completion for pisess: source <(pisess completion bash)
_pisess_complete() {
  local cur words
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  local opts
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -F _pisess_complete pisess
`

// zshCompletion is the same for zsh.
const zshCompletion = `#compdef pisess
# zsh completion for pisess: pisess completion zsh > "${fpath[1]}/_pisess"
_pisess() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
if [[ "$funcstack[1]" == "_pisess" ]]; then
  _pisess "$@"
else
  compdef _pisess pisess
fi
`
