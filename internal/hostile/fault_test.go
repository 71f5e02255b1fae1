//go:build unix

package hostile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// renames and links are the rename and hard-link system calls.
const (
	renames = "?rename,renameat,?renameat2"
	links   = "?link,linkat"
)

// faultSets are the system calls failed under strace, by group (a "?"
// name is skipped where the architecture lacks it), with EIO and, where a
// full disk shows (writes, fsync, close), also ENOSPC; in the long run
// every group gets both. always, when set, is
// failed on every call too: unlink only runs to clean up after a failure,
// so its faults are injected while every rename fails; the "backup copy"
// groups fail every link, so the backup is a copy, and fault its writes.
var faultSets = []struct {
	name, set, always string
	diskFull          bool
}{
	{"write", "write,?pwrite64", "", true},
	{"fsync", "fsync,fdatasync", "", true},
	{"rename", renames, "", false},
	{"link", "?link,linkat", "", false},
	{"openat", "?open,openat", "", false},
	{"close", "close", "", true},
	{"chmod", "?chmod,fchmodat,fchmod", "", false},
	{"unlink", "?unlink,unlinkat", renames, false},
	{"write (backup copy)", "write,?pwrite64", links, true},
	{"fsync (backup copy)", "fsync,fdatasync", links, true},
	{"openat (backup copy)", "?open,openat", links, false},
}

// TestFaultInjection runs `migrate --backup` and `repair --backup` under
// strace with EIO and ENOSPC injected into each system call of each group,
// one invocation number at a time (when=K counts per thread, so a run may
// see more than one fault), then into every call at once. After each run
// the session is the old bytes or the complete new generation, a backup
// is byte-identical to the original, no temp file is left unless the run
// said its cleanup failed, and running again succeeds.
func TestFaultInjection(t *testing.T) {
	t.Parallel()
	strace := straceBin()
	if strace == "" {
		t.Skip("strace not found: install it (.ci/run does) to inject faults into the real binary")
	}
	long := envInt(envLong, 0) == 1
	cases := rewriteCases(t, 200_000)
	for _, c := range cases {
		for _, fs := range faultSets {
			for _, errno := range []string{"EIO", "ENOSPC"} {
				if errno == "ENOSPC" && !fs.diskFull && !long {
					continue
				}
				c, fs, errno := c, fs, errno
				t.Run(c.cmd+"/"+fs.name+"/"+errno, func(t *testing.T) {
					t.Parallel()
					n := countCalls(t, strace, c, fs.set, fs.always, errno)
					for k := 0; k <= n; k++ { // 0: every call
						if testing.Short() && k > 0 && k < n {
							continue // -short: every call, and the last
						}
						when := fmt.Sprint(k)
						if k == 0 {
							when = "1+"
						}
						c.injectOnce(t, strace, fs.name, fs.set, fs.always, errno, when)
					}
				})
			}
		}
	}
}

// runs lists the places the faults hit as they came, a run of one place
// once with its count ("stdout/stderr ×612"): the aborted runtime's
// retries of its report would otherwise fill a line of the log.
func runs(hits []string) string {
	var b strings.Builder
	for i := 0; i < len(hits); {
		j := i + 1
		for j < len(hits) && hits[j] == hits[i] {
			j++
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(hits[i])
		if j-i > 1 {
			fmt.Fprintf(&b, " ×%d", j-i)
		}
		i = j
	}
	return "[" + b.String() + "]"
}

// straceArgs is the strace command line that writes the trace of set
// and always to log, failing every call of always with errno.
func straceArgs(strace, log, set, always, errno string, extra ...string) []string {
	args := []string{strace, "-f", "-qq", "-y", "-s", "256", "-o", log}
	if always == "" {
		return append(append(args, "-e", "trace="+set), extra...)
	}
	args = append(args, "-e", "trace="+set+","+always, "-e", "inject="+always+":error="+errno)
	return append(args, extra...)
}

// inSet reports whether the system call name is one of set's.
func inSet(name, set string) bool {
	for _, s := range strings.Split(set, ",") {
		if strings.TrimPrefix(s, "?") == name {
			return true
		}
	}
	return false
}

var traceCall = regexp.MustCompile(`^\d+ +(\w+)\(`)

// countCalls counts the calls of set in a run disturbed only by always.
func countCalls(t *testing.T, strace string, c *rewriteCase, set, always, errno string) int {
	t.Helper()
	dir := t.TempDir()
	file := write(t, dir, "s.jsonl", c.old)
	log := filepath.Join(t.TempDir(), "trace")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := the.execPrefix(ctx, nil, straceArgs(strace, log, set, always, errno), append(append([]string{c.cmd, "--backup", "--format", "json"}, c.flags...), file)...)
	the.sane(t, r, []int{0, 2})
	trace, _ := os.ReadFile(log)
	n := 0
	for _, l := range traceLines(string(trace)) {
		if m := traceCall.FindStringSubmatch(l); m != nil && inSet(m[1], set) {
			n++
		}
	}
	return n
}

// reportUnwritable: the faults hit the report and the message saying so
// (stdout, then stderr): a run that failed only to report has exit 2 and
// nothing to show for it, and "writing the output" could not be written.
func reportUnwritable(r run, hits []string) bool {
	report := 0
	for _, h := range hits {
		if h == "stdout/stderr" {
			report++
		}
	}
	return r.code == 2 && len(r.stderr) == 0 && report >= 2
}

// injectOnce runs c with errno injected into the when-th call of set.
func (c *rewriteCase) injectOnce(t *testing.T, strace, name, set, always, errno, when string) {
	t.Helper()
	dir := t.TempDir()
	file := write(t, dir, "s.jsonl", c.old)
	log := filepath.Join(t.TempDir(), "trace")
	prefix := straceArgs(strace, log, set, always, errno, "-e", "inject="+set+":error="+errno+":when="+when)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := the.execPrefix(ctx, nil, prefix, append(append([]string{c.cmd, "--backup", "--format", "json"}, c.flags...), file)...)
	trace, _ := os.ReadFile(log)
	hits := injected(string(trace), dir, set)
	the.tally.faultRun(name)
	for _, where := range hits {
		the.tally.fault(name, where)
	}
	desc := fmt.Sprintf("%s: %s %s when=%s (faults: %s)", c.cmd, name, errno, when, runs(hits))
	runtimeHit := false
	for _, h := range hits {
		runtimeHit = runtimeHit || h == "runtime"
	}
	if runtimeHit && (crashed(r.stderr) || r.code == 2 && len(r.stdout)+len(r.stderr) == 0) {
		// A fault in the Go runtime's own calls (the netpoller's eventfd
		// write) makes it abort, silently when every write fails: a
		// crash like a kill, so the kill guarantees must hold.
		the.tally.fault(name, "Go runtime aborted")
		t.Logf("%s: the fault hit the Go runtime, which aborted: checked like a kill", desc)
		c.inspect(t, dir)
		c.rerun(t, dir)
		return
	}
	if !the.sane(t, r, []int{0, 1, 2}) {
		t.Errorf("%s\ntrace:\n%s", desc, tail(trace, 3000))
		return
	}
	st := c.inspect(t, dir)
	cleanupFailed := bytes.Contains(r.stdout, []byte("cleanup")) || bytes.Contains(r.stderr, []byte("cleanup"))
	switch {
	case r.code == 0 && !st.replaced:
		t.Errorf("%s: exit 0 but the file was not rewritten\n%s", desc, r)
	case r.code == 0 && !st.backup:
		t.Errorf("%s: exit 0 but no backup\n%s", desc, r)
	case st.replaced && !st.backup:
		t.Errorf("%s: the file was replaced without its backup\n%s", desc, r)
	case st.replaced && r.code != 0 && !bytes.Contains(r.stdout, []byte("sync_failed")) && !bytes.Contains(r.stderr, []byte("writing the output")) && !reportUnwritable(r, hits):
		t.Errorf("%s: the file was replaced but the run failed with something else than a directory fsync failure or a failed report\n%s", desc, r)
	case !st.replaced && st.backup && !cleanupFailed:
		t.Errorf("%s: the run failed but left its backup (and did not say its cleanup failed)\n%s", desc, r)
	case len(st.temps) > 0 && !cleanupFailed:
		t.Errorf("%s: temp files left without a cleanup error: %v\n%s", desc, st.temps, r)
	case r.code != 0 && len(bytes.TrimSpace(r.stdout)) > 0 && !bytes.Contains(r.stdout, []byte(`"action":"refused"`)) &&
		!(st.replaced && bytes.Contains(r.stdout, []byte(`"code":"sync_failed"`))):
		// After the rename the report keeps the action (the file was
		// written) and adds the code of what failed afterwards.
		t.Errorf("%s: exit %d but the report says neither refused nor what failed after the rename\n%s", desc, r.code, r)
	}
	if st.replaced {
		validates(t, filepath.Join(dir, "s.jsonl"))
	}
	for _, tmp := range st.temps {
		os.Remove(tmp) // a reported cleanup failure: the user deletes it
	}
	if st.backup && !st.replaced {
		os.Remove(filepath.Join(dir, "s.jsonl"+c.backupName)) // likewise
	}
	c.rerun(t, dir)
}

// traceLines splits strace's log into one call a line. With -f, a call
// another thread interrupts is printed in two parts, "PID name(args
// <unfinished ...>" and later "PID <... name resumed>rest"; the parts are
// joined where the call began, so a fault injected into it is seen (a
// missed one once made a Go runtime abort look like a pisess failure).
func traceLines(trace string) []string {
	var lines []string
	unfinished := map[string]int{} // thread id → index of its open call
	for _, l := range strings.Split(trace, "\n") {
		tid, _, _ := strings.Cut(l, " ")
		if head, ok := strings.CutSuffix(l, " <unfinished ...>"); ok {
			unfinished[tid] = len(lines)
			lines = append(lines, head)
			continue
		}
		if m := resumedCall.FindStringSubmatch(l); m != nil {
			if i, ok := unfinished[m[1]]; ok {
				lines[i] += m[2]
				delete(unfinished, m[1])
				continue
			}
		}
		lines = append(lines, l)
	}
	return lines
}

// resumedCall matches the second part of an interrupted call.
var resumedCall = regexp.MustCompile(`^(\d+) +<\.\.\. \w+ resumed>(.*)$`)

// injectedLine matches a call strace failed on purpose.
var injectedLine = regexp.MustCompile(`^\d+ +(\w+)\((.*)\) += -1 \w+ .*\(INJECTED\)$`)

// injected lists where each injected fault landed: the temp file, the
// backup, the original, the directory, standard output or error, the Go
// runtime's own calls, or elsewhere.
func injected(trace, dir, set string) []string {
	var out []string
	for _, l := range traceLines(trace) {
		m := injectedLine.FindStringSubmatch(l)
		if m == nil || !inSet(m[1], set) {
			continue
		}
		args := m[2]
		if m[1] == "write" || m[1] == "pwrite64" {
			args, _, _ = strings.Cut(args, ", ") // the descriptor, not the data
		}
		switch {
		case strings.Contains(args, ".pisess-tmp-"):
			out = append(out, "temp file")
		case strings.Contains(args, ".bak"):
			out = append(out, "backup")
		case strings.Contains(args, "s.jsonl"):
			out = append(out, "original")
		case strings.HasPrefix(args, "1<") || strings.HasPrefix(args, "2<"):
			out = append(out, "stdout/stderr")
		case strings.Contains(args, "<"+dir+">") || strings.Contains(args, `"."`) || strings.Contains(args, `"`+dir+`"`):
			out = append(out, "directory")
		case strings.Contains(args, "eventfd") || strings.Contains(args, "/sys/") || strings.Contains(args, "/proc/") || strings.Contains(args, "anon_inode"):
			out = append(out, "runtime") // the Go runtime's own calls
		default:
			out = append(out, "other: "+m[1]+"("+clipString(args, 60)+")")
		}
	}
	return out
}

func clipString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func TestTraceLines(t *testing.T) {
	tests := []struct {
		name, trace string
		want        []string
	}{
		{"whole calls", "1 write(1<pipe>, \"a\", 1) = 1\n2 fsync(3) = 0",
			[]string{"1 write(1<pipe>, \"a\", 1) = 1", "2 fsync(3) = 0"}},
		{"interrupted call", "7 write(7<anon_inode:[eventfd]>, \"\\1\", 8 <unfinished ...>\n8 fsync(3) = 0\n7 <... write resumed>)   = -1 EIO (Input/output error) (INJECTED)",
			[]string{"7 write(7<anon_inode:[eventfd]>, \"\\1\", 8)   = -1 EIO (Input/output error) (INJECTED)", "8 fsync(3) = 0"}},
		{"two threads interrupted", "1 write(3, \"x\", 1 <unfinished ...>\n2 write(4, \"y\", 1 <unfinished ...>\n2 <... write resumed>) = 1\n1 <... write resumed>) = -1 EIO (INJECTED)",
			[]string{"1 write(3, \"x\", 1) = -1 EIO (INJECTED)", "2 write(4, \"y\", 1) = 1"}},
		{"resumed without its start", "3 <... write resumed>) = 1",
			[]string{"3 <... write resumed>) = 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := traceLines(tt.trace)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("traceLines:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	// The interrupted eventfd write of the missed fault is found again.
	hits := injected("7 write(7<anon_inode:[eventfd]>, \"\\1\", 8 <unfinished ...>\n7 <... write resumed>) = -1 EIO (Input/output error) (INJECTED)", "/d", "write")
	if strings.Join(hits, ",") != "runtime" {
		t.Errorf("injected: %v, want [runtime]", hits)
	}
}

func TestFaultRuns(t *testing.T) {
	for _, tt := range []struct {
		hits []string
		want string
	}{
		{nil, "[]"},
		{[]string{"runtime"}, "[runtime]"},
		{[]string{"temp file", "temp file", "original"}, "[temp file ×2, original]"},
		{[]string{"runtime", "stdout/stderr", "stdout/stderr", "stdout/stderr", "runtime"}, "[runtime, stdout/stderr ×3, runtime]"},
	} {
		if got := runs(tt.hits); got != tt.want {
			t.Errorf("runs(%q) = %s, want %s", tt.hits, got, tt.want)
		}
	}
}
