package sessdir

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// The conformance test moves pi's own sessions (the real corpus, each in
// the directory pi computes for its cwd) and asks pi 1.6.0 where it finds
// them (conformance/pi-find.mjs: SessionManager.list and continueRecent):
//
//	PISESS_CONFORMANCE=1 go test ./internal/sessdir -run Conformance -v
//
// It needs Node.js and `npm ci --ignore-scripts` in conformance/.

// piFound is what pi-find.mjs reports.
type piFound struct {
	Listed []struct {
		ID   string `json:"id"`
		File string `json:"file"`
	} `json:"listed"`
	Recent   *string           `json:"recent"`
	Messages []json.RawMessage `json:"messages"`
}

func piFind(t *testing.T, agent, cwd string) piFound {
	t.Helper()
	cmd := exec.Command("node", "../../conformance/pi-find.mjs", agent, cwd)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi-find %s: %v", cwd, err)
	}
	var f piFound
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestConformanceMove(t *testing.T) {
	if os.Getenv("PISESS_CONFORMANCE") == "" {
		t.Skip("set PISESS_CONFORMANCE=1 to ask pi 1.6.0 where it finds moved sessions (needs node and npm ci in conformance/)")
	}
	files, _ := filepath.Glob("../../../shared/corpus/real/*.jsonl")
	if len(files) == 0 {
		t.Skip("the real corpus is not here (../../../shared/corpus/real)")
	}
	// Two copies of one sessions directory: pi reads one as it is, pisess
	// moves the other and pi reads it after (pi may migrate what it opens).
	before, after := t.TempDir(), t.TempDir()
	cwds := map[string]bool{}
	for i, src := range files {
		s, err := ReadSession(safefile.OS(), src)
		if err != nil || !filepath.IsAbs(s.Header.Cwd) {
			continue
		}
		cwd := filepath.Clean(s.Header.Cwd)
		cwds[cwd] = true
		data, _ := os.ReadFile(src)
		mtime := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC) // distinct: continueRecent takes the newest
		for _, agent := range []string{before, after} {
			dir := filepath.Join(agent, "sessions", session.DirName(cwd))
			os.MkdirAll(dir, 0o755)
			name := filepath.Join(dir, filepath.Base(src))
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(name, mtime, mtime)
		}
	}
	for cwd := range cwds {
		to := "/moved/to" + cwd
		want := piFind(t, before, cwd)
		if len(want.Listed) == 0 {
			t.Fatalf("pi lists no session of %s before the move", cwd)
		}
		err := Move(safefile.OS(), MoveOptions{Root: filepath.Join(after, "sessions"), From: cwd, To: to}, func(Change) {})
		if err != nil {
			t.Fatal(err)
		}
		got := piFind(t, after, to)
		if len(got.Listed) != len(want.Listed) {
			t.Errorf("%s: pi lists %d sessions after the move, %d before", cwd, len(got.Listed), len(want.Listed))
			continue
		}
		for i := range got.Listed {
			if got.Listed[i].ID != want.Listed[i].ID || filepath.Base(got.Listed[i].File) != filepath.Base(want.Listed[i].File) ||
				filepath.Dir(got.Listed[i].File) != session.DirName(to) {
				t.Errorf("%s: listed %v after, %v before", cwd, got.Listed[i], want.Listed[i])
			}
		}
		if got.Recent == nil || want.Recent == nil || filepath.Base(*got.Recent) != filepath.Base(*want.Recent) {
			t.Errorf("%s: pi -c opens %v after the move, %v before", cwd, got.Recent, want.Recent)
		}
		if len(got.Messages) != len(want.Messages) {
			t.Errorf("%s: context of %d messages after, %d before", cwd, len(got.Messages), len(want.Messages))
		}
		for i := range min(len(got.Messages), len(want.Messages)) {
			if !bytes.Equal(got.Messages[i], want.Messages[i]) {
				t.Errorf("%s: message %d differs after the move", cwd, i)
				break
			}
		}
		if left := piFind(t, after, cwd); len(left.Listed) != 0 {
			t.Errorf("%s: pi still lists %d sessions at the old cwd", cwd, len(left.Listed))
		}
		t.Logf("%s → %s: %d sessions, pi -c opens %s (%d messages)", cwd, to, len(got.Listed), *got.Recent, len(got.Messages))
	}
}
