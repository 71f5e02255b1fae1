package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// sessionsDir is the default directory: $PI_CODING_AGENT_DIR/sessions, else
// ~/.pi/agent/sessions.
func (c *CLI) sessionsDir() string {
	if dir := c.Getenv("PI_CODING_AGENT_DIR"); dir != "" {
		return filepath.Join(dir, "sessions")
	}
	home := c.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".pi", "agent", "sessions")
}

// target is one file to process, or a path that could not be listed.
type target struct {
	Path string
	Err  error // the path could not be read (exit 2)
}

// expand turns path arguments into files: a file stands for itself, a
// directory for every *.jsonl below it (sorted; symbolic links to
// directories are not followed, so a link loop cannot trap the walk).
// No arguments means the sessions directory.
func (c *CLI) expand(args []string) []target {
	if len(args) == 0 {
		args = []string{c.sessionsDir()}
	}
	var out []target
	for _, arg := range args {
		info, err := os.Stat(arg)
		switch {
		case err != nil:
			out = append(out, target{Path: arg, Err: err})
		case info.IsDir():
			out = append(out, walk(arg)...)
		default:
			out = append(out, target{Path: arg})
		}
	}
	return out
}

// walk lists the *.jsonl files below dir in lexical order.
func walk(dir string) []target {
	var out []target
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			out = append(out, target{Path: path, Err: err})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, target{Path: path})
		}
		return nil
	})
	if err != nil {
		out = append(out, target{Path: dir, Err: err})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
