package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// runApp runs `pisess` with no command: --version, else the help.
func (c *CLI) runApp(ctx *cli.Context) error {
	if ctx.Bool("version") {
		fmt.Fprintf(c.Stdout, "pisess %s\n", versionString())
		return nil
	}
	return cli.ShowAppHelp(ctx)
}

func (c *CLI) helpCommand() *cli.Command {
	cmd := command("help", "show the help of pisess or of a command", "[COMMAND]", nil, c.runHelp)
	cmd.Description = `Examples:
   pisess help
   pisess help audit`
	return cmd
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
	if findCommand(ctx.App.Commands, args[0]) == nil {
		return unknownCommand(ctx.App.Commands, args[0])
	}
	return cli.ShowCommandHelp(app, args[0])
}

func (c *CLI) versionCommand() *cli.Command {
	cmd := command("version", "print the version of pisess and of the Go toolchain that built it", "", nil, c.runVersion)
	cmd.Description = "The same as `pisess --version`, with the Go version and platform."
	return cmd
}

func (c *CLI) runVersion(ctx *cli.Context) error {
	if ctx.Args().Present() {
		return usageErrorf("version takes no arguments")
	}
	fmt.Fprintf(c.Stdout, "pisess %s\n%s %s/%s\n", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// versionString is the module version from the build information (set by
// `go install …@version`), else the VCS revision and time the binary was
// built from (set by `go build` in a checkout), else "devel" with the
// reason no version is known.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel (no build information)"
	}
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
		return "devel (built without version control information)"
	}
	return fmt.Sprintf("devel (revision %s, %s%s)", rev[:min(12, len(rev))], at, dirty)
}

func (c *CLI) completionCommand() *cli.Command {
	cmd := command("completion", "print a shell completion script for bash, zsh or fish", "SHELL", nil, c.runCompletion)
	cmd.Description = `Commands and flags complete; paths complete as files.

Examples:
   source <(pisess completion bash)                 # bash, this shell
   pisess completion bash > /etc/bash_completion.d/pisess
   pisess completion zsh > "${fpath[1]}/_pisess"    # zsh
   pisess completion fish > ~/.config/fish/completions/pisess.fish`
	return cmd
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
