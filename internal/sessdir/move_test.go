package sessdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

var stamp = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// writeSession writes a session of cwd at root/rel, with parentSession
// parent when it is not "", its mtime stamp.
func writeSession(t *testing.T, root, rel, cwd, parent string) string {
	t.Helper()
	path := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	extra := ""
	if parent != "" {
		extra = `, "parentSession" : ` + jsonString(parent)
	}
	body := fmt.Sprintf(`{"type":"session","version":3,"id":%s,"timestamp":"2026-01-01T00:00:00.000Z","cwd":%s%s}`+"\n"+
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"caf\u00e9"}}`+"\n",
		jsonString(filepath.Base(rel)), jsonString(cwd), extra)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	return path
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// tree lists the files under root with their first line, and checks
// every mtime is stamp.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".pisess-tmp") {
			return err // (a temp file a failed rewrite could not remove is no session)
		}
		b, _ := os.ReadFile(path)
		first, rest, _ := strings.Cut(string(b), "\n")
		rel, _ := filepath.Rel(root, path)
		out = append(out, rel+" "+strings.ReplaceAll(first, root, "ROOT"))
		if !strings.Contains(rest, `"content":"caf\u00e9"`) {
			t.Errorf("%s: the entries changed: %q", rel, rest)
		}
		if info, _ := d.Info(); !info.ModTime().Equal(stamp) && !strings.HasSuffix(path, ".bak") {
			t.Errorf("%s: mtime %v, want %v", rel, info.ModTime(), stamp)
		}
		return nil
	})
	return out
}

// project writes a sessions directory: a project /old/shop with a
// sub-project and a fork, an unrelated project forked from the shop, and
// a lookalike /old/shopping.
func project(t *testing.T) string {
	root := t.TempDir()
	a := writeSession(t, root, "--old-shop--/a.jsonl", "/old/shop", "")
	writeSession(t, root, "--old-shop--/fork.jsonl", "/old/shop/", a) // pi's cwd, trailing '/' and all
	writeSession(t, root, "--old-shop-sub--/b.jsonl", "/old/shop/sub", "")
	writeSession(t, root, "--other--/c.jsonl", "/other", a)
	writeSession(t, root, "--old-shopping--/d.jsonl", "/old/shopping", "")
	return root
}

// moved is the project after the move of /old/shop to /new/shop.
var moved = []string{
	`--new-shop--/a.jsonl {"type":"session","version":3,"id":"a.jsonl","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/new/shop"}`,
	`--new-shop--/fork.jsonl {"type":"session","version":3,"id":"fork.jsonl","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/new/shop", "parentSession" : "ROOT/--new-shop--/a.jsonl"}`,
	`--new-shop-sub--/b.jsonl {"type":"session","version":3,"id":"b.jsonl","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/new/shop/sub"}`,
	`--old-shopping--/d.jsonl {"type":"session","version":3,"id":"d.jsonl","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/old/shopping"}`,
	`--other--/c.jsonl {"type":"session","version":3,"id":"c.jsonl","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/other", "parentSession" : "ROOT/--old-shop--/a.jsonl"}`,
}

func move(root string, opts MoveOptions) ([]Change, error) {
	opts.Root = root
	if opts.From == "" {
		opts.From, opts.To = "/old/shop", "/new/shop"
	}
	var got []Change
	err := Move(safefile.OS(), opts, func(c Change) { got = append(got, c) })
	return got, err
}

func TestMove(t *testing.T) {
	root := project(t)
	changes, err := move(root, MoveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(moved)
	want[4] = strings.Replace(want[4], "--old-shop--", "--new-shop--", 1)
	if got := tree(t, root); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var actions []string
	for _, c := range changes {
		rel, _ := filepath.Rel(root, c.To)
		actions = append(actions, c.Action+" "+rel+" "+c.CwdAfter)
	}
	wantActions := []string{"updated --other--/c.jsonl /other", "moved --new-shop--/a.jsonl /new/shop",
		"moved --new-shop--/fork.jsonl /new/shop", "moved --new-shop-sub--/b.jsonl /new/shop/sub"}
	if !slices.Equal(actions, wantActions) {
		t.Errorf("changes %q, want %q", actions, wantActions)
	}
	// Done: a second run finds nothing to move.
	if _, err := move(root, MoveOptions{}); !isRefusal(err, NoSessions) {
		t.Errorf("second run: %v", err)
	}
}

func isRefusal(err error, code string) bool {
	var r *Refusal
	return errors.As(err, &r) && r.Code == code
}

func TestMoveDryRunAndBackup(t *testing.T) {
	root := project(t)
	before := tree(t, root)
	changes, err := move(root, MoveOptions{DryRun: true})
	if err != nil || len(changes) != 4 || changes[1].Action != "would-move" || changes[0].Action != "would-update" {
		t.Fatalf("dry run: %v %+v", err, changes)
	}
	if after := tree(t, root); !slices.Equal(before, after) {
		t.Errorf("the dry run changed files:\n%s", strings.Join(after, "\n"))
	}
	changes, err = move(root, MoveOptions{BackupSuffix: ".bak"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		b, err := os.ReadFile(c.Backup)
		if err != nil || !strings.Contains(string(b), `"cwd":"`+c.CwdBefore+`"`) {
			t.Errorf("%s: backup %q: %v", c.File, c.Backup, err)
		}
	}
}

// TestMoveFlat: in a sessions directory of pi's sessionDir setting the
// files lie in it directly; they stay, their cwd changes.
func TestMoveFlat(t *testing.T) {
	root := t.TempDir()
	writeSession(t, root, "a.jsonl", "/old/shop", "")
	writeSession(t, root, "b.jsonl", "/elsewhere", "")
	if _, err := move(root, MoveOptions{}); err != nil {
		t.Fatal(err)
	}
	got := tree(t, root)
	if len(got) != 2 || !strings.Contains(got[0], `a.jsonl {`) || !strings.Contains(got[0], `"cwd":"/new/shop"`) || !strings.Contains(got[1], `"/elsewhere"`) {
		t.Errorf("got %q", got)
	}
}

func TestMoveRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
		opts  MoveOptions
		code  string
	}{
		{"no session in OLD", func(*testing.T, string) {}, MoveOptions{From: "/nowhere", To: "/new"}, NoSessions},
		{"a lookalike is not inside OLD", func(*testing.T, string) {}, MoveOptions{From: "/old/sho", To: "/new"}, NoSessions},
		{"target with other bytes", func(t *testing.T, root string) {
			writeSession(t, root, "--new-shop-sub--/b.jsonl", "/someone/else", "")
		}, MoveOptions{}, TargetExists},
		{"two sessions bound for one name", func(t *testing.T, root string) {
			// /old/shop/x-y and /old/shop/x/y: pi's lossy encoding gives both --new-shop-x-y--
			writeSession(t, root, "--old-shop-x-y--/same.jsonl", "/old/shop/x-y", "")
			writeSession(t, root, "--old-shop-x--y/same.jsonl", "/old/shop/x/y", "")
		}, MoveOptions{}, Collision},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := project(t)
			tt.setup(t, root)
			before := tree(t, root)
			_, err := move(root, tt.opts)
			if !isRefusal(err, tt.code) {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
			if after := tree(t, root); !slices.Equal(before, after) {
				t.Errorf("a refused move changed files:\n%s", strings.Join(after, "\n"))
			}
		})
	}
}

// hookFS runs a function before the first Lstat of a name (after the
// headers were read): a writer changing a session under the move.
type hookFS struct {
	safefile.FS
	name string
	do   func()
}

func (h *hookFS) Lstat(name string) (fs.FileInfo, error) {
	if name == h.name && h.do != nil {
		h.do()
		h.do = nil
	}
	return h.FS.Lstat(name)
}

func appendLine(t *testing.T, path string) func() {
	return func() {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-01-01T10:00:01.000Z","message":{"role":"user","content":"caf\u00e9"}}` + "\n")
		f.Close()
		os.Chtimes(path, stamp, stamp.Add(time.Second))
	}
}

// TestMoveRefusesAFileBeingWritten: a session that changes after its
// header was read stops the move before anything changed.
func TestMoveRefusesAFileBeingWritten(t *testing.T) {
	root := project(t)
	b := filepath.Join(root, "--old-shop-sub--/b.jsonl")
	before := tree(t, root)
	fsys := &hookFS{FS: safefile.OS(), name: b, do: appendLine(t, b)}
	err := Move(fsys, MoveOptions{Root: root, From: "/old/shop", To: "/new/shop"}, func(Change) {})
	if !isRefusal(err, Changed) {
		t.Fatalf("got %v", err)
	}
	os.Chtimes(b, stamp, stamp) // the writer's append aside,
	after := tree(t, root)      // nothing changed
	if len(after) != len(before) || !slices.Equal(after, before) {
		t.Errorf("files changed:\n%s", strings.Join(after, "\n"))
	}
}

// TestMoveResumes: every state a run stopped half-way leaves is finished
// by a second run, to the state of one whole run.
func TestMoveResumes(t *testing.T) {
	want := slices.Clone(moved)
	want[4] = strings.Replace(want[4], "--old-shop--", "--new-shop--", 1)
	stops := []struct {
		name  string
		setup func(t *testing.T, root string)
	}{
		{"after the references", func(t *testing.T, root string) {
			c := filepath.Join(root, "--other--/c.jsonl")
			writeSession(t, root, "--other--/c.jsonl", "/other", filepath.Join(root, "--new-shop--/a.jsonl"))
			_ = c
		}},
		{"after a link, before the old name went", func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, "--new-shop--"), 0o755)
			os.Link(filepath.Join(root, "--old-shop--/a.jsonl"), filepath.Join(root, "--new-shop--/a.jsonl"))
		}},
		{"after a rename, before the header", func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, "--new-shop--"), 0o755)
			os.Rename(filepath.Join(root, "--old-shop--/a.jsonl"), filepath.Join(root, "--new-shop--/a.jsonl"))
		}},
		{"a copy of the same bytes under the new name", func(t *testing.T, root string) {
			b, err := os.ReadFile(filepath.Join(root, "--old-shop--/a.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			copied := filepath.Join(root, "--new-shop--/a.jsonl")
			os.MkdirAll(filepath.Dir(copied), 0o755)
			if err := os.WriteFile(copied, b, 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(copied, stamp, stamp)
		}},
		{"after the parent moved, before its fork", func(t *testing.T, root string) {
			os.Remove(filepath.Join(root, "--old-shop--/a.jsonl"))
			writeSession(t, root, "--new-shop--/a.jsonl", "/new/shop", "")
			writeSession(t, root, "--other--/c.jsonl", "/other", filepath.Join(root, "--new-shop--/a.jsonl"))
		}},
	}
	for _, tt := range stops {
		t.Run(tt.name, func(t *testing.T) {
			root := project(t)
			tt.setup(t, root)
			if _, err := move(root, MoveOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := tree(t, root); !slices.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestMoveTwoAtOnce: a second move while one holds the directory is
// refused (busy) and changes nothing.
func TestMoveTwoAtOnce(t *testing.T) {
	root := project(t)
	unlock, err := lock(safefile.OS(), root)
	if err != nil {
		t.Fatal(err)
	}
	before := tree(t, root)
	_, err = move(root, MoveOptions{})
	unlock()
	if !isRefusal(err, Busy) {
		t.Fatalf("got %v", err)
	}
	if after := tree(t, root); !slices.Equal(before, after) {
		t.Error("a busy move changed files")
	}
	if _, err := move(root, MoveOptions{}); err != nil {
		t.Errorf("after the other run: %v", err)
	}
}

// TestMoveSymlinkedSessionsDir: the sessions directory may be a link (to
// another disk); references written through the link stay so.
func TestMoveSymlinkedSessionsDir(t *testing.T) {
	real := project(t)
	link := filepath.Join(t.TempDir(), "sessions")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	writeSession(t, real, "--other--/via.jsonl", "/other", filepath.Join(link, "--old-shop--/a.jsonl"))
	if _, err := move(link, MoveOptions{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(real, "--other--/via.jsonl"))
	if !strings.Contains(string(b), filepath.Join(link, "--new-shop--/a.jsonl")) {
		t.Errorf("the reference through the link: %s", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

// TestMoveHostileNames: cwds and names with quotes, backslashes, control
// characters and non-UTF-8 bytes move like any other.
func TestMoveHostileNames(t *testing.T) {
	root := t.TempDir()
	for _, cwd := range []string{"/old/shop/a \"q\" b", "/old/shop/back\\slash", "/old/shop/nl\nx", "/old/shop/bad\xffutf8", "/old/shop/-dash-"} {
		writeSession(t, root, session.DirName(cwd)+"/s\x1b[31m.jsonl", cwd, "")
	}
	if _, err := move(root, MoveOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range tree(t, root) {
		dir, _, _ := strings.Cut(f, "/")
		if !strings.HasPrefix(dir, "--new-shop-") || !strings.Contains(f, `"cwd":"/new/shop/`) {
			t.Errorf("not moved: %q", f)
		}
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		path, dir, rest string
		ok              bool
	}{
		{"/old/shop", "/old/shop", "", true},
		{"/old/shop/sub", "/old/shop", "/sub", true},
		{"/old/shopping", "/old/shop", "", false},
		{"/old/shop\\x", "/old/shop", "", false}, // '\' is a name's character on Linux
		{"/old", "/old/shop", "", false},
		{"/anything", "/", "/anything", true},
		{"", "/old", "", false},
	}
	for _, tt := range tests {
		if rest, ok := within(tt.path, tt.dir); rest != tt.rest || ok != tt.ok {
			t.Errorf("within(%q, %q) = %q, %v", tt.path, tt.dir, rest, ok)
		}
	}
}

// faultFS fails the n-th change it is asked to make (and every one after
// it, as a full disk or a lost mount would), counting from 1.
type faultFS struct {
	safefile.FS
	n, calls int
}

var errInjected = errors.New("injected fault")

func (f *faultFS) fault() error {
	f.calls++
	if f.calls >= f.n {
		return errInjected
	}
	return nil
}

func (f *faultFS) CreateExcl(name string, perm fs.FileMode) (safefile.File, error) {
	if err := f.fault(); err != nil {
		return nil, err
	}
	return f.FS.CreateExcl(name, perm)
}

func (f *faultFS) Link(a, b string) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.FS.Link(a, b)
}

func (f *faultFS) Rename(a, b string) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.FS.Rename(a, b)
}

func (f *faultFS) Remove(name string) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.FS.Remove(name)
}

func (f *faultFS) SyncDir(dir string) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.FS.SyncDir(dir)
}

func (f *faultFS) Chtimes(name string, a, m time.Time) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.FS.Chtimes(name, a, m)
}

// TestMoveSurvivesFaults fails each change a move makes in turn: every
// session stays whole and in one place, and a second run finishes.
func TestMoveSurvivesFaults(t *testing.T) {
	want := slices.Clone(moved)
	want[4] = strings.Replace(want[4], "--old-shop--", "--new-shop--", 1)
	for n := 1; ; n++ {
		root := project(t)
		fsys := &faultFS{FS: safefile.OS(), n: n}
		err := Move(fsys, MoveOptions{Root: root, From: "/old/shop", To: "/new/shop"}, func(Change) {})
		if err == nil {
			if n < 10 {
				t.Fatalf("a move of 4 files made only %d changes", n-1)
			}
			t.Logf("%d changes, each failed in turn", n-1)
			break
		}
		if !errors.Is(err, errInjected) {
			t.Fatalf("fault %d: %v", n, err)
		}
		ids := map[string][]os.FileInfo{} // session id -> the files that hold it
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".pisess-tmp") {
				s, err := ReadSession(safefile.OS(), path)
				if err != nil {
					t.Errorf("fault %d: %s: %v", n, path, err)
					return nil
				}
				if !slices.ContainsFunc(ids[s.Header.ID], func(i os.FileInfo) bool { return os.SameFile(i, s.Info) }) {
					ids[s.Header.ID] = append(ids[s.Header.ID], s.Info)
				}
			}
			return nil
		})
		for id, files := range ids {
			if len(files) > 1 { // two names of one file (after a link) are one
				t.Errorf("fault %d: %s is in %d files", n, id, len(files))
			}
		}
		if len(ids) != 5 {
			t.Errorf("fault %d: %d sessions", n, len(ids))
		}
		tree(t, root) // every file whole, its entries and mtime kept
		temps, _ := filepath.Glob(filepath.Join(root, "*", ".pisess-tmp-*"))
		for _, tmp := range temps { // as repair --clean-temps does
			os.Remove(tmp)
		}
		if _, err := move(root, MoveOptions{}); err != nil && !isRefusal(err, NoSessions) { // (the fault hit after the last file's rename)
			t.Fatalf("fault %d: the second run: %v", n, err)
		}
		if got := tree(t, root); !slices.Equal(got, want) {
			t.Fatalf("fault %d: the second run left\n%s", n, strings.Join(got, "\n"))
		}
	}
}
