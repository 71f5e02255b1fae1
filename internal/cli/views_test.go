package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Colour only on a terminal, never with --no-color (before or after the
// command name) or NO_COLOR; the width comes from --width, else COLUMNS,
// else 100 when stdout is not a terminal.
func TestViewColourAndWidth(t *testing.T) {
	file := "../../testdata/corpus/valid/v3-everything.jsonl"
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		tty       bool
		wantColor bool
		maxWidth  int
	}{
		{"terminal", []string{"tree", file}, map[string]string{"COLUMNS": "90"}, true, true, 90},
		{"--no-color after the command", []string{"tree", "--no-color", file}, nil, true, false, 100},
		{"--no-color before the command", []string{"--no-color", "context", file}, nil, true, false, 100},
		{"--quiet --no-color before the command", []string{"--quiet", "--no-color", "path", file}, nil, true, false, 100},
		{"NO_COLOR", []string{"path", file}, map[string]string{"NO_COLOR": "1"}, true, false, 100},
		{"not a terminal", []string{"tree", file}, nil, false, false, 100},
		{"COLUMNS", []string{"context", file}, map[string]string{"COLUMNS": "60"}, false, false, 60},
		{"--width wins over COLUMNS", []string{"path", "--width", "70", file}, map[string]string{"COLUMNS": "60"}, false, false, 70},
		{"--width 0 never cuts", []string{"tree", "--width", "0", file}, nil, false, false, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := &CLI{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
				Getenv:     func(k string) string { return tt.env[k] },
				IsTerminal: func(w io.Writer) bool { return tt.tty && w == io.Writer(&stdout) }}
			if code := c.Run(append([]string{"pisess"}, tt.args...)); code != ExitOK {
				t.Fatalf("exit %d; stderr %q", code, stderr.String())
			}
			out := stdout.String()
			if got := strings.Contains(out, "\x1b["); got != tt.wantColor {
				t.Errorf("colour %v, want %v", got, tt.wantColor)
			}
			lines := strings.Split(out, "\n")
			if !tt.tty && tt.env["COLUMNS"] == "" && !slices.Contains(tt.args, "--width") {
				// Piped with no width asked for: the line naming the file
				// is whole, the rest fits.
				if !strings.HasPrefix(lines[0], file+": ") {
					t.Errorf("the header does not name the file whole: %q", lines[0])
				}
				lines = lines[1:]
			}
			widest := 0
			for _, line := range lines {
				widest = max(widest, visibleWidth(line))
			}
			if widest > tt.maxWidth {
				t.Errorf("a line is %d columns wide, want at most %d", widest, tt.maxWidth)
			}
			if tt.maxWidth > 100 && widest <= 100 {
				t.Errorf("--width 0: the widest line is %d columns: was it cut?", widest)
			}
		})
	}
}

// visibleWidth counts the runes of a line outside colour sequences (the
// test files hold no wide characters).
func visibleWidth(line string) int {
	n, inEscape := 0, false
	for _, r := range line {
		switch {
		case r == '\x1b':
			inEscape = true
		case inEscape:
			inEscape = r != 'm'
		default:
			n++
		}
	}
	return n
}

func TestResolveLeaf(t *testing.T) {
	file := "../../testdata/corpus/valid/v3-branched.jsonl"
	tests := []struct {
		leaf, want string
		code       int
	}{
		{"", "leaf 60e9216a", ExitOK},
		{"84590f75", "leaf 84590f75", ExitOK},
		{"8459", "leaf 84590f75", ExitOK}, // a unique prefix
		{"8", `--leaf "8" is ambiguous: it starts 5 entry ids (80a50dd9, 81ffd99a, 84590f75, 8631af84, 8a4ef761)`, ExitUsage},
		{"nosuchid", `--leaf "nosuchid" names no entry`, ExitUsage},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		c := &CLI{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
			Getenv: func(string) string { return "" }, IsTerminal: func(io.Writer) bool { return false }}
		args := []string{"pisess", "tree", file}
		if tt.leaf != "" {
			args = []string{"pisess", "tree", "--leaf", tt.leaf, file}
		}
		code := c.Run(args)
		if code != tt.code {
			t.Errorf("--leaf %q: exit %d, want %d (stderr %q)", tt.leaf, code, tt.code, stderr.String())
		}
		if !strings.Contains(stdout.String()+stderr.String(), tt.want) {
			t.Errorf("--leaf %q: want %q in\n%s%s", tt.leaf, tt.want, stdout.String(), stderr.String())
		}
		if code != ExitOK && stdout.Len() > 0 {
			t.Errorf("--leaf %q: failure wrote to stdout", tt.leaf)
		}
	}
}

// A pipe given as FILE (<(zcat s.jsonl.gz), a FIFO) is read once and
// spooled, as standard input is: the views read records back, and a pipe
// cannot seek ("read /dev/fd/63: illegal seek", exit 2, before).
func TestViewsReadAPipe(t *testing.T) {
	src := "../../testdata/corpus/valid/v3-everything.jsonl"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"tree"}, {"path"}, {"context"}, {"context", "--format", "json"}} {
		dir := t.TempDir()
		file, fifo := filepath.Join(dir, "f.jsonl"), filepath.Join(dir, "p.jsonl")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		want := runIn(nil, "", append(args, file)...)
		if err := mkfifo(fifo); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
		// The writer is there before pisess opens the pipe, as with a
		// shell's <(…): an idle reader lets it open without waiting.
		idle, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			w.Write(data)
			w.Close()
		}()
		got := runIn(nil, "", append(args, fifo)...)
		idle.Close()
		if got.code != 0 || got.code != want.code {
			t.Errorf("%v on a FIFO: exit %d, stderr %q", args, got.code, got.stderr)
		}
		if strings.ReplaceAll(got.stdout, fifo, file) != want.stdout {
			t.Errorf("%v on a FIFO: output differs from the file's:\n%s\nwant:\n%s", args, got.stdout, want.stdout)
		}
	}
}

// A FIFO that no process writes reads as empty (exit 1, not a session), as
// validate reads it: the view must not wait for a writer.
func TestViewsDoNotWaitForAWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p.jsonl")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan invocation, 1)
	go func() { done <- runIn(nil, "", "tree", fifo) }()
	select {
	case got := <-done:
		if got.code != ExitInvalid {
			t.Errorf("tree on a FIFO without a writer: exit %d, stderr %q", got.code, got.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tree waited for a writer on a FIFO")
	}
}
