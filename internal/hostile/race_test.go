//go:build unix

package hostile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowed runs pisess under strace with one system call delayed, in the
// background; the result arrives on the channel.
func slowed(t *testing.T, strace, calls, delay string, args ...string) <-chan run {
	t.Helper()
	done := make(chan run, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		done <- the.execPrefix(ctx, nil, []string{strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + calls, "-e", "inject=" + calls + ":" + delay}, args...)
	}()
	return done
}

// waitFor polls until cond holds (or fails the test after 20 s).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestConcurrentRunsKeepTheBackup (issue 17 item 1): run A's link step is
// slowed (its backup exists, A has not gone on); run B on the same file
// meanwhile. B used to reuse A's backup, replace the file and report the
// backup, after which A's failed re-check deleted it. Now B waits for A's
// lock and then finds nothing to do; the backup stays.
func TestConcurrentRunsKeepTheBackup(t *testing.T) {
	strace := straceBin()
	if strace == "" {
		t.Skip("strace not found: install it (.ci/run does) to slow a system call")
	}
	t.Parallel()
	for i := 0; i < size(1, 3, 20); i++ {
		dir := t.TempDir()
		file := write(t, dir, "s.jsonl", BaseV1())
		backup := file + ".v1.bak"
		a := slowed(t, strace, "linkat,link", "delay_exit=1500000", "migrate", "--backup", "--format", "json", file)
		waitFor(t, "run A's backup", func() bool { _, err := os.Lstat(backup); return err == nil })
		b := the.pisess(t, time.Minute, []int{0}, "migrate", "--backup", "--format", "json", file)
		ra := <-a
		the.sane(t, ra, []int{0})
		if got, err := os.ReadFile(backup); err != nil || !bytes.Equal(got, BaseV1()) {
			t.Fatalf("the backup is gone or changed (%v)\nA: %s\nB: %s", err, ra, b)
		}
		if !bytes.Contains(ra.stdout, []byte(`"action":"migrated"`)) || !bytes.Contains(b.stdout, []byte(`"action":"unchanged"`)) {
			t.Errorf("want A migrated and B unchanged\nA: %s\nB: %s", ra, b)
		}
		validates(t, file)
		progress(t, "concurrent runs %d: the backup A made is kept", i+1)
	}
	the.tally.input("migrate", 2*size(1, 3, 20))
}

// TestAppendDuringRename (issue 17 item 2): the rename is slowed, and a
// line is appended (as pi does, by name, O_APPEND) while it waits. It
// used to be lost without a backup; now it is carried over to the new
// file. An append that lands before the last check is refused
// (changed_during_rewrite) with the file untouched: also nothing lost.
func TestAppendDuringRename(t *testing.T) {
	strace := straceBin()
	if strace == "" {
		t.Skip("strace not found: install it (.ci/run does) to slow a system call")
	}
	t.Parallel()
	line := `{"type":"custom","id":"c0ffee01","parentId":"0000000e","timestamp":"2026-01-01T00:00:59.000Z","customType":"x","data":{}}` + "\n"
	carried := 0
	for i := 0; i < size(2, 4, 20); i++ {
		dir := t.TempDir()
		orig := append(Base(), `{"type":"message","id":"ffff`...) // a torn tail: repair has work
		file := write(t, dir, "s.jsonl", orig)
		a := slowed(t, strace, "rename,renameat,renameat2", "delay_enter=800000", "repair", "--format", "json", file)
		// The temp file is complete just before the checks that precede
		// the rename.
		waitFor(t, "the temp file", func() bool {
			for _, p := range tempFiles(t, dir) {
				if info, err := os.Stat(p); err == nil && info.Size() == int64(len(Base())) {
					return true
				}
			}
			return false
		})
		time.Sleep(200 * time.Millisecond) // into the rename's delay
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(line)
		f.Close()
		r := <-a
		the.sane(t, r, []int{0, 1})
		now, _ := os.ReadFile(file)
		switch {
		case r.code == 0 && strings.HasSuffix(string(now), line):
			carried++
			if !bytes.Contains(r.stdout, []byte(`"carriedBytes":`)) {
				t.Errorf("the carried line is not reported\n%s", r)
			}
		case r.code == 1 && bytes.Equal(now, append(orig, line...)):
			// refused before the rename: untouched
		default:
			t.Fatalf("the line appended during the rewrite is lost (exit %d)\n%s\nfile:\n%s", r.code, r, now)
		}
		if left := tempFiles(t, filepath.Dir(file)); len(left) > 0 {
			t.Errorf("temp files left: %v", left)
		}
	}
	progress(t, "appends during the rename: %d carried over, the rest refused before it", carried)
	the.tally.note("append during a slowed rename: %d of %d runs carried the line over, the others refused before the rename; none lost it.", carried, size(2, 4, 20))
	the.tally.input("repair", size(2, 4, 20))
}

// TestLongFileName (issue 17 item 11): a 240-byte file name (231 and more
// made the temp name longer than 255 bytes); its backup name still fits.
func TestLongFileName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := write(t, dir, strings.Repeat("n", 234)+".jsonl", BaseV1())
	r := the.pisess(t, time.Minute, []int{0}, "migrate", "--backup", "--format", "json", file)
	if !bytes.Contains(r.stdout, []byte(`"action":"migrated"`)) {
		t.Fatalf("a 240-byte name is not migrated\n%s", r)
	}
	the.tally.input("migrate", 1)
}
