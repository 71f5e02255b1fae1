package fix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// The conformance test runs pi 1.6.0's own loader and projection
// (conformance/pi-fix-check.mjs: loadEntriesFromFile, migrateSessionEntries,
// buildSessionContext) on every file unstick, slim, fork and recover-header
// write from the corpus and from the real sessions:
//
//	PISESS_CONFORMANCE=1 go test ./internal/fix -run Conformance -v
//
// It needs Node.js and `npm ci --ignore-scripts` in conformance/.

// piCheck is what pi-fix-check.mjs reports.
type piCheck struct {
	Entries         int               `json:"entries"`
	Skipped         int               `json:"skipped"`
	Header          bool              `json:"header"`
	LeafID          string            `json:"leafId"`
	Messages        []json.RawMessage `json:"messages"`
	Unanswered      []string          `json:"unanswered"`
	Orphans         []string          `json:"orphans"`
	MaxContentBytes int               `json:"maxContentBytes"`
}

func runPi(t *testing.T, file, leaf string) piCheck {
	t.Helper()
	args := []string{"../../conformance/pi-fix-check.mjs", file}
	if leaf != "" {
		args = append(args, leaf)
	}
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi-fix-check %s: %v", file, err)
	}
	var c piCheck
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func conformanceFiles(t *testing.T) []string {
	if os.Getenv("PISESS_CONFORMANCE") == "" {
		t.Skip("set PISESS_CONFORMANCE=1 to compare with pi 1.6.0 (needs node and npm ci in conformance/)")
	}
	if _, err := os.Stat("../../conformance/node_modules/@earendil-works/pi-coding-agent"); err != nil {
		t.Fatal("conformance/node_modules is missing: run npm ci --ignore-scripts in conformance/")
	}
	var files []string
	for _, pattern := range []string{corpus + "/valid/*.jsonl", corpus + "/invalid/unpaired_tool_in_context-*.jsonl",
		corpus + "/invalid/unanswered_tool_call.jsonl", "../../../shared/corpus/real/*.jsonl"} {
		found, _ := filepath.Glob(pattern)
		files = append(files, found...)
	}
	return files
}

func TestConformanceUnstickAndSlim(t *testing.T) {
	counts := map[string]int{}
	for _, src := range conformanceFiles(t) {
		for _, cmd := range []string{"unstick", "slim", "slim 1KiB"} {
			path := filepath.Join(t.TempDir(), filepath.Base(src))
			orig, _ := os.ReadFile(src)
			os.WriteFile(path, orig, 0o644)
			opts := options(t)
			opts.MaxBytes = 4096
			var rep Report
			var err error
			switch cmd {
			case "unstick":
				rep, err = UnstickFile(safefile.OS(), path, opts)
			case "slim 1KiB":
				opts.MaxBytes = 1024
				fallthrough
			default:
				rep, err = SlimFile(safefile.OS(), path, opts)
			}
			if err != nil {
				counts[cmd+" refused"]++
				t.Logf("%s %s: %v", cmd, filepath.Base(src), err)
				continue
			}
			if rep.Action == "unchanged" {
				counts[cmd+" unchanged"]++
				continue
			}
			counts[cmd+" changed"]++
			got := runPi(t, path, "")
			if got.Skipped != 0 || !got.Header {
				t.Errorf("%s %s: pi skipped %d lines (header %v)", cmd, src, got.Skipped, got.Header)
			}
			if cmd == "unstick" && (len(got.Unanswered) > 0 || len(got.Orphans) > 0) {
				t.Errorf("unstick %s: pi sees calls without results %v and results without calls %v", src, got.Unanswered, got.Orphans)
			}
			if cmd != "unstick" {
				over := slimOver(t, path, opts.MaxBytes, rep.Over, got)
				if over != "" {
					t.Errorf("slim %s: %s", src, over)
				}
			}
		}
	}
	t.Logf("%v", counts)
}

// slimOver checks pi's context after slim: a message an edit can change is
// over the limit only if slim reported it in over, with the size pi sees
// (pi's messages, sources from pisess's projection, which the project
// conformance test holds equal to pi's).
func slimOver(t *testing.T, path string, maxBytes int64, over []Over, got piCheck) string {
	ctx := contextAt(t, path)
	if len(ctx.Messages) != len(got.Messages) {
		return "pisess and pi project different numbers of messages"
	}
	said := map[string]int{}
	for _, o := range over {
		said[o.EntryID] = o.Bytes
	}
	for i, m := range got.Messages {
		role, content := roleAndContent(m)
		id := ctx.Sources[i].ID()
		n, listed := said[id]
		if editable(ctx.Sources[i], role) && int64(len(content)) > maxBytes && n != len(content) {
			return fmt.Sprintf("pi's message %s is still over the limit: %d bytes (reported: %v, %d bytes)", id, len(content), listed, n)
		}
	}
	return ""
}

func TestConformanceFork(t *testing.T) {
	n := 0
	for _, src := range conformanceFiles(t) {
		s, err := project.LoadFile(src, session.DefaultLimits())
		if err != nil {
			continue
		}
		for _, leaf := range s.Leaves() {
			if leaf.ID() == "" {
				continue
			}
			opts := options(t)
			opts.Leaf, opts.Output = leaf.ID(), filepath.Join(t.TempDir(), "fork.jsonl")
			if _, err := ForkFile(safefile.OS(), src, opts); err != nil {
				t.Logf("fork %s@%s: %v", filepath.Base(src), leaf.ID(), err)
				continue
			}
			want := runPi(t, src, leaf.ID())
			got := runPi(t, opts.Output, "")
			if got.Skipped != 0 || !got.Header {
				t.Errorf("fork %s@%s: pi skipped %d lines", src, leaf.ID(), got.Skipped)
			}
			a, _ := json.Marshal(want.Messages)
			b, _ := json.Marshal(got.Messages)
			if !bytes.Equal(a, b) {
				t.Errorf("fork %s@%s: pi's context of the fork differs from the source's at the leaf", src, leaf.ID())
			}
			n++
		}
	}
	t.Logf("%d forks compared", n)
}

func TestConformanceRecoverHeader(t *testing.T) {
	n := 0
	for _, src := range conformanceFiles(t) {
		orig, _ := os.ReadFile(src)
		i := bytes.IndexByte(orig, '\n')
		if i < 0 || !bytes.Contains(orig[:i], []byte(`{"type":"session",`)) { // versions 1, 2 and 3
			continue
		}
		root := t.TempDir()
		dir := filepath.Join(root, "--"+filepath.Base(root)+"--")
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, "2026-01-01T00-00-00-000Z_019c0000-0000-7000-8000-00000000000a.jsonl")
		os.WriteFile(path, orig[i+1:], 0o644)
		opts := options(t)
		opts.Cwd = "/w"
		if _, err := RecoverHeaderFile(safefile.OS(), path, opts); err != nil {
			t.Logf("recover-header %s: %v", filepath.Base(src), err)
			continue
		}
		want := runPi(t, src, "")
		got := runPi(t, path, "")
		a, _ := json.Marshal(want.Messages)
		b, _ := json.Marshal(got.Messages)
		// pi skips no line of the recovered file that it read in the
		// original (two real v1 files have a concatenated line, copied as is)
		if got.Skipped != want.Skipped || !got.Header || !bytes.Equal(a, b) {
			t.Errorf("recover-header %s: pi header %v, skipped %d, same context %v", src, got.Header, got.Skipped, bytes.Equal(a, b))
		}
		n++
	}
	t.Logf("%d headers recovered", n)
}

// piForkHeader is the header line pi 1.6.0's createBranchedSession writes
// for a fork of a copy of src (in dir) at leaf.
const piForkHeader = `
import { SessionManager } from "%s";
import { copyFileSync, readFileSync } from "fs";
import { join } from "path";
const [src, leaf, dir] = process.argv.slice(1);
const copy = join(dir, "src.jsonl");
copyFileSync(src, copy);
const out = SessionManager.open(copy).createBranchedSession(leaf);
process.stdout.write(readFileSync(out, "utf8").split("\n")[0]);
`

// TestConformanceForkCwd: the fork's header cwd is the one pi's
// createBranchedSession writes for each header cwd of piCwds.
func TestConformanceForkCwd(t *testing.T) {
	conformanceFiles(t)
	sm, err := filepath.Abs("../../conformance/node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	for _, tt := range piCwds {
		t.Run(tt.stored, func(t *testing.T) {
			path := withCwd(t, "valid/v3-branched.jsonl", string(jsonString(tt.stored)))
			dir := t.TempDir()
			t.Chdir(dir)
			cmd := exec.Command("node", "--input-type=module", "-e", fmt.Sprintf(piForkHeader, sm), path, "60e9216a", t.TempDir())
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("pi's fork of cwd %q: %v", tt.stored, err)
			}
			var want struct{ Cwd string }
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			opts := options(t)
			opts.Leaf, opts.Output = "60e9216a", filepath.Join(t.TempDir(), "fork.jsonl")
			if _, err := ForkFile(safefile.OS(), path, opts); err != nil {
				t.Fatal(err)
			}
			s, err := project.LoadFile(opts.Output, session.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := s.Header.Field("cwd"); string(got) != string(jsonString(want.Cwd)) {
				t.Errorf("cwd %q: pisess writes %s, pi %q", tt.stored, got, want.Cwd)
			}
			s.Close()
		})
	}
}
