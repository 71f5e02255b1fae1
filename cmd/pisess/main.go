// Command pisess validates, migrates, repairs and inspects pi coding-agent
// session files.
package main

import (
	"os"

	"github.com/pisess/pisess/internal/cli"
)

func main() {
	os.Exit(cli.Run())
}
