package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The progress bar goes to stderr, only when stderr is a terminal and not
// with --quiet; stdout carries the data either way.
func TestAuditProgress(t *testing.T) {
	dir := t.TempDir()
	session := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n" +
		`{"type":"model_change","id":"a0000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","provider":"anthropic","modelId":"claude"}` + "\n"
	for _, name := range []string{"a.jsonl", "b.jsonl", "c.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(session), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name        string
		args        []string
		stderrTTY   bool
		stdoutTTY   bool
		wantBar     bool
		stdoutStart string
	}{
		{"terminal", []string{"audit", dir}, true, false, true, "┌"},
		{"quiet: errors only", []string{"audit", "--quiet", dir}, true, false, false, ""},
		{"not a terminal", []string{"audit", dir}, false, false, false, "┌"},
		{"json to a file", []string{"audit", "--format", "json", dir}, true, false, true, "{"},
		{"json to the terminal", []string{"audit", "--format", "json", dir}, true, true, false, "{"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := &CLI{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
				Getenv: func(string) string { return "" },
				IsTerminal: func(w io.Writer) bool {
					return (w == io.Writer(&stderr) && tt.stderrTTY) || (w == io.Writer(&stdout) && tt.stdoutTTY)
				}}
			if code := c.Run(append([]string{"pisess", "--no-color"}, tt.args...)); code != ExitOK {
				t.Fatalf("exit %d; stderr %q", code, stderr.String())
			}
			if got := strings.Contains(stderr.String(), "/3 files"); got != tt.wantBar {
				t.Errorf("progress bar shown: %v, want %v; stderr %q", got, tt.wantBar, stderr.String())
			}
			if !tt.wantBar && stderr.Len() > 0 {
				t.Errorf("stderr %q, want nothing", stderr.String())
			}
			if !strings.HasPrefix(stdout.String(), tt.stdoutStart) || strings.ContainsAny(stdout.String(), "\r") {
				t.Errorf("stdout %q", stdout.String())
			}
		})
	}
}
