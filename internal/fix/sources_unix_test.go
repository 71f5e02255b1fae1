//go:build unix

package fix

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/safefile"
)

// TestNewFileSources: the commands that write a new file and only read
// their source (slim --rewrite --output, fork) read a source that is a
// symbolic link through it, as fork's documentation says, and refuse one
// that is not a regular file (not_regular) without opening it: opening a
// FIFO waits for a writer that never comes.
func TestNewFileSources(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	real := bigSession(t)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	orig := mustRead(t, real)
	run := map[string]func(source, output string, dryRun bool) (Report, error){
		"slim --rewrite --output": func(source, output string, dryRun bool) (Report, error) {
			opts := options(t)
			opts.MaxBytes, opts.Output, opts.DryRun = 1024, output, dryRun
			return SlimRewriteFile(safefile.OS(), source, opts)
		},
		"fork": func(source, output string, dryRun bool) (Report, error) {
			opts := options(t)
			opts.Leaf, opts.Output, opts.DryRun = "aaaa0003", output, dryRun
			return ForkFile(safefile.OS(), source, opts)
		},
	}
	for name, do := range run {
		for i, dryRun := range []bool{true, false} {
			output := filepath.Join(dir, name[:4]+string(rune('a'+i))+".jsonl")
			if rep, err := do(link, output, dryRun); err != nil || rep.Action == "refused" {
				t.Errorf("%s (dry run %v) of a link: %+v %v", name, dryRun, rep, err)
			}
		}
		if !bytes.Equal(mustRead(t, real), orig) {
			t.Errorf("%s changed the link's target", name)
		}
		done := make(chan error, 1)
		go func() {
			_, err := do(fifo, filepath.Join(dir, name[:4]+"-fifo.jsonl"), false)
			done <- err
		}()
		select {
		case err := <-done:
			if !isCode(err, safefile.NotRegular) {
				t.Errorf("%s of a FIFO: %v, want not_regular", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s of a FIFO still waits after 5 s", name)
		}
	}
}
