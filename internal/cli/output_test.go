package cli

import (
	"bytes"
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/pisess/pisess/internal/text"
)

// failingWriter fails every write, like a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// Output that cannot be written is an I/O error: `pisess validate
// --format json > full-disk/report.jsonl` exited 0 with an empty report.
func TestOutputWriteErrorIsExit2(t *testing.T) {
	file := "../../testdata/corpus/valid/v3-minimal.jsonl"
	for _, args := range [][]string{
		{"validate", file}, {"validate", "--format", "json", file},
		{"audit", "--format", "json", file}, {"repair", "--dry-run", "--format", "json", file},
		{"tree", file}, {"tree", "--format", "json", file}, {"path", file}, {"path", "--format", "json", file}, {"schema"},
	} {
		var stderr bytes.Buffer
		c := &CLI{Stdin: strings.NewReader(""), Stdout: failingWriter{}, Stderr: &stderr,
			Getenv: func(string) string { return "" }, IsTerminal: func(io.Writer) bool { return false }}
		if code := c.Run(append([]string{"pisess"}, args...)); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
		if !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%v: stderr does not say why: %q", args, stderr.String())
		}
	}
}

// The wrapper keeps the terminal checks working on the real stream.
func TestOutputKeepsTerminalDetection(t *testing.T) {
	var stdout bytes.Buffer
	asked := []io.Writer{}
	c := &CLI{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: io.Discard,
		Getenv:     func(string) string { return "" },
		IsTerminal: func(w io.Writer) bool { asked = append(asked, w); return false }}
	c.Run([]string{"pisess", "validate", "../../testdata/corpus/valid/v3-minimal.jsonl"})
	for _, w := range asked {
		if _, wrapped := w.(*output); wrapped {
			t.Errorf("IsTerminal was asked about the wrapper, not the stream")
		}
	}
	if len(asked) == 0 || stdout.Len() == 0 {
		t.Errorf("IsTerminal asked %d times, %d bytes of output", len(asked), stdout.Len())
	}
}

// The escaper gives what text.EscapeControls gives the whole output, however
// the writes fall: a C1 control's two bytes split across writes or across
// the end of its buffer are still escaped. (A 64-byte buffer, so that
// every way a write can end against it is tried.)
func TestEscaperSplitsNoControl(t *testing.T) {
	const size = 64
	for _, lead := range []string{"", "a"} { // C1 controls at even offsets, then at odd ones
		whole := append([]byte(lead), bytes.Repeat([]byte("\xc2\x9b"), 5*size)...)
		for step := 1; step <= 2*size+1; step++ {
			var out bytes.Buffer
			e := &escaper{w: &out, size: size}
			for from := 0; from < len(whole); from += step {
				if _, err := e.Write(whole[from:min(len(whole), from+step)]); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.flush(true); err != nil {
				t.Fatal(err)
			}
			if want := text.EscapeControls(whole); !bytes.Equal(out.Bytes(), want) {
				t.Errorf("lead %q, writes of %d bytes: %d bytes out, want %d", lead, step, out.Len(), len(want))
			}
		}
	}
}
