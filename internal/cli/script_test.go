package cli_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pisess/pisess/internal/cli"
	"github.com/pisess/pisess/internal/text"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"pisess": func() { os.Exit(cli.Run(cli.Build{}, os.Exit)) },
		// pisess with its stdout taken for a terminal (it is a file
		// here): how a script shows what a terminal gets.
		"pisess-tty": func() {
			c := &cli.CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
				IsTerminal: func(w io.Writer) bool { return w == io.Writer(os.Stdout) }}
			os.Exit(c.Run(append([]string{"pisess"}, os.Args[1:]...)))
		},
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: the real
// command line, golden output, exact exit codes.
func TestScripts(t *testing.T) {
	corpus, _ := filepath.Abs("../../testdata/corpus")
	real, _ := filepath.Abs("../../../shared/corpus/real")
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_GOLDEN") != "",
		Setup: func(env *testscript.Env) error {
			env.Setenv("CORPUS", corpus)
			env.Setenv("REAL", real)
			env.Setenv("NO_COLOR", "")
			env.Setenv("HOME", env.WorkDir+"/home")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "real" {
				_, err := os.Stat(real)
				return err == nil, nil
			}
			return false, errors.New("unknown condition " + cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":    exits,
			"chop":     chop,
			"maxwidth": maxwidth,
		},
	})
}

// exits N CMD ARGS... runs a command and asserts its exact exit code,
// keeping its stdout and stderr for the next assertions.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("exits: %v", err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// chop FILE removes the file's final newline (txtar files always end in
// one), to make torn last lines.
func chop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: chop FILE")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	if n := len(data); n > 0 && data[n-1] == '\n' {
		data = data[:n-1]
	}
	ts.Check(os.WriteFile(path, data, 0o644))
}

// maxwidth N FILE asserts that no line of FILE (stdout or stderr for the
// last command's output) is wider than N terminal columns.
func maxwidth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: maxwidth N FILE")
	}
	limit, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("maxwidth: bad width %q", args[0])
	}
	out := ts.ReadFile(args[1])
	if out == "" {
		ts.Fatalf("maxwidth: %s is empty", args[1]) // nothing to measure: a test that cannot fail
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := text.Width(line); w > limit {
			ts.Fatalf("%s:%d is %d columns wide, more than %d: %q", args[1], i+1, w, limit, line)
		}
	}
}
