//go:build unix

package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// TestNeverFollowsPathsInFiles: parentSession, branchedFrom, the cwd and
// tool arguments name a FIFO nobody writes to. Opening it for reading
// would block, so a command that followed any of them would hang; under
// strace (when present) no system call may name it at all.
func TestNeverFollowsPathsInFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bait := filepath.Join(dir, "elsewhere", "parent.jsonl")
	if err := os.Mkdir(filepath.Dir(bait), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(bait, 0o644); err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(dir, "sessions")
	if err := os.Mkdir(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := BaseLines()
	lines[0] = strings.Replace(Header(3, `"parentSession":`+Q(bait), `"branchedFrom":"../elsewhere/parent.jsonl"`),
		`"cwd":"/home/user/project"`, `"cwd":`+Q(filepath.Dir(bait)), 1)
	lines = append(lines, Entry("message", "b0000001", ID(14), AssistantMsg(ToolCallBlock("c9", "read", `{"path":`+Q(bait)+`}`), Usage("1", "0"))),
		Entry("message", "b0000002", "b0000001", ToolResultMsg("c9", "read", Q("file:"+bait))))
	file := write(t, sessions, "fork.jsonl", Lines(lines...))
	v1 := BaseV1Lines()
	v1[0] = Header(1, `"parentSession":`+Q(bait))
	write(t, sessions, "fork-v1.jsonl", Lines(v1...))

	strace := straceBin()
	runs := [][]string{
		{"validate", file}, {"validate", "--format", "json", sessions},
		{"audit", sessions}, {"audit", "--format", "json", sessions}, {"audit", "--by", "project", sessions},
		{"migrate", "--dry-run", "--diff", sessions}, {"repair", "--dry-run", sessions},
		{"tree", file}, {"tree", "--format", "json", file}, {"path", file}, {"context", "--format", "json", file},
		{"migrate", "--backup", sessions},
	}
	for _, args := range runs {
		if _, missing := the.missing[args[0]]; missing {
			continue
		}
		the.tally.input(args[0], 1)
		var prefix []string
		log := filepath.Join(dir, "strace.log")
		if strace != "" {
			prefix = []string{strace, "-f", "-qq", "-s", "4096", "-o", log, "-e", "trace=%file"}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		r := the.execPrefix(ctx, nil, prefix, args...)
		cancel()
		the.sane(t, r, []int{0, 1})
		if strace == "" {
			continue
		}
		trace, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(trace), "\n") {
			if strings.Contains(l, "parent.jsonl") || strings.Contains(l, "elsewhere") {
				t.Errorf("pisess %s touched a path named inside the file: %s", strings.Join(args, " "), l)
			}
		}
	}
	if strace == "" {
		t.Log("strace not found: checked only that nothing blocked on the FIFO")
	}
}

// straceBin is the path of strace, or "".
func straceBin() string {
	p, err := exec.LookPath("strace")
	if err != nil {
		return ""
	}
	return p
}

// TestSymlinksAreNotRewritten: migrate and repair refuse a symbolic link
// (exit 1, code symlink, saying --follow-symlinks), leaving the link and
// its target untouched; with --follow-symlinks they rewrite the target and
// keep the link a link. A backup name that is a symbolic link to another
// file is never written through.
func TestSymlinksAreNotRewritten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd  string
		data []byte
		bak  string
	}{
		{"migrate", BaseV1(), ".v1.bak"},
		{"repair", append(Base(), `{"type":"mess`...), ".bak"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			dir := t.TempDir()
			target := write(t, dir, "target.jsonl", tc.data)
			link := filepath.Join(dir, "link.jsonl")
			if err := os.Symlink("target.jsonl", link); err != nil {
				t.Fatal(err)
			}
			r := the.pisess(t, 30*time.Second, []int{1}, tc.cmd, "--backup", link)
			if !bytes.Contains(r.stderr, []byte("symbolic link")) || !bytes.Contains(r.stderr, []byte("--follow-symlinks")) {
				t.Errorf("the refusal does not say why and what to do\n%s", r)
			}
			r = the.pisess(t, 30*time.Second, []int{1}, tc.cmd, "--format", "json", link)
			if !bytes.Contains(r.stdout, []byte(`"code":"symlink"`)) {
				t.Errorf("no symlink code\n%s", r)
			}
			assertBytes(t, target, tc.data)
			assertLink(t, link, "target.jsonl")

			// A backup name taken by a link to another file: refused,
			// and the other file is not touched.
			victim := write(t, dir, "victim.txt", []byte("keep me"))
			if err := os.Symlink("victim.txt", target+tc.bak); err != nil {
				t.Fatal(err)
			}
			r = the.pisess(t, 30*time.Second, []int{1}, tc.cmd, "--backup", "--format", "json", target)
			if !bytes.Contains(r.stdout, []byte(`"code":"backup_exists"`)) {
				t.Errorf("a symlink in the way of the backup was not refused\n%s", r)
			}
			assertBytes(t, victim, []byte("keep me"))
			assertBytes(t, target, tc.data)
			os.Remove(target + tc.bak)

			r = the.pisess(t, 30*time.Second, []int{0}, tc.cmd, "--backup", "--follow-symlinks", link)
			assertLink(t, link, "target.jsonl")
			assertBytes(t, target+tc.bak, tc.data)
			if now, _ := os.ReadFile(target); bytes.Equal(now, tc.data) {
				t.Errorf("--follow-symlinks did not rewrite the target\n%s", r)
			}
			if left := tempFiles(t, dir); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
			the.tally.input(tc.cmd, 4)
		})
	}
}

func assertBytes(t *testing.T, path string, want []byte) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s changed (%v)", path, err)
	}
}

func assertLink(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.Readlink(path); err != nil || got != want {
		t.Errorf("%s is no longer a link to %s: %q %v", path, want, got, err)
	}
}

// umaskZero runs the command with umask 0, so any mode pisess asks for is
// the mode the file gets.
var umaskZero = []string{"/bin/sh", "-c", `umask 000; exec "$0" "$@"`}

// TestPermissionsNeverWider: with umask 0, the new generation, the temp
// file it is written to and the backup (a hard link, or a copy when
// linking fails) have exactly the original's permission bits and owner.
// Under strace the temp file's create mode is checked as asked of the
// kernel, before any chmod.
func TestPermissionsNeverWider(t *testing.T) {
	t.Parallel()
	strace := straceBin()
	for _, mode := range []os.FileMode{0o600, 0o640, 0o400} {
		for _, copyBackup := range []bool{false, true} {
			if copyBackup && strace == "" {
				continue // the copy is forced by failing link() under strace
			}
			t.Run(fmt.Sprintf("%04o-copy=%v", mode, copyBackup), func(t *testing.T) {
				dir := t.TempDir()
				file := write(t, dir, "s.jsonl", BaseV1())
				if err := os.Chmod(file, mode); err != nil {
					t.Fatal(err)
				}
				owner := os.Geteuid() == 0
				if owner {
					if err := os.Chown(file, nobody, nobody); err != nil {
						t.Fatal(err)
					}
				}
				var prefix []string
				log := filepath.Join(dir, "strace.log")
				if strace != "" {
					prefix = []string{strace, "-f", "-qq", "-o", log, "-e", "trace=openat,linkat,link,fchmodat,fchmod"}
					if copyBackup {
						prefix = append(prefix, "-e", "inject=linkat,link:error=EPERM")
					}
				}
				prefix = append(prefix, umaskZero...)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				r := the.execPrefix(ctx, nil, prefix, "migrate", "--backup", file)
				cancel()
				the.sane(t, r, []int{0})
				for _, p := range []string{file, file + ".v1.bak"} {
					info, err := os.Stat(p)
					if err != nil {
						t.Fatal(err)
					}
					if info.Mode().Perm() != mode {
						t.Errorf("%s: mode %04o, want %04o", filepath.Base(p), info.Mode().Perm(), mode)
					}
					if st := info.Sys().(*syscall.Stat_t); owner && (st.Uid != nobody || st.Gid != nobody) {
						t.Errorf("%s: owner %d:%d, want %d:%d", filepath.Base(p), st.Uid, st.Gid, nobody, nobody)
					}
				}
				if strace == "" {
					return
				}
				trace, _ := os.ReadFile(log)
				creates := 0
				for _, l := range strings.Split(string(trace), "\n") {
					if !strings.Contains(l, "O_CREAT") {
						continue
					}
					creates++
					// A call another thread interrupts is printed in two
					// parts: "openat(…, 0400 <unfinished ...>", then
					// "<... openat resumed>) = 3".
					call := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l), "<unfinished ...>"))
					if i := strings.LastIndex(call, ")"); i >= 0 {
						call = strings.TrimSpace(call[:i])
					}
					if !strings.HasSuffix(call, fmt.Sprintf(", %04o", mode)) {
						t.Errorf("file created with another mode than %04o: %s", mode, l)
					}
				}
				if want := map[bool]int{false: 1, true: 2}[copyBackup]; creates != want {
					t.Errorf("%d files created, want %d (temp file%s)\n%s", creates, want, map[bool]string{true: " and backup copy"}[copyBackup], trace)
				}
				the.tally.input("migrate", 1)
			})
		}
	}
}

// TestTerminalEscapes: a session whose texts, ids, labels, cwd, custom
// types, tool and model names carry ESC, BEL, CSI and OSC sequences (as
// 7-bit escapes and as C1 controls), in a file whose name carries them
// too. Every command in every format: text output holds no terminal
// control at all; JSON output holds them only escaped (\u001b, \u009b),
// and still decodes to the same text.
func TestTerminalEscapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj\x1b]0;x\x07")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	file := write(t, proj, EscapeFileName, Escapes())
	write(t, proj, "torn\x1b[2J.jsonl", append(Escapes(), "{\"type\":\"message\",\"id\":\"\x1b[31m"...))
	v1 := write(t, proj, "v1\x9b1m.jsonl", Lines(append(BaseV1Lines(), V1Entry("message", UserMsg(`"`+Payload+`"`)))...))
	type call struct {
		args []string
		json bool
	}
	calls := []call{
		{[]string{"validate", file}, false}, {[]string{"validate", "--format", "github", file}, false},
		{[]string{"validate", "--format", "json", file}, true}, {[]string{"validate", proj}, false},
		{[]string{"audit", proj}, false}, {[]string{"audit", "--format", "csv", proj}, false},
		{[]string{"audit", "--format", "json", proj}, true},
		{[]string{"audit", "--by", "project", proj}, false}, {[]string{"audit", "--by", "model", proj}, false},
		{[]string{"migrate", "--dry-run", "--diff", v1}, false}, {[]string{"migrate", "--dry-run", "--format", "json", "--diff", v1}, true},
		{[]string{"migrate", file}, false}, {[]string{"migrate", "--format", "json", file}, true},
		{[]string{"repair", "--dry-run", "--diff", proj}, false}, {[]string{"repair", "--format", "json", "--dry-run", "--diff", proj}, true},
	}
	for _, view := range []string{"tree", "path", "context"} {
		for _, f := range []string{file, v1} {
			calls = append(calls, call{[]string{view, f}, false}, call{[]string{view, "--format", "json", f}, true},
				call{[]string{view, "--width", "0", f}, false}, call{[]string{view, "--leaf", "e1", f}, false})
		}
	}
	for _, c := range calls {
		if _, missing := the.missing[c.args[0]]; missing {
			continue
		}
		r := the.pisess(t, 30*time.Second, []int{0, 1, 2}, c.args...)
		the.tally.input(c.args[0], 1)
		where := "pisess " + quoteArgs(c.args)
		if at, what := terminalControl(r.stderr); at >= 0 {
			t.Errorf("%s: stderr holds %s at byte %d: %s", where, what, at, clip(r.stderr))
		}
		if at, what := terminalControl(r.stdout); at >= 0 {
			t.Errorf("%s: stdout holds %s at byte %d: %s", where, what, at, clip(r.stdout[max(0, at-200):min(len(r.stdout), at+50)]))
		}
		if c.json && r.code != 2 && len(r.stdout) > 0 {
			checkJSONKeepsText(t, where, r.stdout)
		}
	}
}

// terminalControl returns the offset and a description of the first byte
// or character a terminal may act on: C0 controls other than newline and
// tab, DEL, C1 controls (U+0080–U+009F), and bytes that are not UTF-8
// (0x9b alone is CSI to an 8-bit terminal). -1 if there is none.
func terminalControl(b []byte) (int, string) {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return i, fmt.Sprintf("the raw byte %#02x (not UTF-8)", b[i])
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f:
			return i, fmt.Sprintf("the control character %U", r)
		}
		i += size
	}
	return -1, ""
}

// checkJSONKeepsText: JSON output escapes the controls but keeps them: a
// decoder gets the session's text back.
func checkJSONKeepsText(t *testing.T, where string, out []byte) {
	t.Helper()
	var payload string
	if err := json.Unmarshal([]byte(`"`+Payload+`"`), &payload); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	found := false
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Errorf("%s: output is not JSON: %v", where, err)
			return
		}
		found = found || strings.Contains(fmt.Sprint(v), payload)
	}
	if !found && strings.HasPrefix(where, `pisess "context"`) {
		t.Errorf("%s: the JSON output does not carry the session's text (escaped controls must decode back)", where)
	}
}
