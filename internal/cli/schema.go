package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/schema"
)

func (c *CLI) schemaCommand() *cli.Command {
	var list bool
	return c.command("schema", "print the embedded JSON Schemas (header, entry types, message roles)", "[TYPE]", []cli.Flag{
		&cli.BoolFlag{Name: "list", Aliases: []string{"l"}, Usage: "list the schema names", Destination: &list},
	}, func(ctx *cli.Context) error { return c.runSchema(ctx, list) })
}

func (c *CLI) runSchema(ctx *cli.Context, list bool) error {
	args := ctx.Args().Slice()
	switch {
	case list && len(args) > 0:
		return usageErrorf("--list takes no TYPE")
	case list:
		fmt.Fprintln(c.Stdout, strings.Join(schema.Names(), "\n"))
		return nil
	case len(args) == 0:
		args = schema.Names()
	}
	var names []string
	for _, word := range args {
		found := schema.Lookup(word)
		if len(found) == 0 {
			return usageErrorf("no schema %q; `pisess schema --list` lists them", word)
		}
		names = append(names, found...)
	}
	for _, name := range names {
		src, err := schema.Source(name)
		if err != nil {
			return usageErrorf("%v", err)
		}
		c.Stdout.Write(src)
		if len(src) > 0 && src[len(src)-1] != '\n' {
			fmt.Fprintln(c.Stdout)
		}
	}
	return nil
}
