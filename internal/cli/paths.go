package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// stdinName is how standard input ("-") is named in reports.
const stdinName = "<stdin>"

// target is one file to process, or a path that could not be listed.
type target struct {
	Path  string
	Stdin bool  // the session is read from standard input ("-")
	Err   error // the path could not be read (exit 2)
}

// fileError names the file an error of reading it came from, with the
// code of a file over --max-file-bytes; nil stays nil.
func fileError(path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, session.ErrFileTooLarge):
		return fmt.Errorf("%s: %s: %w", path, finding.FileTooLarge, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// warnNotSearched warns, unless --quiet, of the lines of file that scan or
// grep did not search: those over --max-line-bytes.
func (c *CLI) warnNotSearched(file string, lines []int) {
	if len(lines) > 0 && !c.quiet() {
		fmt.Fprintf(c.Stderr, "pisess: warning: %s: %s more than --max-line-bytes: not searched\n", text.Safe(file), skippedLines(lines))
	}
}

// oneFile is the FILE argument of a command that takes exactly one.
func oneFile(ctx *cli.Context) (string, error) {
	args := ctx.Args().Slice()
	name := ctx.Command.Name
	switch {
	case len(args) == 0:
		return "", usageErrorf("%s needs a session FILE (see `pisess %s --help`)", name, name)
	case len(args) > 1:
		return "", usageErrorf("%s takes one FILE, not %d", name, len(args))
	}
	return args[0], nil
}

// resolvePaths expands the command's path arguments args (grep's come
// after its pattern) before the command does anything, so that a usage
// error (standard input where it cannot be read, a directory with no
// sessions) leaves everything as it was. Of the commands that take paths,
// validate and scan read standard input ("-"); the others do not.
func (c *CLI) resolvePaths(ctx *cli.Context, args []string) error {
	name := ctx.Command.Name
	stdin := 0
	for _, a := range args {
		if a != "-" {
			continue
		}
		if name != "validate" && name != "scan" {
			return usageErrorf("%s cannot read standard input (-): give it session files or directories", name)
		}
		if stdin++; stdin > 1 {
			return usageErrorf("standard input (-) can be read only once")
		}
	}
	if len(args) == 0 {
		dir, err := c.readSessionsDir(c.paths.sessionsDir)
		if err != nil {
			return err
		}
		args = []string{dir}
	}
	found, err := expandPaths(args, c.paths.allowEmpty)
	if err != nil {
		return err
	}
	c.targets, c.staleTemps = found.out, found.temps
	return nil
}

// expandPaths turns path arguments into files: a file stands for itself, a
// directory for every *.jsonl below it (sorted; links to directories are
// followed, each directory read once, so a loop cannot trap the walk). A
// file named twice, under any name, is processed once. A directory with no
// session file is a usage error unless allowEmpty. The walker returned
// holds the files and the temp files an interrupted rewrite left in the
// directories searched.
func expandPaths(args []string, allowEmpty bool) (*walker, error) {
	w := &walker{seenFiles: map[fileID]bool{}}
	for _, arg := range args {
		if arg == "-" {
			w.out = append(w.out, target{Path: stdinName, Stdin: true})
			continue
		}
		info, err := os.Stat(arg)
		switch {
		case err != nil:
			w.out = append(w.out, target{Path: arg, Err: err})
		case info.IsDir():
			w.seenDirs, w.sessions = map[fileID]bool{}, 0
			w.walk(arg, info)
			if w.sessions == 0 && !allowEmpty {
				return nil, usageErrorf("no pi session files (*.jsonl) under %s (--allow-empty accepts that)", arg)
			}
		default:
			w.add(arg, info)
		}
	}
	return w, nil
}

// fileID identifies a file whatever its name (see idOf, one per
// platform: device and inode on Unix, volume serial and file index on
// Windows).
type fileID struct{ dev, ino uint64 }

// walker lists the session files below directories.
type walker struct {
	seenFiles, seenDirs map[fileID]bool
	out                 []target
	temps               []string // temp files of the rewrite protocol
	sessions            int      // session files below the directory walked
}

// add adds the file at path unless it was added before under any name.
func (w *walker) add(path string, info fs.FileInfo) {
	if id, ok := idOf(path, info); ok {
		if w.seenFiles[id] {
			return
		}
		w.seenFiles[id] = true
	}
	w.out = append(w.out, target{Path: path})
}

// walk adds the *.jsonl regular files below dir (whose information is
// info, links followed) in lexical order (os.ReadDir's). Other files named *.jsonl
// (devices, pipes, sockets) would block or never end: they are reported,
// not read.
func (w *walker) walk(dir string, info fs.FileInfo) {
	if id, ok := idOf(dir, info); ok {
		if w.seenDirs[id] {
			return
		}
		w.seenDirs[id] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.out = append(w.out, target{Path: dir, Err: err})
		return
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		info, err := os.Stat(path) // follows links
		switch {
		case err != nil && e.Type()&fs.ModeSymlink != 0:
			continue // a dangling link is not a session
		case err != nil:
			w.out = append(w.out, target{Path: path, Err: err})
		case info.IsDir():
			w.walk(path, info)
		case safefile.IsTempName(e.Name()) && info.Mode().IsRegular():
			w.temps = append(w.temps, path)
		case !strings.HasSuffix(e.Name(), ".jsonl"):
		case !info.Mode().IsRegular():
			w.out = append(w.out, target{Path: path, Err: fmt.Errorf("%s: not a regular file (%s), not read", path, info.Mode().Type())})
		default:
			w.sessions++
			w.add(path, info)
		}
	}
}

// sessionsDir is the directory pi keeps its sessions in, and where that
// was read from, resolved as pi 1.6.0 does: --sessions-dir, else
// PI_CODING_AGENT_SESSION_DIR, else sessionDir in settings.json (the
// project's .pi/settings.json over the agent directory's), else
// <agent dir>/sessions, where the agent directory is PI_CODING_AGENT_DIR,
// else ~/.pi/agent.
type sessionsDir struct {
	path, source string
}

func (c *CLI) sessionsDir(flag string) (sessionsDir, error) {
	if flag != "" {
		return sessionsDir{c.expandTilde(flag), "--sessions-dir"}, nil
	}
	if env := c.Getenv("PI_CODING_AGENT_SESSION_DIR"); env != "" {
		return c.existing(sessionsDir{c.expandTilde(env), "PI_CODING_AGENT_SESSION_DIR"})
	}
	agent := filepath.Join(c.home(), ".pi", "agent")
	if env := c.Getenv("PI_CODING_AGENT_DIR"); env != "" {
		agent = c.expandTilde(env)
	}
	tried := []string{"PI_CODING_AGENT_SESSION_DIR (not set)"}
	for _, settings := range []string{filepath.Join(".pi", "settings.json"), filepath.Join(agent, "settings.json")} {
		dir, err := settingsSessionDir(settings)
		switch {
		case err != nil:
			// pi reads such a file as empty settings, and so do we.
			fmt.Fprintf(c.Stderr, "pisess: warning: %s: %s (read as no settings, as pi does)\n", text.Safe(settings), text.Safe(err.Error()))
		case dir != "":
			return c.existing(sessionsDir{c.expandTilde(dir), "sessionDir in " + settings})
		}
		tried = append(tried, "sessionDir in "+settings+" (not set)")
	}
	dir := sessionsDir{filepath.Join(agent, "sessions"), "the agent directory's sessions"}
	if _, err := os.Stat(dir.path); err != nil {
		tried = append(tried, dir.path+" (does not exist)")
		return dir, fmt.Errorf("no sessions directory found; tried %s. Name one with PATH or --sessions-dir", strings.Join(tried, ", "))
	}
	return dir, nil
}

// readSessionsDir is the path of the sessions directory (sessionsDir; flag
// is --sessions-dir), said on stderr unless --quiet.
func (c *CLI) readSessionsDir(flag string) (string, error) {
	dir, err := c.sessionsDir(flag)
	if err != nil {
		return "", &ExitError{Code: ExitUsage, Err: err}
	}
	if !c.quiet() {
		fmt.Fprintf(c.Stderr, "pisess: reading %s (%s)\n", text.Safe(dir.path), dir.source)
	}
	return dir.path, nil
}

// existing returns dir if it exists, else an error saying where its name
// came from.
func (c *CLI) existing(dir sessionsDir) (sessionsDir, error) {
	if _, err := os.Stat(dir.path); err != nil {
		return dir, fmt.Errorf("the sessions directory %s (from %s) cannot be read: %w", dir.path, dir.source, errors.Unwrap(err))
	}
	return dir, nil
}

// settingsSessionDir reads sessionDir from a pi settings file as pi does
// (JSON.parse, a BOM stripped first): a missing file or member, or a null
// one, is "".
func settingsSessionDir(path string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if string(bytes.Trim(data, jsonSpace)) == "null" {
		return "", nil
	}
	var t session.Tape
	if t.Build(data) != nil {
		return "", errors.New("not a JSON object")
	}
	if _, end := t.Span(0); len(bytes.Trim(data[end:], jsonSpace)) > 0 {
		return "", errors.New("not a JSON object: more follows it")
	}
	dir := t.Get(0, "sessionDir")
	if s, ok := t.Str(dir); ok {
		return strings.Clone(s), nil
	}
	if k := t.Kind(dir); k != session.KindNone && k != session.KindNull {
		return "", errors.New("sessionDir is not a string")
	}
	return "", nil
}

// jsonSpace is the white space JSON allows between tokens.
const jsonSpace = " \t\r\n"

// home is the user's home directory.
func (c *CLI) home() string {
	if home := c.Getenv("HOME"); home != "" {
		return home
	}
	home, _ := os.UserHomeDir()
	return home
}

// expandTilde expands a leading ~ as pi does.
func (c *CLI) expandTilde(path string) string {
	if path == "~" {
		return c.home()
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return filepath.Join(c.home(), rest)
	}
	return path
}
