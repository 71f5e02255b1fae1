//go:build unix

package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/secrets"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

// signalFS sends the process SIGINT (Ctrl-C) when the rewrite is about
// to rename its temp file, and waits for the signal to end the process.
type signalFS struct{ safefile.FS }

func (s signalFS) Rename(oldname, newname string) error {
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	time.Sleep(10 * time.Second)
	return errors.New("the signal did not end the process")
}

// Ctrl-C during redact --in-place left its .pisess-tmp-<hex> beside the
// file (redact passed no safefile.Temps, unlike migrate and repair): the
// temp file is removed and the process still ends by the signal.
func TestRedactInterruptRemovesTheTempFile(t *testing.T) {
	if dir := os.Getenv("PISESS_TEST_REDACT_SIGNAL"); dir != "" {
		path := filepath.Join(dir, "s.jsonl")
		rules, _ := secrets.Default()
		lim := session.DefaultLimits()
		c := &CLI{Stdout: io.Discard, Stderr: io.Discard}
		r := &redaction{fsys: signalFS{safefile.OS()}, file: path, opts: secrets.Options{Rules: rules, Limits: lim}, vopts: validate.Options{Limits: lim}}
		fmt.Println(c.redactInPlace(r, false))
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	interruptInChild(t, "TestRedactInterruptRemovesTheTempFile", "PISESS_TEST_REDACT_SIGNAL")
}

// linkSignalFS sends the process SIGINT (Ctrl-C) when the new file is
// written and about to be linked under its name, and waits for the
// signal to end the process.
type linkSignalFS struct{ safefile.FS }

func (s linkSignalFS) Link(oldname, newname string) error {
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	time.Sleep(10 * time.Second)
	return errors.New("the signal did not end the process")
}

// Ctrl-C during redact --output (export --output delivers the same way)
// used to leave a partial file under the output's name: the file is
// written under a temp name, which the signal's handler removes, and the
// process still ends by the signal.
func TestRedactOutputInterruptLeavesNothing(t *testing.T) {
	if dir := os.Getenv("PISESS_TEST_REDACT_OUTPUT_SIGNAL"); dir != "" {
		rules, _ := secrets.Default()
		lim := session.DefaultLimits()
		c := &CLI{Stdout: io.Discard, Stderr: io.Discard}
		r := &redaction{fsys: linkSignalFS{safefile.OS()}, file: filepath.Join(dir, "s.jsonl"), opts: secrets.Options{Rules: rules, Limits: lim}, vopts: validate.Options{Limits: lim}}
		fmt.Println(c.redactCopy(r, filepath.Join(dir, "out.jsonl")))
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	interruptInChild(t, "TestRedactOutputInterruptLeavesNothing", "PISESS_TEST_REDACT_OUTPUT_SIGNAL")
}

// interruptInChild runs test name again in a child process whose env
// names a directory holding carrySession as s.jsonl, for the child to be
// interrupted in; the child must end by SIGINT, leave nothing else in the
// directory and the session as it was.
func interruptInChild(t *testing.T, name, env string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(carrySession), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$")
	cmd.Env = append(os.Environ(), env+"="+dir)
	out, err := cmd.CombinedOutput()
	var xe *exec.ExitError
	if !errors.As(err, &xe) || xe.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
		t.Fatalf("the child did not end by SIGINT: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "s.jsonl" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if got, _ := os.ReadFile(path); string(got) != carrySession {
		t.Errorf("the original changed:\n%s", got)
	}
}
