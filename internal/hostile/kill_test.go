//go:build unix

package hostile

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"
)

// TestKillDuringRewrite kills `migrate --backup` and `repair --backup`
// with SIGKILL at random moments (PISESS_HOSTILE_KILLS times each; 100 by
// default, 500 in the long run) on a file of 1.5 MB (4 MB in the long
// run), so the kill lands
// in every step: reading, writing the temp file, verifying, the backup,
// the rename. After each kill the session is the old bytes or the complete
// new generation (which pisess validate accepts), a backup is
// byte-identical to the original, a leftover temp file is a prefix of the
// new generation, and running again succeeds.
func TestKillDuringRewrite(t *testing.T) {
	t.Parallel()
	kills := envInt(envKills, size(10, 100, 500))
	if kills == 0 {
		t.Skip(envKills + "=0")
	}
	for _, c := range rewriteCases(t, size(300_000, 1_500_000, 4_000_000)) {
		t.Run(c.cmd, func(t *testing.T) {
			t.Parallel()
			span := c.duration(t)
			rng := rand.New(rand.NewPCG(uint64(len(c.old)), 7))
			for i := 0; i < kills; i++ {
				// Every other kill uniform over the run (a little past
				// its usual end), the others over its last 70 %, where
				// the writing, the backup and the rename are.
				delay := time.Duration(rng.Int64N(int64(span) * 6 / 5))
				if i%2 == 1 {
					delay = span*3/10 + time.Duration(rng.Int64N(int64(span)*7/10))
				}
				c.killOnce(t, delay)
				if t.Failed() {
					t.Fatalf("stopped after kill %d (at %v)", i+1, delay)
				}
				if (i+1)%25 == 0 || i+1 == kills {
					progress(t, "%s: %d/%d kills, every state checked", c.cmd, i+1, kills)
				}
			}
		})
	}
}

// duration is the shortest time of five undisturbed runs (a kill after it
// often comes too late).
func (c *rewriteCase) duration(t *testing.T) time.Duration {
	t.Helper()
	var runs []time.Duration
	for i := 0; i < 5; i++ {
		dir := t.TempDir()
		file := write(t, dir, "s.jsonl", c.old)
		r := the.pisess(t, time.Minute, []int{0}, append(append([]string{c.cmd, "--backup"}, c.flags...), file)...)
		runs = append(runs, r.elapsed)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
	return runs[0]
}

// killOnce starts c, kills it after delay, and checks what it left.
func (c *rewriteCase) killOnce(t *testing.T, delay time.Duration) {
	t.Helper()
	dir := t.TempDir()
	file := write(t, dir, "s.jsonl", c.old)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := the.execFull(ctx, nil, func(p *os.Process) {
		time.AfterFunc(delay, func() { p.Signal(syscall.SIGKILL) })
	}, nil, append(append([]string{c.cmd, "--backup"}, c.flags...), file)...)
	killed := r.signal == syscall.SIGKILL
	if !killed && !the.sane(t, r, []int{0}) {
		return
	}
	st := c.inspect(t, dir)
	switch {
	case !killed:
		the.tally.kill(c.cmd, "finished first")
		if !st.replaced || !st.backup {
			t.Errorf("%s finished, but replaced %v, backup %v", c.cmd, st.replaced, st.backup)
		}
	case st.replaced:
		the.tally.kill(c.cmd, "after the rename")
		validates(t, file)
	case st.backup:
		the.tally.kill(c.cmd, "backup made, not renamed")
	case len(st.temps) > 0:
		the.tally.kill(c.cmd, fmt.Sprintf("temp file %s", tempState(c, st.temps)))
	default:
		the.tally.kill(c.cmd, "before the temp file")
	}
	if killed && st.replaced && !st.backup {
		t.Errorf("%s: replaced without a backup", c.cmd)
	}
	c.rerun(t, dir)
}

// tempState says whether a leftover temp file is complete or partial.
func tempState(c *rewriteCase, temps []string) string {
	for _, tmp := range temps {
		if b, err := os.ReadFile(tmp); err == nil && !bytes.Equal(b, c.new) {
			return "partly written"
		}
	}
	return "complete, not renamed"
}

// TestOutputToFullDisk: every command writing to /dev/full (ENOSPC on
// every write) exits 2 and says so, and migrate still does its job.
func TestOutputToFullDisk(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	dir := t.TempDir()
	file := write(t, dir, "s.jsonl", BaseV1())
	for _, args := range [][]string{
		{"validate", file}, {"validate", "--format", "json", file}, {"audit", file}, {"audit", "--format", "csv", file},
		{"tree", file}, {"path", "--format", "json", file}, {"context", file}, {"schema"},
		{"repair", "--dry-run", "--format", "json", file}, {"migrate", "--backup", file},
	} {
		if _, missing := the.missing[args[0]]; missing {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		r := the.exec(ctx, func(cmd *exec.Cmd) { cmd.Stdout = full }, args...)
		cancel()
		if the.sane(t, r, []int{2}) && !bytes.Contains(r.stderr, []byte("no space left")) {
			t.Errorf("pisess %s: the error does not say why\n%s", quoteArgs(args), r)
		}
		the.tally.input(args[0], 1)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "s.jsonl.v1.bak")); err != nil || !bytes.Equal(b, BaseV1()) {
		t.Errorf("migrate did not keep its backup when its report could not be written: %v", err)
	}
}
