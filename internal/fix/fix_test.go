package fix

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

const corpus = "../../testdata/corpus"

var now = time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)

func options(t *testing.T) Options {
	t.Helper()
	schemas, err := validate.CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	return Options{Now: now, Validate: validate.Options{Limits: session.DefaultLimits(), Schemas: schemas}}
}

// copyFile copies a corpus file into a temp dir.
func copyFile(t *testing.T, rel string) (path string, orig []byte) {
	t.Helper()
	orig, err := os.ReadFile(filepath.Join(corpus, rel))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, orig
}

// noErrors validates a file: no error finding, no rule-6 warning.
func noErrors(t *testing.T, path string) {
	t.Helper()
	rep, err := validate.File(path, options(t).Validate)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity == "error" || f.Code == "unanswered_tool_call" || f.Code == "unpaired_tool_in_context" {
			t.Errorf("%s: %v", path, f)
		}
	}
}

var pisID = regexp.MustCompile(`^[0-9a-f]{8}$`)

func TestUnstickFile(t *testing.T) {
	for _, tt := range []struct {
		file  string
		types []string // of the entries appended
	}{
		{"invalid/unanswered_tool_call.jsonl", []string{"message"}},
		{"invalid/unpaired_tool_in_context-edit.jsonl", []string{"context_edit"}},
		{"invalid/unpaired_tool_in_context-compaction.jsonl", []string{"context_edit"}},
		{"valid/v3-everything.jsonl", nil},
		{"valid/v3-tools.jsonl", nil},
	} {
		t.Run(tt.file, func(t *testing.T) {
			path, orig := copyFile(t, tt.file)
			dry := options(t)
			dry.DryRun = true
			rep, err := UnstickFile(safefile.OS(), path, dry)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
				t.Fatal("a dry run changed the file")
			}
			opts := options(t)
			opts.Backup = true
			rep, err = UnstickFile(safefile.OS(), path, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if !bytes.HasPrefix(got, orig) {
				t.Fatal("the original is not a prefix of the file")
			}
			var types []string
			for _, a := range rep.Added {
				types = append(types, a.Type)
				if !pisID.MatchString(a.ID) {
					t.Errorf("id %q is not 8 hex characters", a.ID)
				}
			}
			if strings.Join(types, ",") != strings.Join(tt.types, ",") {
				t.Errorf("appended %v, want %v", types, tt.types)
			}
			if len(tt.types) == 0 {
				if rep.Action != "unchanged" || rep.Backup != nil || !bytes.Equal(got, orig) {
					t.Errorf("a healthy file: %+v", rep)
				}
				return
			}
			if rep.Action != "unstuck" || rep.NewLeaf != rep.Added[len(rep.Added)-1].ID {
				t.Errorf("report %+v", rep)
			}
			if bak, _ := os.ReadFile(path + ".bak"); !bytes.Equal(bak, orig) {
				t.Error("the backup is not the original")
			}
			noErrors(t, path)
			again, err := UnstickFile(safefile.OS(), path, options(t))
			if err != nil || again.Action != "unchanged" {
				t.Errorf("second run: %+v %v", again, err)
			}
		})
	}
}

func TestUnstickRefusesInvalidFiles(t *testing.T) {
	for _, file := range []string{"invalid/duplicate_id.jsonl", "tolerated/torn-tail.jsonl", "valid/v1-linear.jsonl", "other/v4-header.jsonl"} {
		path, orig := copyFile(t, file)
		_, err := UnstickFile(safefile.OS(), path, options(t))
		var e *safefile.Error
		if !errors.As(err, &e) || e.ExitCode() != 1 {
			t.Errorf("%s: error %v, want a refusal", file, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
			t.Errorf("%s: changed", file)
		}
	}
}

func TestUnstickUnknownLeaf(t *testing.T) {
	path, _ := copyFile(t, "invalid/unanswered_tool_call.jsonl")
	opts := options(t)
	opts.Leaf = "nope"
	_, err := UnstickFile(safefile.OS(), path, opts)
	var le *LeafError
	if !errors.As(err, &le) {
		t.Errorf("error %v, want a LeafError", err)
	}
}

// bigSession is a session with a 3 KiB tool output, a 2 KiB image and a
// 2 KiB assistant text with a tool call.
func bigSession(t *testing.T) string {
	t.Helper()
	big := strings.Repeat("x", 3000)
	img := strings.Repeat("QUJD", 500)
	lines := []string{
		`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"` + img + `","mimeType":"image/png"}],"timestamp":1}}`,
		`{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("y", 2000) + `"},{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"cat big"}}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}}`,
		`{"type":"message","id":"aaaa0003","parentId":"aaaa0002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"` + big + `"}],"isError":false,"timestamp":3}}`,
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSlimFile(t *testing.T) {
	path := bigSession(t)
	orig, _ := os.ReadFile(path)
	opts := options(t)
	opts.MaxBytes = 1024
	rep, err := SlimFile(safefile.OS(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.HasPrefix(got, orig) || rep.Action != "slimmed" {
		t.Fatalf("report %+v", rep)
	}
	var elided []string
	for _, e := range rep.Elided {
		elided = append(elided, e.EntryID+" "+e.Role+" "+e.Kind)
	}
	if want := "aaaa0001 user text and 1 image,aaaa0002 assistant text and 1 tool call,aaaa0003 toolResult text"; strings.Join(elided, ",") != want {
		t.Errorf("elided %q, want %q", elided, want)
	}
	if *rep.TokensAfter >= *rep.TokensBefore {
		t.Errorf("tokens %d -> %d", *rep.TokensBefore, *rep.TokensAfter)
	}
	noErrors(t, path)
	ctx := contextAt(t, path)
	for i, m := range ctx.Messages {
		if len(m) > 1024 {
			t.Errorf("message %d is %d bytes", i, len(m))
		}
		if !bytes.Contains(m, []byte("elided by pisess slim")) {
			t.Errorf("message %d has no placeholder: %s", i, m)
		}
	}
	if !bytes.Contains(ctx.Messages[1], []byte(`"id":"call_1"`)) {
		t.Error("the assistant message lost its tool call")
	}
	again, err := SlimFile(safefile.OS(), path, opts)
	if err != nil || again.Action != "unchanged" {
		t.Errorf("second run: %+v %v", again, err)
	}
}

func TestForkFile(t *testing.T) {
	for _, tt := range []struct{ file, leaf string }{
		{"valid/v3-branched.jsonl", "60e9216a"},
		{"valid/v3-branched.jsonl", "84590f75"},
		{"valid/v3-everything.jsonl", ""},
		{"valid/v3-compacted.jsonl", ""},
		{"valid/v1-linear.jsonl", ""},
		{"valid/v2-hook-message.jsonl", ""},
	} {
		t.Run(tt.file+"@"+tt.leaf, func(t *testing.T) {
			path, orig := copyFile(t, tt.file)
			src, err := project.LoadFile(path, session.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			leaf := tt.leaf
			if leaf == "" {
				leaf = src.DefaultLeaf().ID()
			}
			opts := options(t)
			opts.Leaf = leaf
			rep, err := ForkFile(safefile.OS(), path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
				t.Error("the source changed")
			}
			if filepath.Dir(rep.Output) != filepath.Dir(path) || !strings.HasPrefix(filepath.Base(rep.Output), "2026-12-01T09-30-00-000Z_"+rep.Session) {
				t.Errorf("output %s", rep.Output)
			}
			noErrors(t, rep.Output)
			fork, err := project.LoadFile(rep.Output, session.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			abs, _ := filepath.Abs(path)
			if p, _ := fork.Header.Field("parentSession"); string(p) != string(jsonString(abs)) {
				t.Errorf("parentSession %s", p)
			}
			want := contextOf(t, src, src.Lookup)(leaf)
			got := contextOf(t, fork, fork.Lookup)(fork.DefaultLeaf().ID())
			if got != want {
				t.Errorf("contexts differ:\n%s\n%s", got, want)
			}
			if _, err := ForkFile(safefile.OS(), path, Options{Leaf: leaf, Output: rep.Output, Validate: opts.Validate, Now: now}); err == nil {
				t.Error("a fork over an existing file was not refused")
			}
		})
	}
}

func contextOf(t *testing.T, s *project.Session, lookup func(string) (*project.Entry, bool)) func(string) string {
	return func(id string) string {
		e, _ := lookup(id)
		ctx, err := s.Context(e)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(ctx.Messages)
		return string(b)
	}
}

// TestForkLabels: labels leave the chain and come back at the end, in the
// order pi's Map keeps them, chained after the last entry.
func TestForkLabels(t *testing.T) {
	path, _ := copyFile(t, "valid/v3-branched.jsonl")
	opts := options(t)
	opts.Leaf, opts.Output = "60e9216a", filepath.Join(t.TempDir(), "f.jsonl")
	if _, err := ForkFile(safefile.OS(), path, opts); err != nil {
		t.Fatal(err)
	}
	s, err := project.LoadFile(opts.Output, session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var tail []string
	prev := ""
	for i, e := range s.Entries {
		if e.Type() == "label" {
			tail = append(tail, e.StringField("label"))
			if e.ParentID() != prev {
				t.Errorf("label %s hangs from %s, not the entry before it", e.ID(), e.ParentID())
			}
		} else if len(tail) > 0 {
			t.Errorf("entry %d (%s) after a label", i, e.Type())
		}
		if i > 0 && e.ParentID() != prev {
			t.Errorf("entry %s: parent %s, want %s", e.ID(), e.ParentID(), prev)
		}
		prev = e.ID()
	}
	if got := strings.Join(tail, "|"); got != "regex version|unicode version|done" {
		t.Errorf("labels %q", got)
	}
}

func TestGuessHeader(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"src/my-app", "src/my/app2", "src/a-b", "src/a/b"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	enc := func(cwd string) string {
		return "--" + strings.ReplaceAll(strings.TrimPrefix(cwd, "/"), "/", "-") + "--"
	}
	const name = "2026-02-09T15-40-00-123Z_019c4a7e-1111-7000-8000-000000000001.jsonl"
	first := json.RawMessage(`{"type":"model_change","id":"aaaa0001","parentId":null,"timestamp":"2026-02-09T15:40:01.000Z"}`)
	for _, tt := range []struct {
		path, id, cwd string
		want          string // the header, or the error's start
	}{
		{filepath.Join(root, enc(root+"/src/my-app"), name), "", "", `{"type":"session","version":3,"id":"019c4a7e-1111-7000-8000-000000000001","timestamp":"2026-02-09T15:40:00.123Z","cwd":"` + root + `/src/my-app"}`},
		{filepath.Join(root, enc(root+"/src/my/app2"), name), "", "", `{"type":"session","version":3,"id":"019c4a7e-1111-7000-8000-000000000001","timestamp":"2026-02-09T15:40:00.123Z","cwd":"` + root + `/src/my/app2"}`},
		{filepath.Join(root, enc(root+"/src/a-b"), name), "", "", "the directory name"},
		{filepath.Join(root, enc(root+"/src/a-b"), name), "", "/x", `{"type":"session","version":3,"id":"019c4a7e-1111-7000-8000-000000000001","timestamp":"2026-02-09T15:40:00.123Z","cwd":"/x"}`},
		{filepath.Join(root, enc(root+"/gone"), name), "", "", "the directory name"},
		{filepath.Join(root, "plain", name), "", "", "the directory name"},
		// pi's encoding starts and ends with "--": one end is not enough
		{filepath.Join(root, strings.TrimPrefix(enc(root+"/src/my-app"), "--"), name), "", "", "the directory name"},
		{filepath.Join(root, strings.TrimSuffix(enc(root+"/src/my-app"), "--"), name), "", "", "the directory name"},
		{filepath.Join(root, "plain--", name), "", "", "the directory name"},
		{filepath.Join(root, "--plain", name), "", "", "the directory name"},
		{filepath.Join(root, "----", name), "", "", "the directory name"},
		{filepath.Join(root, "---", name), "", "", "the directory name"},
		{filepath.Join(root, enc(root+"/src/my-app"), "session.jsonl"), "", "", "the file name"},
		{filepath.Join(root, enc(root+"/src/my-app"), "session.jsonl"), "abc", "", `{"type":"session","version":3,"id":"abc","timestamp":"2026-02-09T15:40:01.000Z","cwd":"` + root + `/src/my-app"}`},
		{filepath.Join(root, enc(root+"/src/my-app"), "session.jsonl"), "-bad", "", "--id"},
	} {
		g, err := GuessHeader(tt.path, first, tt.id, tt.cwd)
		switch {
		case err != nil && !strings.HasPrefix(err.Error(), tt.want):
			t.Errorf("%s: error %v, want %q", tt.path, err, tt.want)
		case err == nil && string(g.Line()) != tt.want:
			t.Errorf("%s:\n got %s\nwant %s", tt.path, g.Line(), tt.want)
		}
	}
}

func TestRecoverHeaderFile(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "proj")
	os.MkdirAll(cwd, 0o755)
	dir := filepath.Join(root, "--"+strings.ReplaceAll(strings.TrimPrefix(cwd, "/"), "/", "-")+"--")
	os.MkdirAll(dir, 0o755)
	orig, _ := os.ReadFile(filepath.Join(corpus, "valid/v3-minimal.jsonl"))
	body := orig[bytes.IndexByte(orig, '\n')+1:]
	path := filepath.Join(dir, "2026-01-01T00-00-00-000Z_019c0000-0000-7000-8000-000000000009.jsonl")
	os.WriteFile(path, body, 0o644)
	rep, err := RecoverHeaderFile(safefile.OS(), path, options(t))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if rep.Action != "recovered" || !bytes.HasSuffix(got, body) || rep.Backup == nil {
		t.Fatalf("report %+v", rep)
	}
	if bak, _ := os.ReadFile(path + ".bak"); !bytes.Equal(bak, body) {
		t.Error("backup")
	}
	noErrors(t, path)
	if rep, err := RecoverHeaderFile(safefile.OS(), path, options(t)); err != nil || rep.Action != "unchanged" {
		t.Errorf("second run %+v %v", rep, err)
	}
}

// TestAfterAgreesWithTheWholeFile: the self-check's stand-in (after)
// projects the same context as the whole file with the lines appended, on
// every leaf of the corpus, with the lines unstick and slim plan there and
// with none.
func TestAfterAgreesWithTheWholeFile(t *testing.T) {
	files, _ := filepath.Glob(corpus + "/*/*.jsonl")
	real, _ := filepath.Glob("../../../shared/corpus/real/*.jsonl")
	n := 0
	for _, path := range append(files, real...) {
		s, err := project.Open(path, session.DefaultLimits())
		if err != nil {
			continue
		}
		defer s.Close()
		if s.Header.Version < project.CurrentVersion {
			continue // load refuses it
		}
		data, _ := os.ReadFile(path)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		for _, leaf := range s.Leaves() {
			if _, err := s.Context(leaf); err != nil || leaf.ID() == "" {
				continue // a parentId cycle: the plans refuse it
			}
			plans := []*Plan{{NewLeaf: leaf.ID()}}
			if p, err := Unstick(s, leaf, now); err == nil && len(p.Lines) > 0 {
				plans = append(plans, p)
			}
			if p, err := Slim(s, leaf, 1024, now); err == nil && len(p.Lines) > 0 {
				plans = append(plans, p.Plan)
			}
			for _, p := range plans {
				l := &loaded{s: s, leaf: leaf}
				got, err := contextAfter(l, p.Lines, p.NewLeaf)
				if err != nil {
					t.Errorf("%s@%s: %v", path, leaf.ID(), err)
					continue
				}
				whole, err := project.Load(bytes.NewReader(append(bytes.Clone(data), p.Lines...)), session.DefaultLimits())
				if err != nil {
					t.Fatal(err)
				}
				wantLeaf, _ := whole.Lookup(p.NewLeaf)
				want, err := whole.Context(wantLeaf)
				if err != nil {
					t.Fatal(err)
				}
				a, _ := json.Marshal([]any{want.Messages, want.EntryIDs(), len(want.Unpaired), len(want.Unanswered())})
				b, _ := json.Marshal([]any{got.Messages, got.EntryIDs(), len(got.Unpaired), len(got.Unanswered())})
				if !bytes.Equal(a, b) {
					t.Errorf("%s@%s + %d bytes: the stand-in's context differs from the whole file's", path, leaf.ID(), len(p.Lines))
				}
				n++
			}
		}
	}
	t.Logf("%d contexts compared", n)
}

// withBlankLine writes data with a blank line inserted after its line n
// (pi skips it; validate warns blank_line) to a temp file named name.
func withBlankLine(t *testing.T, dir, name string, data []byte, n int) string {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	out := slices.Concat(bytes.Join(lines[:n], nil), []byte("\n"), bytes.Join(lines[n:], nil))
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBlankLineIsNotTheRepairs: a valid session with a blank line in the
// middle is repaired like any other. The check after a repair fails only
// on lines the repair made unreadable, not on those pi skipped already.
func TestBlankLineIsNotTheRepairs(t *testing.T) {
	read := func(rel string) []byte { return mustRead(t, filepath.Join(corpus, rel)) }
	big, _ := os.ReadFile(bigSession(t))
	root := t.TempDir()
	cwd := filepath.Join(root, "proj")
	headerDir := filepath.Join(root, "--"+strings.ReplaceAll(strings.TrimPrefix(cwd, "/"), "/", "-")+"--")
	for _, d := range []string{cwd, headerDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	headless := read("valid/v3-minimal.jsonl")
	headless = headless[bytes.IndexByte(headless, '\n')+1:]
	for _, tt := range []struct {
		name, dir, file string
		data            []byte
		run             func(path string, opts Options) (Report, error)
		action          string
	}{
		{"unstick", "", "s.jsonl", read("invalid/unanswered_tool_call.jsonl"), func(path string, opts Options) (Report, error) {
			return UnstickFile(safefile.OS(), path, opts)
		}, "unstuck"},
		{"slim", "", "s.jsonl", big, func(path string, opts Options) (Report, error) {
			opts.MaxBytes = 1024
			return SlimFile(safefile.OS(), path, opts)
		}, "slimmed"},
		{"fork", "", "s.jsonl", read("valid/v3-branched.jsonl"), func(path string, opts Options) (Report, error) {
			opts.Leaf, opts.Output = "60e9216a", path+".fork"
			return ForkFile(safefile.OS(), path, opts)
		}, "forked"},
		{"recover-header", headerDir, "2026-01-01T00-00-00-000Z_019c0000-0000-7000-8000-000000000009.jsonl", headless, func(path string, opts Options) (Report, error) {
			return RecoverHeaderFile(safefile.OS(), path, opts)
		}, "recovered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir
			if dir == "" {
				dir = t.TempDir()
			}
			path := withBlankLine(t, dir, tt.file, tt.data, 2)
			orig, _ := os.ReadFile(path)
			for _, dry := range []bool{true, false} {
				opts := options(t)
				opts.DryRun = dry
				rep, err := tt.run(path, opts)
				want := tt.action
				if dry {
					want = action(tt.name, true, true)
				}
				if err != nil || rep.Action != want {
					t.Fatalf("dry run %v: %+v %v, want %s", dry, rep, err, want)
				}
			}
			got, _ := os.ReadFile(path)
			if tt.name != "recover-header" && !bytes.HasPrefix(got, orig) {
				t.Error("the original is not a prefix of the file")
			}
		})
	}
}

// TestAfterRefusesSkippedNewLines: a new line pi would skip is still the
// repair's mistake, reported with its line in the new file.
func TestAfterRefusesSkippedNewLines(t *testing.T) {
	minimal := mustRead(t, filepath.Join(corpus, "valid/v3-minimal.jsonl"))
	for _, tt := range []struct {
		name, leaf string // "": the last entry
		data       []byte
		want       string // the new line's number in the new file
	}{
		{"clean", "", minimal, "[6]"},
		{"blank line 3", "", mustRead(t, withBlankLine(t, t.TempDir(), "b.jsonl", minimal, 2)), "[7]"},
		{"branched", "60e9216a", mustRead(t, filepath.Join(corpus, "valid/v3-branched.jsonl")), "[32]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := project.Load(bytes.NewReader(tt.data), session.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			leaf, err := s.Leaf(tt.leaf)
			if err != nil {
				t.Fatal(err)
			}
			l := &loaded{s: s, leaf: leaf}
			if _, err := contextAfter(l, nil, leaf.ID()); err != nil {
				t.Errorf("no new lines: %v", err)
			}
			_, err = contextAfter(l, []byte("\n"), leaf.ID())
			if err == nil || !strings.Contains(err.Error(), "lines pi skips ("+tt.want+")") {
				t.Errorf("a blank new line: %v, want lines pi skips (%s)", err, tt.want)
			}
		})
	}
}

// contextAfter is the context of the new leaf once lines are appended, as
// loaded.after hands it to a check.
func contextAfter(l *loaded, lines []byte, newLeaf string) (ctx *project.Context, err error) {
	err = l.after(lines, newLeaf, session.DefaultLimits(), func(s *project.Session, leaf *project.Entry) error {
		ctx, err = s.Context(leaf)
		return err
	})
	return ctx, err
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecoverHeaderPassesBlankLines: pi skips blank lines, so a file whose
// entries start after one has its header on the first line that is not
// blank: a header there is left alone, an entry gets one at the top.
func TestRecoverHeaderPassesBlankLines(t *testing.T) {
	orig, _ := os.ReadFile(filepath.Join(corpus, "valid/v3-minimal.jsonl"))
	body := orig[bytes.IndexByte(orig, '\n')+1:]
	dir := filepath.Join(t.TempDir(), "--tmp--")
	os.MkdirAll(dir, 0o755)
	name := "2026-01-01T00-00-00-000Z_019c0000-0000-7000-8000-000000000009.jsonl"
	for _, tt := range []struct {
		name, content, want string
	}{
		{"header after a blank line", "\n" + string(orig), "unchanged"},
		{"entries after blank lines", "\n \r\n" + string(body), "recovered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			os.Remove(path + BackupSuffix)
			os.WriteFile(path, []byte(tt.content), 0o644)
			rep, err := RecoverHeaderFile(safefile.OS(), path, options(t))
			if err != nil || rep.Action != tt.want {
				t.Fatalf("%+v %v", rep, err)
			}
			got, _ := os.ReadFile(path)
			recovered := bytes.HasPrefix(got, []byte(`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000009"`))
			if !bytes.HasSuffix(got, []byte(tt.content)) || recovered != (tt.want == "recovered") {
				t.Errorf("the file is now %q", got)
			}
			noErrors(t, path)
		})
	}
}

// TestRecoverHeaderReadsOneLineAtMost: line 1 is read up to the line limit,
// not whole: a file of NUL bytes without a newline (a crash) is refused
// without being held in memory.
func TestRecoverHeaderReadsOneLineAtMost(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB file")
	}
	dir := filepath.Join(t.TempDir(), "--tmp--")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "2026-01-01T00-00-00-000Z_019c0000-0000-7000-8000-000000000009.jsonl")
	const size = 64 << 20
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := options(t)
	opts.Validate.Limits.MaxLineBytes = 1 << 20
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := RecoverHeaderFile(safefile.OS(), path, opts)
	runtime.ReadMemStats(&after)
	var me *safefile.Error
	if !errors.As(err, &me) || rep.Action != "refused" {
		t.Fatalf("%+v %v", rep, err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > size/4 {
		t.Errorf("%d bytes allocated to read the first line of a %d-byte file", grown, size)
	}
}

// TestRecoverHeaderVersion2: a version-2 file (ids, and messages of role
// hookMessage, which pi's migration to version 3 makes custom) gets a
// version-2 header, so that pi migrates it and its context stays the
// original's; a version-3 header would leave the hookMessage roles.
func TestRecoverHeaderVersion2(t *testing.T) {
	src := filepath.Join(corpus, "valid/v2-hook-message.jsonl")
	orig, _ := os.ReadFile(src)
	dir := filepath.Join(t.TempDir(), "--tmp--")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "2026-01-01T00-00-00-000Z_019c0000-0000-7000-8000-000000000009.jsonl")
	os.WriteFile(path, orig[bytes.IndexByte(orig, '\n')+1:], 0o644)
	rep, err := RecoverHeaderFile(safefile.OS(), path, options(t))
	if err != nil || rep.Action != "recovered" {
		t.Fatalf("%+v %v", rep, err)
	}
	if rep.Header.Version != 2 {
		t.Errorf("version %d, from %q", rep.Header.Version, rep.Header.From["version"])
	}
	want, _ := json.Marshal(contextAt(t, src).Messages)
	got, _ := json.Marshal(contextAt(t, path).Messages)
	if !bytes.Equal(got, want) {
		t.Errorf("the context changed:\n%s\n%s", got, want)
	}
}

// TestUnstickDuplicateCallIDs: an assistant message that calls one id
// twice, answered once, has its second call left without a result (the
// first result answers the first call); unstick turns only that one into
// text, so the result keeps its call.
func TestUnstickDuplicateCallIDs(t *testing.T) {
	const usage = `"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`
	call := `{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}`
	lines := []string{
		`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}`,
		`{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[` + call + `,` + call + `],` + usage + `,"stopReason":"toolUse","timestamp":2}}`,
		`{"type":"message","id":"aaaa0003","parentId":"aaaa0002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"out"}],"isError":false,"timestamp":3}}`,
		`{"type":"message","id":"aaaa0004","parentId":"aaaa0003","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":[{"type":"text","text":"next"}],"timestamp":4}}`,
	}
	path := filepath.Join(t.TempDir(), "dup.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	rep, err := UnstickFile(safefile.OS(), path, options(t))
	if err != nil || rep.Action != "unstuck" {
		t.Fatalf("%+v %v", rep, err)
	}
	noErrors(t, path)
	ctx := contextAt(t, path)
	if n := bytes.Count(ctx.Messages[1], []byte(`"type":"toolCall","id":"c1"`)); n != 1 {
		t.Errorf("the assistant message keeps %d calls c1, want 1: %s", n, ctx.Messages[1])
	}
}

// linkWatchFS records each hard link made, and whether its new name
// existed just before.
type linkWatchFS struct {
	safefile.FS
	links *[]string
}

func (f linkWatchFS) Link(oldname, newname string) error {
	_, err := os.Lstat(newname)
	*f.links = append(*f.links, fmt.Sprintf("%s -> %s (existed %v)", oldname, newname, err == nil))
	return f.FS.Link(oldname, newname)
}

// TestForkOutputAppearsWhole: the new session is written under a temp
// file's name (one repair --clean-temps knows) and only then linked under
// its own (safefile.Create): a fork killed while it writes leaves no torn
// session where pi looks for sessions, and an existing file is still
// never overwritten.
func TestForkOutputAppearsWhole(t *testing.T) {
	path, _ := copyFile(t, "valid/v3-branched.jsonl")
	dir := filepath.Dir(path)
	opts := options(t)
	opts.Leaf = "60e9216a"
	opts.Output = filepath.Join(dir, "fork.jsonl")
	var links []string
	if _, err := ForkFile(linkWatchFS{safefile.OS(), &links}, path, opts); err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 {
		t.Fatalf("links: %v", links)
	}
	from, _, _ := strings.Cut(links[0], " -> ")
	if !safefile.IsTempName(filepath.Base(from)) || filepath.Dir(from) != dir || !strings.HasSuffix(links[0], opts.Output+" (existed false)") {
		t.Errorf("linked %s", links[0])
	}
	written, _ := os.ReadFile(opts.Output)
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	_, err := ForkFile(safefile.OS(), path, opts)
	if !errors.Is(err, safefile.ErrExists) {
		t.Errorf("over an existing file: %v", err)
	}
	if got, _ := os.ReadFile(opts.Output); !bytes.Equal(got, written) {
		t.Error("the existing file changed")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestGuessHeaderDashedElements: a '-' starting a path element (or
// doubled inside one) encodes as "--" in pi's directory name; the decoding
// still finds the one directory it names.
func TestGuessHeaderDashedElements(t *testing.T) {
	root := t.TempDir()
	const name = "2026-02-09T15-40-00-123Z_019c4a7e-1111-7000-8000-000000000001.jsonl"
	first := json.RawMessage(`{"type":"model_change","id":"aaaa0001","parentId":null,"timestamp":"2026-02-09T15:40:01.000Z"}`)
	for _, d := range []string{"src/-scratch", "src/c--d", "src/-e-/f"} {
		cwd := filepath.Join(root, d)
		os.MkdirAll(cwd, 0o755)
		dir := "--" + strings.ReplaceAll(strings.TrimPrefix(cwd, "/"), "/", "-") + "--"
		g, err := GuessHeader(filepath.Join(root, dir, name), first, "", "")
		if err != nil || g.Cwd != cwd {
			t.Errorf("%s: %+v %v, want %s", dir, g, err, cwd)
		}
	}
}

// interruptingFS stops the run (as Ctrl-C's handler does: Temps.RemoveAll)
// as soon as a file is created.
type interruptingFS struct {
	safefile.FS
	temps *safefile.Temps
}

func (f interruptingFS) CreateExcl(name string, perm os.FileMode) (safefile.File, error) {
	file, err := f.FS.CreateExcl(name, perm)
	f.temps.RemoveAll(f.FS)
	return file, err
}

// TestRecoverHeaderInterrupted: recover-header's temp file is recorded in
// Options.Temps, so a run stopped by a signal leaves neither it nor a
// changed file behind, as migrate and repair do.
func TestRecoverHeaderInterrupted(t *testing.T) {
	orig, _ := os.ReadFile(filepath.Join(corpus, "valid/v3-minimal.jsonl"))
	body := orig[bytes.IndexByte(orig, '\n')+1:]
	dir := filepath.Join(t.TempDir(), "--tmp--")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "2026-01-01T00-00-00-000Z_019c0000-0000-7000-8000-000000000009.jsonl")
	os.WriteFile(path, body, 0o644)
	opts := options(t)
	opts.Temps = &safefile.Temps{}
	if rep, err := RecoverHeaderFile(interruptingFS{safefile.OS(), opts.Temps}, path, opts); err == nil {
		t.Errorf("an interrupted run succeeded: %+v", rep)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, body) {
		t.Error("the file changed")
	}
	left, _ := filepath.Glob(filepath.Join(dir, safefile.TempPrefix+"*"))
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestUnstickInterruptedDuringBackup: unstick and slim copy the backup
// (safefile.Append cannot hard-link it), and that copy is recorded in
// Options.Temps while partial, so a run stopped by a signal leaves no
// half backup that would refuse every later run (backup_exists), and the
// file unchanged.
func TestUnstickInterruptedDuringBackup(t *testing.T) {
	path, orig := copyFile(t, "invalid/unanswered_tool_call.jsonl")
	opts := options(t)
	opts.Backup = true
	opts.Temps = &safefile.Temps{}
	if rep, err := UnstickFile(interruptingFS{safefile.OS(), opts.Temps}, path, opts); err == nil {
		t.Errorf("an interrupted run succeeded: %+v", rep)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Error("the file changed")
	}
	if _, err := os.Stat(path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the partial backup is left behind (stat: %v)", err)
	}
}

// noLinkFS is a file system without hard links that stops the run (as
// interruptingFS) when the file named at is created.
type noLinkFS struct {
	safefile.FS
	temps *safefile.Temps
	at    string
}

func (f noLinkFS) Link(string, string) error { return errors.New("no hard links here") }

func (f noLinkFS) CreateExcl(name string, perm os.FileMode) (safefile.File, error) {
	file, err := f.FS.CreateExcl(name, perm)
	if name == f.at {
		f.temps.RemoveAll(f.FS)
	}
	return file, err
}

// TestForkInterrupted: fork's new file is recorded in Options.Temps while
// it is written (the temp file beside the output, or the output itself
// where there are no hard links), so a run stopped by a signal leaves
// neither it nor a partial session behind, and the source unchanged.
func TestForkInterrupted(t *testing.T) {
	for _, tt := range []struct {
		name string
		fs   func(fsys safefile.FS, temps *safefile.Temps, output string) safefile.FS
	}{
		{"temp file", func(fsys safefile.FS, temps *safefile.Temps, _ string) safefile.FS {
			return interruptingFS{fsys, temps}
		}},
		{"no hard links", func(fsys safefile.FS, temps *safefile.Temps, output string) safefile.FS {
			return noLinkFS{fsys, temps, output}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path, orig := copyFile(t, "valid/v3-branched.jsonl")
			dir := filepath.Dir(path)
			opts := options(t)
			opts.Leaf = "60e9216a"
			opts.Output = filepath.Join(dir, "fork.jsonl")
			opts.Temps = &safefile.Temps{}
			if rep, err := ForkFile(tt.fs(safefile.OS(), opts.Temps, opts.Output), path, opts); err == nil {
				t.Errorf("an interrupted run succeeded: %+v", rep)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
				t.Error("the source changed")
			}
			if _, err := os.Lstat(opts.Output); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the output is left behind (lstat: %v)", err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// withCwd is a copy of a corpus file whose header's cwd is cwd (a JSON
// value), in a temp dir.
func withCwd(t *testing.T, rel, cwd string) string {
	t.Helper()
	path, orig := copyFile(t, rel)
	header, rest, _ := bytes.Cut(orig, []byte("\n"))
	var h map[string]json.RawMessage
	if err := json.Unmarshal(header, &h); err != nil {
		t.Fatal(err)
	}
	h["cwd"] = json.RawMessage(cwd)
	var w session.ObjectWriter
	for _, k := range []string{"type", "version", "id", "timestamp", "cwd"} {
		w.Member(k, h[k])
	}
	if err := os.WriteFile(path, append(append(w.Bytes(), '\n'), rest...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// piCwds are header cwds and what pi 1.6.0's resolvePath makes of them in
// the directory /run/w with the home directory /home/u (checked with
// SessionManager.open and createBranchedSession on copies).
var piCwds = []struct{ stored, want string }{
	{"/home/ines/src/blog", "/home/ines/src/blog"},
	{"/tmp/a/", "/tmp/a"},
	{"/a//b/./c/../d", "/a/b/d"},
	{"/", "/"},
	{"rel/x", "/run/w/rel/x"},
	{"", "/run/w"},
	{"./", "/run/w"},
	{"..", "/run"},
	{"~", "/home/u"},
	{"~/p/", "/home/u/p"},
	{"~x", "/run/w/~x"},
	{"file:///x/y", "/x/y"},
	{"file://localhost/a%20b/", "/a b"},
	{"file:/x", "/run/w/file:/x"},
	{"/a/ ", "/a/ "},
}

// TestForkCwdAsPi: the fork's header has the source's cwd as pi's
// SessionManager holds it (resolvePath: absolute, cleaned, ~ and file://
// expanded, relative to the working directory), as createBranchedSession
// writes it, not as stored.
func TestForkCwdAsPi(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	for _, tt := range piCwds {
		t.Run(tt.stored, func(t *testing.T) {
			path := withCwd(t, "valid/v3-branched.jsonl", string(jsonString(tt.stored)))
			t.Chdir(t.TempDir())
			opts := options(t)
			opts.Leaf = "60e9216a"
			opts.Output = filepath.Join(filepath.Dir(path), "fork.jsonl")
			if _, err := ForkFile(safefile.OS(), path, opts); err != nil {
				t.Fatal(err)
			}
			s, err := project.LoadFile(opts.Output, session.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			wd, _ := os.Getwd()
			want := strings.Replace(tt.want, "/run/w", wd, 1)
			if tt.want == "/run" {
				want = filepath.Dir(wd)
			}
			if got, _ := s.Header.Field("cwd"); string(got) != string(jsonString(want)) {
				t.Errorf("cwd %s, want %q", got, want)
			}
		})
	}
}

// TestRecoverHeaderCwdAsPi: --cwd is written as pi would write it (pi
// always writes an absolute, clean cwd), not as given.
func TestRecoverHeaderCwdAsPi(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	first := json.RawMessage(`{"type":"model_change","id":"aaaa0001","parentId":null,"timestamp":"2026-02-09T15:40:01.000Z"}`)
	const name = "2026-02-09T15-40-00-123Z_019c4a7e-1111-7000-8000-000000000001.jsonl"
	for _, tt := range piCwds {
		if tt.stored == "" { // no --cwd
			continue
		}
		t.Run(tt.stored, func(t *testing.T) {
			t.Chdir(t.TempDir())
			wd, _ := os.Getwd()
			want := strings.Replace(tt.want, "/run/w", wd, 1)
			if tt.want == "/run" {
				want = filepath.Dir(wd)
			}
			g, err := GuessHeader(filepath.Join(wd, name), first, "", tt.stored)
			if err != nil || g.Cwd != want || g.From["cwd"] != "--cwd" {
				t.Errorf("%+v %v, want cwd %q", g, err, want)
			}
		})
	}
}

// TestCwdPiCannotRead: a header cwd that is a file URL pi cannot read (pi
// fails to open the session) is refused by fork, the source untouched and
// nothing written; as --cwd it is an error.
func TestCwdPiCannotRead(t *testing.T) {
	for _, cwd := range []string{"file://host/x", "file:///a%2Fb", "file:///a%2fb"} {
		path := withCwd(t, "valid/v3-branched.jsonl", string(jsonString(cwd)))
		opts := options(t)
		opts.Leaf = "60e9216a"
		opts.Output = filepath.Join(filepath.Dir(path), "fork.jsonl")
		_, err := ForkFile(safefile.OS(), path, opts)
		var me *safefile.Error
		if !errors.As(err, &me) || me.Code != safefile.Unsupported || !strings.Contains(err.Error(), "pi cannot read") {
			t.Errorf("fork of cwd %q: %v", cwd, err)
		}
		if _, err := os.Lstat(opts.Output); err == nil {
			t.Errorf("fork of cwd %q wrote %s", cwd, opts.Output)
		}
		first := json.RawMessage(`{"type":"model_change","id":"aaaa0001","parentId":null,"timestamp":"2026-02-09T15:40:01.000Z"}`)
		if g, err := GuessHeader(path, first, "abc", cwd); err == nil || !strings.HasPrefix(err.Error(), "--cwd") {
			t.Errorf("--cwd %q: %+v %v", cwd, g, err)
		}
	}
}

// TestForkDryRunWritesNothing: a dry run checks the new session without
// writing it anywhere, not even to the system's temp directory (here one
// that does not exist, where creating a file fails).
func TestForkDryRunWritesNothing(t *testing.T) {
	for _, tt := range []struct{ file, leaf string }{
		{"valid/v3-branched.jsonl", "60e9216a"},
		{"valid/v3-branched.jsonl", "84590f75"},
		{"valid/v3-everything.jsonl", ""},
		{"valid/v3-compacted.jsonl", ""},
	} {
		t.Run(tt.file+"@"+tt.leaf, func(t *testing.T) {
			path, orig := copyFile(t, tt.file)
			t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "none"))
			opts := options(t)
			opts.Leaf, opts.DryRun = tt.leaf, true
			if tt.leaf == "" {
				src, err := project.LoadFile(path, session.DefaultLimits())
				if err != nil {
					t.Fatal(err)
				}
				opts.Leaf = src.DefaultLeaf().ID()
			}
			rep, err := ForkFile(safefile.OS(), path, opts)
			if err != nil || rep.Action != "would-fork" {
				t.Fatalf("%+v %v", rep, err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
				t.Error("the source changed")
			}
			if left, _ := os.ReadDir(filepath.Dir(path)); len(left) != 1 {
				t.Errorf("the directory holds %v", left)
			}
		})
	}
}

// TestForkMigratedCopyInterrupted: the version-3 copy of a version-1 or 2
// source, which fork reads from a temporary file, is recorded in
// Options.Temps, so a run stopped by a signal does not leave it behind.
func TestForkMigratedCopyInterrupted(t *testing.T) {
	path, _ := copyFile(t, "valid/v1-linear.jsonl")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	opts := options(t)
	src, err := project.LoadFile(path, session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	opts.Leaf, opts.DryRun = src.DefaultLeaf().ID(), true
	opts.Temps = &safefile.Temps{}
	opts.Temps.RemoveAll(safefile.OS()) // the signal came first
	if rep, err := ForkFile(safefile.OS(), path, opts); err == nil {
		t.Errorf("an interrupted run succeeded: %+v", rep)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestForkStandInAgreesWithTheFile: the dry run's stand-in of a fork
// (dryRunCheck) has the dialect and the context of the fork file the run
// writes, for every leaf of the corpus's valid and omp files and of the
// real sessions.
func TestForkStandInAgreesWithTheFile(t *testing.T) {
	var files []string
	for _, pattern := range []string{corpus + "/valid/*.jsonl", corpus + "/omp/*.jsonl", "../../../shared/corpus/real/*.jsonl"} {
		found, _ := filepath.Glob(pattern)
		files = append(files, found...)
	}
	n := 0
	for _, src := range files {
		s, err := project.Open(src, session.DefaultLimits())
		if err != nil || s.Header.Version < project.CurrentVersion {
			continue
		}
		for _, leaf := range s.Leaves() {
			if leaf.ID() == "" {
				continue
			}
			plan, err := Fork(s, leaf, "/src.jsonl", "019c0000-0000-7000-8000-00000000000f", now, nil)
			if err != nil {
				continue
			}
			path := filepath.Join(t.TempDir(), "fork.jsonl")
			f, _ := os.Create(path)
			if err := errors.Join(plan.write(f, nil), f.Close()); err != nil {
				t.Fatal(err)
			}
			fork, err := project.Open(path, session.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			ctx, err := s.Context(leaf)
			if err != nil {
				t.Fatal(err)
			}
			whole := map[*project.Entry]bool{}
			for _, e := range ctx.Entries {
				whole[e] = true
			}
			var buf bytes.Buffer
			if err := plan.write(&buf, whole); err != nil {
				t.Fatal(err)
			}
			start := &prefixWriter{max: session.SniffBytes}
			if err := plan.write(start, nil); err != nil && err != errPrefixFull {
				t.Fatal(err)
			}
			stand, err := project.Load(&buf, session.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			stand.Dialect = session.SniffDialect(start.b)
			if stand.Dialect != fork.Dialect {
				t.Errorf("%s@%s: dialect %s, the file's %s", src, leaf.ID(), stand.Dialect, fork.Dialect)
			}
			a := contextOf(t, fork, fork.Lookup)(fork.DefaultLeaf().ID())
			b := contextOf(t, stand, stand.Lookup)(stand.DefaultLeaf().ID())
			if a != b {
				t.Errorf("%s@%s: the stand-in's context differs from the file's:\n%s\n%s", src, leaf.ID(), b, a)
			}
			fork.Close()
			n++
		}
		s.Close()
	}
	if n < 20 {
		t.Errorf("only %d forks compared", n)
	}
	t.Logf("%d forks compared", n)
}
