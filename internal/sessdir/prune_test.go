package sessdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/safefile"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// aged writes a session of cwd at root/rel whose last entry is days old,
// parent its parentSession ("" for none), size about pad bytes more, and
// mtime mtime ago.
func aged(t *testing.T, root, rel, cwd string, days int, parent string, pad int, mtime time.Duration) string {
	t.Helper()
	path := filepath.Join(root, rel)
	os.MkdirAll(filepath.Dir(path), 0o755)
	extra := ""
	if parent != "" {
		extra = `,"parentSession":` + jsonString(parent)
	}
	last := now.Add(-time.Duration(days) * 24 * time.Hour).Format("2006-01-02T15:04:05.000Z")
	body := fmt.Sprintf(`{"type":"session","version":3,"id":"x","timestamp":"2025-01-01T00:00:00.000Z","cwd":%s%s}`+"\n"+
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":%s}}`+"\n"+
		`{"type":"message","id":"u2","parentId":"u1","timestamp":%q,"message":{"role":"user","content":"last"}}`+"\n",
		jsonString(cwd), extra, jsonString(strings.Repeat("x", pad)), last)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m := now.Add(-mtime)
	os.Chtimes(path, m, m)
	return path
}

func prune(t *testing.T, root string, opts PruneOptions) ([]string, error) {
	t.Helper()
	opts.Root, opts.Now = root, now
	var got []string
	err := Prune(safefile.OS(), opts, func(p Pruned) {
		rel, _ := filepath.Rel(root, p.File)
		s := p.Action + " " + rel
		if p.Fork {
			s += " (fork)"
		}
		got = append(got, s)
	})
	return got, err
}

func pruneTree(t *testing.T) string {
	root := t.TempDir()
	week := 7 * 24 * time.Hour
	old := aged(t, root, "--p--/old.jsonl", "/p", 100, "", 0, week)
	aged(t, root, "--p--/big.jsonl", "/p", 100, "", 5000, week)
	aged(t, root, "--p--/new.jsonl", "/p", 5, "", 0, week)
	aged(t, root, "--p--/busy.jsonl", "/p", 100, "", 0, time.Minute) // old entries, but written to a minute ago
	aged(t, root, "--q--/fork-of-old.jsonl", "/q", 10, old, 0, week)
	parent := aged(t, root, "--q--/parent.jsonl", "/q", 200, "", 0, week)
	aged(t, root, "--q--/old-fork.jsonl", "/q", 150, parent, 0, week)
	aged(t, root, "flat.jsonl", "/r", 100, "", 0, week)
	return root
}

func TestPrune(t *testing.T) {
	tests := []struct {
		name string
		opts PruneOptions
		want []string
	}{
		{"older than 30 days: forks kept with their parents", PruneOptions{OlderThan: 30 * 24 * time.Hour},
			[]string{"trashed --p--/big.jsonl", "trashed --q--/old-fork.jsonl", "trashed --q--/parent.jsonl", "trashed flat.jsonl"}},
		{"with forks", PruneOptions{OlderThan: 30 * 24 * time.Hour, WithForks: true},
			[]string{"trashed --p--/big.jsonl", "trashed --p--/old.jsonl", "trashed --q--/fork-of-old.jsonl (fork)", "trashed --q--/old-fork.jsonl", "trashed --q--/parent.jsonl", "trashed flat.jsonl"}},
		{"larger than", PruneOptions{OlderThan: 30 * 24 * time.Hour, LargerThan: 1000}, []string{"trashed --p--/big.jsonl"}},
		{"one project", PruneOptions{OlderThan: 30 * 24 * time.Hour, Project: "/q"}, []string{"trashed --q--/old-fork.jsonl", "trashed --q--/parent.jsonl"}},
		{"a fork younger than the age keeps its parent", PruneOptions{OlderThan: 160 * 24 * time.Hour, Project: "/q"}, nil},
		{"nothing that old", PruneOptions{OlderThan: 1000 * 24 * time.Hour}, nil},
		{"delete", PruneOptions{OlderThan: 30 * 24 * time.Hour, LargerThan: 1000, Delete: true}, []string{"deleted --p--/big.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := pruneTree(t)
			dry := tt.opts
			dry.DryRun = true
			wouldDo, err := prune(t, root, dry)
			if err != nil {
				t.Fatal(err)
			}
			before := names(t, root)
			got, err := prune(t, root, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			if len(wouldDo) != len(got) {
				t.Errorf("the dry run said %q", wouldDo)
			}
			for _, g := range got {
				rel := strings.TrimSuffix(strings.Fields(g)[1], " (fork)")
				if _, err := os.Stat(filepath.Join(root, rel)); err == nil {
					t.Errorf("%s is still there", rel)
				}
				_, err := os.Stat(filepath.Join(Trash(root), rel))
				if tt.opts.Delete == (err == nil) {
					t.Errorf("%s in the trash: %v (delete %v)", rel, err, tt.opts.Delete)
				}
				if !slices.Contains(before, rel) {
					t.Errorf("%s was not there", rel)
				}
			}
			if n := len(names(t, root)); n != len(before)-len(got) {
				t.Errorf("%d files left, want %d", n, len(before)-len(got))
			}
		})
	}
}

// names lists the files under root.
func names(t *testing.T, root string) []string {
	var out []string
	filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(root, path)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestPruneTrashTaken: a trash name that holds other bytes refuses the
// run before anything moved; a stopped run's link is finished.
func TestPruneTrashTaken(t *testing.T) {
	root := pruneTree(t)
	trash := Trash(root)
	os.MkdirAll(filepath.Join(trash, "--p--"), 0o755)
	os.WriteFile(filepath.Join(trash, "--p--/big.jsonl"), []byte("other\n"), 0o644)
	before := names(t, root)
	if _, err := prune(t, root, PruneOptions{OlderThan: 30 * 24 * time.Hour}); !isRefusal(err, TargetExists) {
		t.Fatalf("got %v", err)
	}
	if after := names(t, root); !slices.Equal(before, after) {
		t.Errorf("a refused prune changed files: %q", after)
	}
	os.Remove(filepath.Join(trash, "--p--/big.jsonl"))
	os.Link(filepath.Join(root, "--p--/big.jsonl"), filepath.Join(trash, "--p--/big.jsonl")) // a run killed after its link
	if _, err := prune(t, root, PruneOptions{OlderThan: 30 * 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "--p--/big.jsonl")); err == nil {
		t.Error("the half-pruned file is still there")
	}
}

// TestPruneLastEntry: the age is the last entry's, read from the end of
// the file, also past a last line longer than the window read.
func TestPruneLastEntry(t *testing.T) {
	root := t.TempDir()
	path := aged(t, root, "--p--/s.jsonl", "/p", 100, "", 0, time.Hour)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, `{"type":"message","id":"u3","parentId":"u2","timestamp":"2026-05-31T00:00:00.000Z","message":{"role":"user","content":%s}}`+"\n", jsonString(strings.Repeat("y", tailWindow+10)))
	f.Close()
	s, err := ReadSession(safefile.OS(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, text := lastEntry(safefile.OS(), s); text != "2026-05-31T00:00:00.000Z" {
		t.Errorf("last entry %q", text)
	}
	os.Truncate(path, s.Info.Size()-3) // a torn last line: the entry before it counts
	s, _ = ReadSession(safefile.OS(), path)
	if _, text := lastEntry(safefile.OS(), s); !strings.HasPrefix(text, now.Add(-100*24*time.Hour).Format("2006-01-02")) {
		t.Errorf("last entry of a torn file %q", text)
	}
}

// TestPruneSurvivesFaults fails each change a prune makes in turn: every
// session is in the sessions directory or the trash (two names of one
// file after a link count once), and a second run finishes.
func TestPruneSurvivesFaults(t *testing.T) {
	opts := PruneOptions{OlderThan: 30 * 24 * time.Hour, Now: now}
	for n := 1; ; n++ {
		root := pruneTree(t)
		all := len(names(t, root))
		opts.Root = root
		err := Prune(&faultFS{FS: safefile.OS(), n: n}, opts, func(Pruned) {})
		if err == nil {
			t.Logf("%d changes, each failed in turn", n-1)
			break
		}
		if !errors.Is(err, errInjected) {
			t.Fatalf("fault %d: %v", n, err)
		}
		seen := map[string][]os.FileInfo{}
		for _, dir := range []string{root, Trash(root)} {
			for _, rel := range names(t, dir) {
				info, _ := os.Stat(filepath.Join(dir, rel))
				if !slices.ContainsFunc(seen[rel], func(i os.FileInfo) bool { return os.SameFile(i, info) }) {
					seen[rel] = append(seen[rel], info)
				}
			}
		}
		for rel, files := range seen {
			if len(files) != 1 {
				t.Errorf("fault %d: %s is %d files", n, rel, len(files))
			}
		}
		if len(seen) != all {
			t.Errorf("fault %d: %d sessions, want %d", n, len(seen), all)
		}
		if _, err := prune(t, root, opts); err != nil {
			t.Fatalf("fault %d: the second run: %v", n, err)
		}
		if left := len(names(t, root)); left != all-4 {
			t.Fatalf("fault %d: %d sessions left after the second run, want %d", n, left, all-4)
		}
	}
}

// TestTrashBesideTheDirectory: the trash is beside the sessions directory
// however it is named, never inside it (".", "..", a trailing "/").
func TestTrashBesideTheDirectory(t *testing.T) {
	base := t.TempDir()
	sessions := filepath.Join(base, "sessions")
	project := filepath.Join(sessions, "--p--")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(project)
	want := filepath.Join(base, "sessions-trash")
	for _, root := range []string{sessions, sessions + "/", "..", "../", "../--p--/..", "../../sessions"} {
		got := Trash(root)
		abs, err := filepath.Abs(got)
		if err != nil {
			t.Fatal(err)
		}
		if abs != want {
			t.Errorf("Trash(%q) = %q (%s), want %s", root, got, abs, want)
		}
	}
	t.Chdir(sessions)
	if abs, _ := filepath.Abs(Trash(".")); abs != want {
		t.Errorf("Trash(\".\") = %q, want %s", Trash("."), want)
	}
}
