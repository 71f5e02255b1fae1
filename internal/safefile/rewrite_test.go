package safefile

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/testfs"
)

// sampleV1 is a small version-1 session.
const sampleV1 = `{"type":"session","id":"0b8e2c1e-5b8a-4b8e-9c1e-5b8a4b8e9c1e","timestamp":"2025-12-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","timestamp":"2025-12-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}
{"type":"message","timestamp":"2025-12-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"timestamp":2}}
{"type":"compaction","timestamp":"2025-12-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":2,"tokensBefore":10}
`

const origMode fs.FileMode = 0o640

// migrateGen stands in for migrate.Migrate, which safefile's tests cannot
// import: it gives a header without a version `"version":3` (copying
// every other byte, streaming, so a version-3 file is unchanged) and
// refuses a line that holds two objects, as Migrate refuses corruption.
func migrateGen(in io.ReadSeeker, out io.Writer) error {
	br := bufio.NewReader(in)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a long line: copied as it is
			if _, err := out.Write(line); err != nil {
				return err
			}
			_, err := io.Copy(out, br)
			return err
		}
		if bytes.Contains(line, []byte("}{")) {
			return &Error{Code: RefusedCorrupt, Line: n, Err: errors.New("two objects on one line")}
		}
		if n == 1 && !bytes.Contains(line, []byte(`"version":`)) {
			line = bytes.Replace(line, []byte(`{"type":"session",`), []byte(`{"type":"session","version":3,`), 1)
		}
		if _, werr := out.Write(line); werr != nil {
			return werr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// expectedV1 is what migrating sampleV1 gives.
func expectedV1(t *testing.T) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := migrateGen(strings.NewReader(sampleV1), &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

var (
	errIO    = syscall.EIO
	errPerm  = syscall.EPERM
	errAcces = syscall.EACCES
)

// failing returns a fail hook for one operation on names matching match.
func failing(op string, match func(string) bool, err error) func(string, string) error {
	return func(o, name string) error {
		if o == op && match(name) {
			return err
		}
		return nil
	}
}

// both combines fail hooks.
func both(a, b func(string, string) error) func(string, string) error {
	return func(op, name string) error {
		if err := a(op, name); err != nil {
			return err
		}
		return b(op, name)
	}
}

func any_(string) bool { return true }

// TestRewriteFailuresLeaveOriginalUntouched injects a failure at each step
// of the protocol and checks the guarantees: the original is byte-identical
// (or exactly what someone else made it), no temp file remains, no backup
// created by the run remains, a pre-existing backup is untouched, and the
// error has the expected code and exit code.
func TestRewriteFailuresLeaveOriginalUntouched(t *testing.T) {
	const differentBackup = "not the original\n"
	tests := []struct {
		name       string
		content    string                          // original (default sampleV1)
		fail       func(op, name string) error     // injected failure
		limit      int64                           // bytes a created file takes before ENOSPC
		verify     VerifyFunc                      // default: none
		prepare    func(t *testing.T, path string) // before the run
		mutate     func(t *testing.T, path string) // during generate, after reading
		backupWant string                          // content of a pre-existing backup that must survive
		backupKept bool                            // the run's backup must stay: the original was replaced
		noBackup   bool                            // run without BackupSuffix
		wantCode   Code
		wantExit   int
		wantPath   func(path string) string // Error.Path (default: the original)
		originalIs func(t *testing.T) []byte
	}{
		{name: "read-only directory: temp cannot be created",
			fail: failing("CreateExcl", isTemp, errAcces), wantCode: CreateFailed, wantExit: 2},
		{name: "write to temp fails",
			fail: failing("write", isTemp, errIO), wantCode: WriteFailed, wantExit: 2},
		{name: "disk full while writing temp",
			limit: 100, wantCode: WriteFailed, wantExit: 2},
		{name: "fsync of temp fails",
			fail: failing("sync", isTemp, errIO), wantCode: SyncFailed, wantExit: 2},
		{name: "close of temp fails (deferred write error)",
			fail: failing("close", isTemp, errIO), wantCode: WriteFailed, wantExit: 2},
		{name: "chmod of temp fails",
			fail: failing("Chmod", isTemp, errPerm), wantCode: ChmodFailed, wantExit: 2},
		{name: "owner cannot be given",
			fail: failing("Chown", isTemp, errPerm), wantCode: ChmodFailed, wantExit: 2},
		{name: "verify rejects the new generation",
			verify:   func(string, io.Reader) error { return errors.New("schema error at line 3") },
			wantCode: VerifyFailed, wantExit: 1},
		{name: "verify cannot read the temp file",
			verify: func(string, io.Reader) error { return nil },
			fail:   failing("Open", isTemp, errAcces), wantCode: ReadFailed, wantExit: 2},
		{name: "reading the original fails",
			fail: failing("read", func(n string) bool { return strings.HasSuffix(n, "s.jsonl") }, errIO), wantCode: ReadFailed, wantExit: 2},
		{name: "opening the original fails",
			fail: failing("Open", func(n string) bool { return strings.HasSuffix(n, "s.jsonl") }, errAcces), wantCode: ReadFailed, wantExit: 2},
		{name: "hard link impossible and backup copy cannot be created",
			fail:     both(failing("Link", any_, errPerm), failing("CreateExcl", isBackup, errAcces)),
			wantCode: BackupFailed, wantExit: 2, wantPath: func(p string) string { return p + ".v1.bak" }},
		{name: "hard link impossible and disk full while copying the backup",
			fail:     both(failing("Link", any_, errPerm), failing("write", isBackup, syscall.ENOSPC)),
			wantCode: BackupFailed, wantExit: 2, wantPath: func(p string) string { return p + ".v1.bak" }},
		{name: "hard link impossible and backup fsync fails",
			fail:     both(failing("Link", any_, errPerm), failing("sync", isBackup, errIO)),
			wantCode: SyncFailed, wantExit: 2, wantPath: func(p string) string { return p + ".v1.bak" }},
		{name: "a different backup is in the way",
			prepare: func(t *testing.T, path string) {
				if err := os.WriteFile(path+".v1.bak", []byte(differentBackup), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			backupWant: differentBackup, wantCode: BackupExists, wantExit: 1,
			wantPath: func(p string) string { return p + ".v1.bak" }},
		{name: "a same-size different backup is in the way",
			prepare: func(t *testing.T, path string) {
				if err := os.WriteFile(path+".v1.bak", []byte(strings.ToUpper(sampleV1)), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			backupWant: strings.ToUpper(sampleV1), wantCode: BackupExists, wantExit: 1,
			wantPath: func(p string) string { return p + ".v1.bak" }},
		{name: "the backup name is a symlink to the original",
			prepare: func(t *testing.T, path string) {
				if err := os.Symlink(path, path+".v1.bak"); err != nil {
					t.Fatal(err)
				}
			},
			wantCode: BackupExists, wantExit: 1, wantPath: func(p string) string { return p + ".v1.bak" }},
		{name: "pi appends while the file is migrated",
			mutate: func(t *testing.T, path string) {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(`{"type":"message","timestamp":"x","message":{"role":"user","content":"more","timestamp":3}}` + "\n")
				f.Close()
			},
			wantCode: ChangedDuringRewrite, wantExit: 1,
			originalIs: func(*testing.T) []byte {
				return []byte(sampleV1 + `{"type":"message","timestamp":"x","message":{"role":"user","content":"more","timestamp":3}}` + "\n")
			}},
		{name: "same size, same mtime, other bytes",
			mutate: func(t *testing.T, path string) {
				info, _ := os.Stat(path)
				changed := strings.Replace(sampleV1, `"hi"`, `"HI"`, 1)
				if err := os.WriteFile(path, []byte(changed), 0); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
					t.Fatal(err)
				}
			},
			wantCode: ChangedDuringRewrite, wantExit: 1,
			originalIs: func(*testing.T) []byte { return []byte(strings.Replace(sampleV1, `"hi"`, `"HI"`, 1)) }},
		{name: "only the mtime changed",
			mutate: func(t *testing.T, path string) {
				later := time.Now().Add(time.Hour)
				if err := os.Chtimes(path, later, later); err != nil {
					t.Fatal(err)
				}
			},
			wantCode: ChangedDuringRewrite, wantExit: 1},
		{name: "the file was replaced by another one",
			mutate: func(t *testing.T, path string) {
				other := path + ".other"
				if err := os.WriteFile(other, []byte(sampleV1), origMode); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(other, path); err != nil {
					t.Fatal(err)
				}
			},
			backupKept: true, wantCode: ChangedDuringRewrite, wantExit: 1},
		{name: "the file was removed",
			mutate: func(t *testing.T, path string) {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			},
			wantCode: ChangedDuringRewrite, wantExit: 1,
			originalIs: func(*testing.T) []byte { return nil }},
		{name: "changed, without a backup",
			noBackup: true,
			mutate: func(t *testing.T, path string) {
				os.WriteFile(path, []byte(sampleV1+"\n"), 0)
			},
			wantCode: ChangedDuringRewrite, wantExit: 1,
			originalIs: func(*testing.T) []byte { return []byte(sampleV1 + "\n") }},
		{name: "rename fails",
			fail: failing("Rename", any_, errIO), wantCode: RenameFailed, wantExit: 2},
		{name: "corrupt input is refused by the generator",
			content:  sampleV1 + `{"type":"a"}{"type":"b"}` + "\n",
			wantCode: RefusedCorrupt, wantExit: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			content := tt.content
			if content == "" {
				content = sampleV1
			}
			path := testfs.WriteSession(t, dir, content, origMode)
			if tt.prepare != nil {
				tt.prepare(t, path)
			}
			before := testfs.Names(t, dir)
			fsys := newFaultFS(tt.fail)
			fsys.limit = tt.limit
			opts := RewriteOptions{BackupSuffix: ".v1.bak", Verify: tt.verify}
			if tt.noBackup {
				opts.BackupSuffix = ""
			}
			gen := Generator(migrateGen)
			if tt.mutate != nil {
				gen = func(in io.ReadSeeker, out io.Writer) error {
					err := migrateGen(in, out)
					tt.mutate(t, path)
					return err
				}
			}
			out, err := Rewrite(fsys, path, opts, gen)

			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want *Error, got %v", err)
			}
			if e.Code != tt.wantCode || e.ExitCode() != tt.wantExit {
				t.Errorf("got %s (exit %d): %v; want %s (exit %d)", e.Code, e.ExitCode(), err, tt.wantCode, tt.wantExit)
			}
			wantPath := path
			if tt.wantPath != nil {
				wantPath = tt.wantPath(path)
			}
			if e.Path != wantPath {
				t.Errorf("error path %q, want %q", e.Path, wantPath)
			}
			if out.Written {
				t.Error("Written after a failure")
			}
			want := []byte(content)
			if tt.originalIs != nil {
				want = tt.originalIs(t)
			}
			got, rerr := os.ReadFile(path)
			if want == nil {
				if !errors.Is(rerr, fs.ErrNotExist) {
					t.Errorf("the removed original reappeared")
				}
			} else if !bytes.Equal(got, want) {
				t.Errorf("original changed:\n%s", got)
			}
			testfs.NoTempLeft(t, dir, TempPrefix)
			after := testfs.Names(t, dir)
			if tt.mutate == nil && strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("directory changed: before %v, after %v", before, after)
			}
			switch {
			case tt.backupWant != "":
				if b, _ := os.ReadFile(path + ".v1.bak"); string(b) != tt.backupWant {
					t.Errorf("the pre-existing backup was touched: %q", b)
				}
			case tt.backupKept:
				if b, _ := os.ReadFile(path + ".v1.bak"); string(b) != content || !strings.Contains(err.Error(), "kept the backup") {
					t.Errorf("the backup of a replaced original must stay, and be named: %v", err)
				}
			case tt.prepare == nil:
				if _, err := os.Lstat(path + ".v1.bak"); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a backup created by the failed run was left behind")
				}
			}
		})
	}
}

func TestRewriteMigratesWithHardLinkBackup(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	oldInfo, _ := os.Stat(path)
	fsys := newFaultFS(nil)
	verified := false
	verify := func(name string, r io.Reader) error {
		b, err := io.ReadAll(r)
		verified = err == nil && bytes.Equal(b, expectedV1(t)) && name == path
		return err
	}
	out, err := Rewrite(fsys, path, RewriteOptions{BackupSuffix: ".v1.bak", Verify: verify}, migrateGen)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Changed || !out.Written || out.Backup != path+".v1.bak" || out.BackupReused || out.Path != path {
		t.Errorf("outcome %+v", out)
	}
	if !verified {
		t.Error("verify did not see the new generation as written")
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, expectedV1(t)) {
		t.Error("the file is not the migrated generation")
	}
	backup, _ := os.ReadFile(out.Backup)
	if string(backup) != sampleV1 {
		t.Error("backup differs from the original")
	}
	if bInfo, _ := os.Stat(out.Backup); !os.SameFile(bInfo, oldInfo) {
		t.Error("backup is not a hard link to the old generation")
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != origMode {
		t.Errorf("mode %v, want %v", info.Mode().Perm(), origMode)
	}
	for name, perm := range fsys.perms {
		if perm&^origMode != 0 {
			t.Errorf("%s was created with %v, wider than the original's %v", name, perm, origMode)
		}
	}
	testfs.NoTempLeft(t, dir, TempPrefix)
	if names := testfs.Names(t, dir); len(names) != 2 {
		t.Errorf("directory holds %v", names)
	}
	checkSyncedDir(t, fsys, dir)
}

// checkSyncedDir asserts that the directory was fsynced after the rename.
func checkSyncedDir(t *testing.T, fsys *faultFS, dir string) {
	t.Helper()
	renamed := -1
	for i, op := range fsys.ops {
		if strings.HasPrefix(op, "Rename ") {
			renamed = i
		}
		if renamed >= 0 && op == "SyncDir "+dir {
			return
		}
	}
	t.Errorf("no directory fsync after the rename: %v", fsys.ops)
}

func TestRewriteBackupCopyWhenLinkFails(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	oldInfo, _ := os.Stat(path)
	fsys := newFaultFS(failing("Link", any_, syscall.EXDEV))
	out, err := Rewrite(fsys, path, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
	if err != nil {
		t.Fatal(err)
	}
	backup, _ := os.ReadFile(out.Backup)
	bInfo, _ := os.Stat(out.Backup)
	if string(backup) != sampleV1 || os.SameFile(bInfo, oldInfo) || bInfo.Mode().Perm() != origMode {
		t.Errorf("backup copy: same content %v, hard link %v, mode %v", string(backup) == sampleV1, os.SameFile(bInfo, oldInfo), bInfo.Mode().Perm())
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, expectedV1(t)) {
		t.Error("the file is not the migrated generation")
	}
}

func TestRewriteReusesIdenticalLeftoverBackup(t *testing.T) {
	for _, kind := range []string{"copy", "hard link"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			path := testfs.WriteSession(t, dir, sampleV1, origMode)
			bak := path + ".v1.bak"
			if kind == "copy" {
				if err := os.WriteFile(bak, []byte(sampleV1), 0o600); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Link(path, bak); err != nil {
				t.Fatal(err)
			}
			out, err := Rewrite(newFaultFS(nil), path, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
			if err != nil {
				t.Fatal(err)
			}
			if !out.BackupReused || !out.Written || out.Backup != bak {
				t.Errorf("outcome %+v", out)
			}
			if b, _ := os.ReadFile(bak); string(b) != sampleV1 {
				t.Error("backup changed")
			}
		})
	}
}

func TestRewriteReusedBackupIsNotRemovedOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	bak := path + ".v1.bak"
	if err := os.WriteFile(bak, []byte(sampleV1), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Rewrite(newFaultFS(failing("Rename", any_, errIO)), path, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
	if e := new(Error); !errors.As(err, &e) || e.Code != RenameFailed {
		t.Fatalf("got %v", err)
	}
	if b, err := os.ReadFile(bak); err != nil || string(b) != sampleV1 {
		t.Error("a backup this run did not create was removed")
	}
}

func TestRewriteDirSyncFailureAfterRename(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	out, err := Rewrite(newFaultFS(failing("SyncDir", any_, errIO)), path, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
	var e *Error
	if !errors.As(err, &e) || e.Code != SyncFailed || e.ExitCode() != 2 {
		t.Fatalf("got %v", err)
	}
	if !out.Written {
		t.Error("the rename happened but Written is false")
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, expectedV1(t)) {
		t.Error("the file is not the new generation")
	}
	if b, _ := os.ReadFile(path + ".v1.bak"); string(b) != sampleV1 {
		t.Error("the backup must be kept once the original is replaced")
	}
	testfs.NoTempLeft(t, dir, TempPrefix)
}

func TestRewriteCleanupFailureIsReported(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	fsys := newFaultFS(both(failing("Rename", any_, errIO), failing("Remove", isTemp, errPerm)))
	_, err := Rewrite(fsys, path, RewriteOptions{}, migrateGen)
	var e *Error
	if !errors.As(err, &e) || e.Code != RenameFailed || !strings.Contains(err.Error(), "cannot remove the temp file") {
		t.Fatalf("got %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != sampleV1 {
		t.Error("original changed")
	}
}

func TestRewriteUnchangedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	v3 := string(expectedV1(t))
	path := testfs.WriteSession(t, dir, v3, origMode)
	before, _ := os.Stat(path)
	out, err := Rewrite(newFaultFS(nil), path, RewriteOptions{BackupSuffix: ".v3.bak"}, migrateGen)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if out.Changed || out.Written || out.Backup != "" || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("outcome %+v; same file %v", out, os.SameFile(before, after))
	}
	if names := testfs.Names(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

func TestRewriteDryRun(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	fsys := newFaultFS(func(op, name string) error {
		switch op {
		case "CreateExcl", "Link", "Rename", "Remove", "Chmod", "Chown", "write":
			return errors.New("a dry run must not " + op)
		}
		return nil
	})
	verified := false
	verify := func(string, io.Reader) error { verified = true; return nil }
	out, err := Rewrite(fsys, path, RewriteOptions{DryRun: true, Diff: true, BackupSuffix: ".v1.bak", Verify: verify}, migrateGen)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Changed || out.Written || out.Diff != Diff(path, []byte(sampleV1), expectedV1(t)) || !verified {
		t.Errorf("outcome %+v, verified %v", out, verified)
	}
	if !strings.Contains(out.Diff, "+++ "+path) || !strings.Contains(out.Diff, "\n-"+sampleV1[:strings.Index(sampleV1, "\n")+1]) ||
		!strings.Contains(out.Diff, "\n+"+string(expectedV1(t)[:strings.Index(string(expectedV1(t)), "\n")+1])) {
		t.Errorf("diff:\n%s", out.Diff)
	}
	if names := testfs.Names(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

func TestRewriteDryRunReportsRefusals(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	if err := os.WriteFile(path+".v1.bak", []byte("other"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Rewrite(OS(), path, RewriteOptions{DryRun: true, BackupSuffix: ".v1.bak"}, migrateGen)
	if e := new(Error); !errors.As(err, &e) || e.Code != BackupExists {
		t.Errorf("different backup: got %v", err)
	}
	fail := func(string, io.Reader) error { return errors.New("invalid") }
	_, err = Rewrite(OS(), path, RewriteOptions{DryRun: true, Verify: fail}, migrateGen)
	if e := new(Error); !errors.As(err, &e) || e.Code != VerifyFailed {
		t.Errorf("verify: got %v", err)
	}
}

func TestRewriteSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	target := testfs.WriteSession(t, real, sampleV1, origMode)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, err := Rewrite(OS(), link, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
	var e *Error
	if !errors.As(err, &e) || e.Code != Symlink || e.ExitCode() != 1 {
		t.Fatalf("without FollowSymlinks: got %v", err)
	}
	if got, _ := os.ReadFile(target); string(got) != sampleV1 {
		t.Fatal("target changed")
	}
	out, err := Rewrite(OS(), link, RewriteOptions{BackupSuffix: ".v1.bak", FollowSymlinks: true}, migrateGen)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Lstat(link); info.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if got, _ := os.ReadFile(target); !bytes.Equal(got, expectedV1(t)) {
		t.Error("target not migrated")
	}
	if out.Path != target || out.Backup != target+".v1.bak" {
		t.Errorf("outcome %+v", out)
	}
}

func TestRewriteRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	_, err := Rewrite(OS(), dir, RewriteOptions{}, migrateGen)
	if e := new(Error); !errors.As(err, &e) || e.Code != NotRegular || e.ExitCode() != 2 {
		t.Errorf("directory: got %v", err)
	}
	_, err = Rewrite(OS(), filepath.Join(dir, "missing.jsonl"), RewriteOptions{}, migrateGen)
	if e := new(Error); !errors.As(err, &e) || e.Code != ReadFailed || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: got %v", err)
	}
}

func TestRewriteKeepsPermissionBits(t *testing.T) {
	for _, mode := range []fs.FileMode{0o600, 0o644, 0o400} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			path := testfs.WriteSession(t, dir, sampleV1, origMode)
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
			fsys := newFaultFS(nil)
			out, err := Rewrite(fsys, path, RewriteOptions{BackupSuffix: ".bak"}, migrateGen)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{path, out.Backup} {
				if info, _ := os.Stat(p); info.Mode().Perm() != mode {
					t.Errorf("%s: mode %v, want %v", filepath.Base(p), info.Mode().Perm(), mode)
				}
			}
			for name, perm := range fsys.perms {
				if perm&^mode != 0 {
					t.Errorf("%s created with %v, wider than %v", name, perm, mode)
				}
			}
		})
	}
}

func TestRewriteGeneratorMayReadPartly(t *testing.T) {
	// A generator that stops reading early must still be checked against
	// the whole original.
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	gen := func(in io.ReadSeeker, out io.Writer) error {
		buf := make([]byte, 10)
		if _, err := io.ReadFull(in, buf); err != nil {
			return err
		}
		_, err := out.Write([]byte("x\n"))
		return err
	}
	out, err := Rewrite(OS(), path, RewriteOptions{DryRun: true, Diff: true}, gen)
	if err != nil || !out.Changed || out.Diff == "" {
		t.Errorf("outcome %+v, %v", out, err)
	}
}
