//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/session"
)

// interruptingReader is standard input that delivers a session, then,
// asked for more while the view copies it, checks that the copy is in
// dir and sends the process SIGINT (Ctrl-C), waiting for it to end the
// process.
type interruptingReader struct {
	dir  string
	sent bool
}

func (r *interruptingReader) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		return copy(p, carrySession), nil
	}
	copies, _ := filepath.Glob(filepath.Join(r.dir, "pisess-stdin-*"))
	if len(copies) != 1 {
		fmt.Println("the stdin copy is not in", r.dir, copies)
		os.Exit(0)
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	time.Sleep(10 * time.Second)
	fmt.Println("the signal did not end the process")
	os.Exit(0)
	return 0, nil
}

// Ctrl-C while a view copies standard input to its scratch file left
// pisess-stdin-<n>.jsonl in the system's temporary directory (it was
// removed only once the copy was indexed): the copy is recorded for the
// signal's handler, which removes it, and the process still ends by the
// signal.
func TestViewInterruptRemovesTheStdinCopy(t *testing.T) {
	if dir := os.Getenv("PISESS_TEST_VIEW_STDIN_SIGNAL"); dir != "" {
		os.Setenv("TMPDIR", dir) // the scratch file goes where the parent looks
		if !strings.HasPrefix(os.TempDir(), dir) {
			fmt.Println("TMPDIR is not the temporary directory here")
			os.Exit(0)
		}
		_, err := (&CLI{}).openSpooled(&interruptingReader{dir: dir}, session.DefaultLimits(), nil)
		fmt.Println("the copy ended:", err)
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	interruptInChild(t, "TestViewInterruptRemovesTheStdinCopy", "PISESS_TEST_VIEW_STDIN_SIGNAL")
}
