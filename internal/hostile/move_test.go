//go:build unix

package hostile

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillDuringMove kills `pisess move` with SIGKILL at random moments
// (PISESS_HOSTILE_KILLS times; 50 by default, 500 in the long run) in a
// sessions directory of 60 sessions of one project (120 in the long run),
// forks among them and in another project. A kill costs two runs over the
// whole directory: 100 kills at 120 sessions took 78 s of make test's 5
// minutes; the kills land across the whole move either way.
// After each kill every session is whole and there once (under its old
// name, its new one, or both names of one file), and a second run
// finishes the move: every session in the new project's directory with
// the new cwd, every reference naming a file that exists.
func TestKillDuringMove(t *testing.T) {
	t.Parallel()
	kills := envInt(envKills, size(10, 50, 500))
	if kills == 0 {
		t.Skip(envKills + "=0")
	}
	n := size(60, 60, 120)
	span := time.Hour
	for range 3 {
		root := moveSessions(t, n)
		r := the.pisess(t, time.Minute, []int{0}, "move", "-q", "--sessions-dir", root, "--from", "/old/p", "--to", "/new/p")
		span = min(span, r.elapsed)
		checkMoved(t, root, n, true)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 27))
	for i := range kills {
		root := moveSessions(t, n)
		delay := time.Duration(rng.Int64N(int64(span) * 6 / 5))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r := the.execFull(ctx, nil, func(p *os.Process) {
			time.AfterFunc(delay, func() { p.Signal(syscall.SIGKILL) })
		}, nil, "move", "-q", "--sessions-dir", root, "--from", "/old/p", "--to", "/new/p")
		cancel()
		if r.signal != syscall.SIGKILL && !the.sane(t, r, []int{0}) {
			return
		}
		checkMoved(t, root, n, false)
		again := the.pisess(t, time.Minute, []int{0, 1}, "move", "-q", "--sessions-dir", root, "--from", "/old/p", "--to", "/new/p")
		if again.code == 1 && !strings.Contains(string(again.stderr), "no_sessions") {
			t.Errorf("the second run refused: %s", again.stderr)
		}
		checkMoved(t, root, n, true)
		if t.Failed() {
			t.Fatalf("stopped after kill %d (at %v)", i+1, delay)
		}
		if (i+1)%25 == 0 || i+1 == kills {
			progress(t, "move: %d/%d kills, every state checked", i+1, kills)
		}
	}
}

// moveSessions writes n sessions of /old/p (every third a fork of the one
// before) and one of /other forked from the first.
func moveSessions(t *testing.T, n int) string {
	root := t.TempDir()
	old := filepath.Join(root, "--old-p--")
	os.MkdirAll(old, 0o755)
	os.MkdirAll(filepath.Join(root, "--other--"), 0o755)
	line := func(id, cwd, parent string) []byte {
		h := map[string]any{"type": "session", "version": 3, "id": id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}
		if parent != "" {
			h["parentSession"] = parent
		}
		b, _ := json.Marshal(h)
		return append(b, []byte("\n"+strings.Repeat(`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"hi","timestamp":0}}`+"\n", 1))...)
	}
	for i := range n {
		parent := ""
		if i%3 == 2 {
			parent = filepath.Join(old, fmt.Sprintf("s%03d.jsonl", i-1))
		}
		write(t, old, fmt.Sprintf("s%03d.jsonl", i), line(fmt.Sprintf("s%03d", i), "/old/p", parent))
	}
	write(t, filepath.Join(root, "--other--"), "o.jsonl", line("o", "/other", filepath.Join(old, "s000.jsonl")))
	return root
}

// checkMoved checks that every session is whole and there once; done
// asks for the finished move.
func checkMoved(t *testing.T, root string, n int, done bool) {
	t.Helper()
	seen := map[string]os.FileInfo{}
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		first, _, _ := strings.Cut(string(b), "\n")
		var h struct{ ID, Cwd, ParentSession string }
		if err != nil || json.Unmarshal([]byte(first), &h) != nil || !strings.HasSuffix(string(b), "}\n") {
			t.Errorf("%s: not a whole session: %q", f, b)
			continue
		}
		info, _ := os.Stat(f)
		if prev, ok := seen[h.ID]; ok && !os.SameFile(prev, info) {
			t.Errorf("session %s is in two files", h.ID)
		}
		seen[h.ID] = info
		if h.ParentSession != "" && done {
			if _, err := os.Stat(h.ParentSession); err != nil {
				t.Errorf("%s: parentSession %s: %v", f, h.ParentSession, err)
			}
		}
		if done && h.ID != "o" && (filepath.Base(filepath.Dir(f)) != "--new-p--" || h.Cwd != "/new/p") {
			t.Errorf("%s: not moved (cwd %s)", f, h.Cwd)
		}
	}
	if len(seen) != n+1 {
		t.Errorf("%d sessions, want %d", len(seen), n+1)
	}
	if temps, _ := filepath.Glob(filepath.Join(root, "*", ".*")); done && len(temps) > 0 {
		// a temp file a kill left is removed by `pisess repair --clean-temps`; it is no session
		for _, tmp := range temps {
			os.Remove(tmp)
		}
	}
}

// TestTwoMovesAtOnce starts two `pisess move` of one project at the same
// moment: one moves, the other is refused (busy, or no_sessions when it
// came after), and the directory ends as one move leaves it.
func TestTwoMovesAtOnce(t *testing.T) {
	t.Parallel()
	refusals := map[string]int{}
	defer func() { t.Logf("the second move refused: %v", refusals) }()
	for range size(3, 10, 30) {
		root := moveSessions(t, 60)
		args := []string{"move", "-q", "--sessions-dir", root, "--from", "/old/p", "--to", "/new/p"}
		done := make(chan run, 2)
		for range 2 {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				done <- the.exec(ctx, nil, args...)
			}()
		}
		a, b := <-done, <-done
		if a.code == 1 {
			a, b = b, a
		}
		if !the.sane(t, a, []int{0}) || !the.sane(t, b, []int{1}) {
			return
		}
		switch s := string(b.stderr); {
		case strings.Contains(s, "busy"):
			refusals["busy"]++
		case strings.Contains(s, "no_sessions"):
			refusals["no_sessions"]++
		default:
			t.Errorf("the second move: %s", s)
		}
		checkMoved(t, root, 60, true)
	}
}
