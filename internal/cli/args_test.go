package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// invocation is one in-process run's outcome.
type invocation struct {
	code           int
	stdout, stderr string
}

// runIn runs pisess in-process with no terminal and the environment env.
func runIn(env map[string]string, stdin string, args ...string) invocation {
	var stdout, stderr bytes.Buffer
	c := &CLI{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr,
		Getenv:     func(k string) string { return env[k] },
		IsTerminal: func(io.Writer) bool { return false },
		Now:        func() time.Time { return time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC) },
		Random:     bytes.NewReader(bytes.Repeat([]byte{0x5e, 0xed, 0x1d, 0x7a}, 64))}
	code := c.Run(append([]string{"pisess"}, args...))
	return invocation{code, stdout.String(), stderr.String()}
}

// flagValues is a valid value for every flag that takes one, by command
// ("" for any command). A flag missing here fails TestFlagsAnywhere: a new
// flag must be tried in both positions too.
var flagValues = map[string]map[string]string{
	"": {
		"max-line-bytes": "64MiB", "max-file-bytes": "1GiB", "jobs": "1", "leaf": "8e39d05e",
		"width": "80", "require-version": "3", "sessions-dir": ".", "rules": "$RULES", "depth": "2",
	},
	"validate":       {"format": "json"},
	"migrate":        {"format": "json"},
	"repair":         {"format": "json"},
	"tree":           {"format": "json"},
	"path":           {"format": "json"},
	"context":        {"format": "json"},
	"export":         {"format": "md", "output": "out.md", "max-block": "512"},
	"scan":           {"format": "json"},
	"redact":         {"output": "redacted.jsonl"},
	"unstick":        {"format": "json"},
	"slim":           {"format": "json", "max-bytes": "64KiB", "output": "slim.jsonl", "drop-custom": "todo-state"},
	"fork":           {"format": "json", "output": "fork.jsonl"},
	"recover-header": {"format": "json", "id": "s1", "cwd": "/tmp"},
	"move":           {"format": "json", "from": "/a", "to": "/b"},
	"prune":          {"format": "json", "older-than": "30d", "larger-than": "1KB", "project": "/p"},
	"grep":           {"format": "json", "role": "user", "since": "2026-01-01", "until": "2026-12-31"},
	"du":             {"format": "json", "max-bytes": "64KiB"},
	"audit":          {"format": "json", "by": "model", "sort": "size", "order": "desc", "since": "2026-01-01", "until": "2026-12-31", "tz": "UTC"},
}

// valueFor returns the test value of a flag of cmd, and whether it has one.
func valueFor(cmd, flag string) (string, bool) {
	if v, ok := flagValues[cmd][flag]; ok {
		return v, true
	}
	v, ok := flagValues[""][flag]
	return v, ok
}

// session is the file every command of the test works on.
const everything = "../../testdata/corpus/valid/v3-everything.jsonl"

// A flag means the same before and after the positional arguments: same
// exit code, same output, same file afterwards. Before this test,
// `migrate FILE --dry-run` took --dry-run for a second path and rewrote
// the file.
func TestFlagsAnywhere(t *testing.T) {
	original, err := os.ReadFile(everything)
	if err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(t.TempDir(), "rules.toml")
	if err := os.WriteFile(rules, []byte("[[rules]]\nid = \"test-token\"\nregex = '''tok-[0-9]{8}'''\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	t.Chdir(dir)
	for _, cmd := range (&CLI{}).app().Commands {
		if cmd.Name == "help" || cmd.Name == "version" || cmd.Name == "completion" || cmd.Name == "schema" {
			continue // no FILE to put a flag after; covered by testdata/script
		}
		for _, f := range cmd.Flags {
			name := f.Names()[0]
			if name == "help" {
				continue
			}
			flag := []string{"--" + name}
			if df, ok := f.(cli.DocGenerationFlag); ok && df.TakesValue() {
				v, ok := valueFor(cmd.Name, name)
				if !ok {
					t.Errorf("%s --%s: no test value in flagValues", cmd.Name, name)
					continue
				}
				flag = append(flag, strings.ReplaceAll(v, "$RULES", rules))
			}
			head := []string{cmd.Name}
			if cmd.Name == "grep" {
				head = append(head, "the") // its PATTERN comes first
			}
			t.Run(cmd.Name+"/"+name, func(t *testing.T) {
				before := runOnCopy(t, file, original, slices.Concat(head, flag, []string{"s.jsonl"}))
				after := runOnCopy(t, file, original, slices.Concat(head, []string{"s.jsonl"}, flag))
				if before != after {
					t.Errorf("flag before FILE: exit %d, stderr %q, stdout %.300q\nflag after FILE: exit %d, stderr %q, stdout %.300q\nfiles the same after both: %v",
						before.code, before.stderr, before.stdout, after.code, after.stderr, after.stdout, before.files == after.files)
				}
			})
		}
	}
}

// fileOutcome is runOnCopy's result: the invocation and every file in the
// directory afterwards (name and bytes), the session file included.
type fileOutcome struct {
	invocation
	files string
}

// runOnCopy empties file's directory, writes original to file, runs args
// and returns what happened.
func runOnCopy(t *testing.T, file string, original []byte, args []string) fileOutcome {
	t.Helper()
	dir := filepath.Dir(file)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, original, 0o644); err != nil {
		t.Fatal(err)
	}
	stamp := time.Date(2026, 2, 16, 9, 12, 15, 0, time.UTC) // audit shows the time
	if err := os.Chtimes(file, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	inv := runIn(map[string]string{"HOME": t.TempDir()}, "", args...)
	var files strings.Builder
	entries, _ = os.ReadDir(dir)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&files, "-- %s --\n%s", e.Name(), data)
	}
	return fileOutcome{inv, files.String()}
}

// A usage error anywhere on the line stops everything before it starts:
// exit 2, nothing on stdout, the files as they were.
func TestUsageErrorWritesNothing(t *testing.T) {
	const torn = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n" +
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n" +
		`{"type":"message","id":"a2","par`
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{
		{"repair", "s.jsonl", "--bogus"},
		{"repair", "s.jsonl", "--format", "xml"},
		{"repair", "s.jsonl", "--jobs", "many"},
		{"repair", "s.jsonl", "--max-line-bytes", "lots"},
		{"repair", "s.jsonl", "-"},
		{"repair", "s.jsonl", "empty"},
		{"repair", "s.jsonl", "--dry-run=maybe"},
		{"migrate", "s.jsonl", "--backup", "--bogus"},
		{"repair", "--format"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if err := os.WriteFile("s.jsonl", []byte(torn), 0o644); err != nil {
				t.Fatal(err)
			}
			os.MkdirAll("empty", 0o755)
			got := runIn(nil, "", args...)
			data, _ := os.ReadFile("s.jsonl")
			entries, _ := os.ReadDir(".")
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if got.code != ExitUsage || got.stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit 2 and no output", got.code, got.stdout)
			}
			if !strings.HasPrefix(got.stderr, "pisess: ") || strings.Count(got.stderr, "\n") != 1 {
				t.Errorf("stderr is not one pisess: line: %q", got.stderr)
			}
			if string(data) != torn {
				t.Errorf("the file changed on a usage error")
			}
			if !slices.Equal(names, []string{"empty", "s.jsonl"}) {
				t.Errorf("files left behind: %v", names)
			}
		})
	}
}

func TestReadCommandLine(t *testing.T) {
	app := (&CLI{}).app()
	for _, tc := range []struct {
		args []string
		want []string // urfave/cli's order; nil for a usage error
	}{
		{[]string{"validate", "f", "--format", "json"}, []string{"validate", "--format", "json", "--", "f"}},
		{[]string{"validate", "f", "--format=json"}, []string{"validate", "--format=json", "--", "f"}},
		{[]string{"--no-color", "tree", "f", "-q"}, []string{"--no-color", "tree", "-q", "--", "f"}},
		{[]string{"validate", "--", "-x.jsonl", "--strict"}, []string{"validate", "--", "-x.jsonl", "--strict"}},
		{[]string{"validate", "-", "--strict"}, []string{"validate", "--strict", "--", "-"}},
		{[]string{"context", "f", "--leaf", "-abc"}, []string{"context", "--leaf", "-abc", "--", "f"}},
		{[]string{"migrate", "f", "-n"}, []string{"migrate", "-n", "--", "f"}},
		{[]string{"valdate", "f"}, nil},
		{[]string{"validate", "f", "--formt", "json"}, nil},
		{[]string{"validate", "f", "--format"}, nil},
		{[]string{"--bogus"}, nil},
		{[]string{"--", "validate"}, nil},
		{[]string{}, []string{}},
	} {
		line, err := readCommandLine(app, append([]string{"pisess"}, tc.args...))
		switch {
		case tc.want == nil && err == nil:
			t.Errorf("%q: no usage error, read as %q", tc.args, line.args()[1:])
		case tc.want != nil && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != nil && !slices.Equal(line.args()[1:], tc.want):
			t.Errorf("%q: read as %q, want %q", tc.args, line.args()[1:], tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	cmds := []string{"audit", "context", "migrate", "path", "repair", "tree", "validate"}
	for word, want := range map[string]string{
		"valdate": "validate", "VALIDATE": "validate", "migrat": "migrate", "tre": "tree",
		"aud": "audit", "xyzzy": "", "contxt": "context", "reapir": "repair", "completely-different": "",
	} {
		if got := suggest(word, slices.Clone(cmds)); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"64MiB": 64 << 20, "1GiB": 1 << 30, "500KB": 500_000, "1kib": 1024, "2 MB": 2_000_000,
		"1048576": 1 << 20, "0": 0, "1.5GiB": 3 << 29,
	} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "64XB", "-1", "1e30"} {
		var b byteSize
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted: %d", bad, b)
		}
	}
}

// Every command says what it does and shows how to use it.
func TestEveryCommandHasHelp(t *testing.T) {
	for _, cmd := range (&CLI{}).app().Commands {
		if cmd.Usage == "" || cmd.Description == "" {
			t.Errorf("%s: no usage line or description", cmd.Name)
		}
		if cmd.Name != "version" && cmd.Name != "help" && !strings.Contains(cmd.Description, "Examples:\n   pisess ") && !strings.Contains(cmd.Description, "Examples:\n   source ") {
			t.Errorf("%s --help has no examples", cmd.Name)
		}
	}
}
