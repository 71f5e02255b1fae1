package cli

import "github.com/urfave/cli/v2"

// Commands not written yet: each moves to its own file when it lands.

func notYet(name string) *cli.Command {
	return command(name, "(not implemented yet)", "", nil, func(*cli.Context) error {
		return usageErrorf("%s is not implemented yet", name)
	})
}

func (c *CLI) treeCommand() *cli.Command    { return notYet("tree") }
func (c *CLI) pathCommand() *cli.Command    { return notYet("path") }
func (c *CLI) contextCommand() *cli.Command { return notYet("context") }
