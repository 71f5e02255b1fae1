package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// --since and --until: dates are whole days in the zone (until inclusive),
// RFC 3339 times are instants.
func TestAuditWindow(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		since, until string
		loc          *time.Location
		from, to     string // RFC 3339 in UTC; "" for open
		err          string
	}{
		{"", "", time.UTC, "", "", ""},
		{"2026-01-02", "", time.UTC, "2026-01-02T00:00:00Z", "", ""},
		{"", "2026-01-02", time.UTC, "", "2026-01-03T00:00:00Z", ""},
		{"2026-01-02", "2026-01-02", berlin, "2026-01-01T23:00:00Z", "2026-01-02T23:00:00Z", ""},
		{"20260102", "", time.UTC, "2026-01-02T00:00:00Z", "", ""},
		{"2026-01-02T10:00:00+02:00", "2026-01-02T10:00:00Z", berlin, "2026-01-02T08:00:00Z", "2026-01-02T10:00:00.001Z", ""},
		{"2026-01-03", "2026-01-02", time.UTC, "", "", "--since 2026-01-03 is after --until 2026-01-02"},
		{"yesterday", "", time.UTC, "", "", "--since must be a date"},
		{"", "2026-13-01", time.UTC, "", "", "--until must be a date"},
	}
	for _, tt := range tests {
		w, err := window(tt.since, tt.until, tt.loc)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("window(%q, %q): error %v, want %q", tt.since, tt.until, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("window(%q, %q): %v", tt.since, tt.until, err)
			continue
		}
		if got := utcText(w.From); got != tt.from {
			t.Errorf("window(%q, %q) from %s, want %s", tt.since, tt.until, got, tt.from)
		}
		if got := utcText(w.To); got != tt.to {
			t.Errorf("window(%q, %q) to %s, want %s", tt.since, tt.until, got, tt.to)
		}
	}
	if _, err := location("Mars/Olympus"); err == nil {
		t.Error("--tz Mars/Olympus accepted")
	}
	if loc, err := location(""); err != nil || loc != time.Local {
		t.Errorf("default zone %v, %v; want local", loc, err)
	}
}

func utcText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// A file that cannot be read is named on stderr on a line of its own: the
// progress bar is cleared first (it was left in front of the message:
// "… [0s:0s]pisess: d/b.jsonl: not a regular file"). a.jsonl is large
// enough that the bar is drawn (at most every 100 ms) before b.jsonl's
// turn comes.
func TestAuditProgressClearedForErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("audits 24 MB")
	}
	dir := t.TempDir()
	header := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n"
	big := []byte(header)
	parent := "null"
	for i := range 240 {
		id := fmt.Sprintf("%08x", i+1)
		big = fmt.Appendf(big, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":%q,"timestamp":1767225601000}}`+"\n",
			id, parent, strings.Repeat("x", 100_000))
		parent = `"` + id + `"`
	}
	for name, data := range map[string][]byte{"a.jsonl": big, "c.jsonl": []byte(header)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(filepath.Join(dir, "b.jsonl")); err != nil {
		t.Skip(err)
	}
	var stdout, stderr bytes.Buffer
	c := &CLI{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv:     func(string) string { return "" },
		IsTerminal: func(w io.Writer) bool { return w == io.Writer(&stderr) }}
	if code := c.Run([]string{"pisess", "--no-color", "audit", "--jobs", "1", dir}); code != ExitUsage {
		t.Fatalf("exit %d, want %d; stderr %q", code, ExitUsage, stderr.String())
	}
	out := stderr.String()
	i := strings.Index(out, "pisess: ")
	if i < 0 || !strings.Contains(out[i:], "b.jsonl: not a regular file") {
		t.Fatalf("stderr %q names no unreadable file", out)
	}
	if i > 0 && out[i-1] != '\r' && out[i-1] != '\n' {
		t.Errorf("the message follows the bar on its line: %q", out)
	}
}
