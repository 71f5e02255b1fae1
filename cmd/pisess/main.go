// Command pisess validates, migrates, repairs and inspects pi coding-agent
// session files.
package main

import (
	"os"

	"github.com/pisess/pisess/internal/cli"
)

// Set at link time by `make build` and the release (-ldflags -X); empty in
// any other build, where pisess reads the module version or VCS revision
// from the build information instead.
var (
	version string
	commit  string
	date    string
)

func main() {
	os.Exit(cli.Run(cli.Build{Version: version, Commit: commit, Date: date}, os.Exit))
}
