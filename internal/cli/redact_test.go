package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/secrets"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

// appendingFS appends a line to path just before each of its first
// `times` renames: pi appending during redact --in-place's rename, which
// the rewrite carries over to the new file.
type appendingFS struct {
	safefile.FS
	t     *testing.T
	path  string
	line  string
	times int
}

func (a *appendingFS) Rename(oldname, newname string) error {
	if a.times > 0 {
		a.times--
		f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			a.t.Fatal(err)
		}
		f.WriteString(a.line)
		f.Close()
	}
	return a.FS.Rename(oldname, newname)
}

const (
	carrySession = `{"type":"session","version":3,"id":"0b6f3c2e-7d1a-4c55-9e0a-1f2b3c4d5e6f","timestamp":"2025-12-01T00:00:00.000Z","cwd":"/tmp"}
{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2025-12-01T00:00:01.000Z","message":{"role":"user","content":"key AKIAZ7FAKEQ2TESTK3YW","timestamp":1}}
`
	carryLine  = `{"type":"message","id":"c0ffee01","parentId":"a1b2c3d4","timestamp":"2025-12-01T00:00:09.000Z","message":{"role":"user","content":"AKIAQ2FAKEZ7TESTW3YK","timestamp":9}}` + "\n"
	carriedKey = "AKIAQ2FAKEZ7TESTW3YK"
)

// redactWith runs redact --in-place on a copy of carrySession through fsys.
func redactWith(t *testing.T, backup bool, fsys func(path string) safefile.FS) (path, stderr string, err error) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(carrySession), 0o600); err != nil {
		t.Fatal(err)
	}
	rules, rerr := secrets.Default()
	if rerr != nil {
		t.Fatal(rerr)
	}
	lim := session.DefaultLimits()
	var out, errOut bytes.Buffer
	c := &CLI{Stdout: &out, Stderr: &errOut}
	r := &redaction{fsys: fsys(path), file: path, opts: secrets.Options{Rules: rules, Limits: lim}, vopts: validate.Options{Limits: lim}}
	err = c.redactInPlace(r, backup)
	return path, errOut.String(), err
}

// A line pi appended during the rename was carried over into the
// "redacted" file as it was, secret and all, and redact said it had
// redacted the file: the carried bytes are redacted too (redact runs
// again over the file, without a new backup). A partial line (pi still
// writing it) is searched as the text it is, as a torn last line is.
func TestRedactInPlaceRedactsCarriedLines(t *testing.T) {
	for _, backup := range []bool{false, true} {
		line := carryLine
		if backup {
			line = strings.TrimSuffix(carryLine, `","timestamp":9}}`+"\n")
		}
		path, stderr, err := redactWith(t, backup, func(path string) safefile.FS {
			return &appendingFS{FS: safefile.OS(), t: t, path: path, line: line, times: 1}
		})
		if err != nil {
			t.Fatalf("backup=%v: %v (stderr %q)", backup, err, stderr)
		}
		got, _ := os.ReadFile(path)
		if bytes.Contains(got, []byte(carriedKey)) || bytes.Contains(got, []byte("AKIAZ7FAKEQ2TESTK3YW")) {
			t.Fatalf("backup=%v: redact succeeded with a secret left in the file:\n%s", backup, got)
		}
		if !bytes.Contains(got, []byte(`"c0ffee01"`)) {
			t.Fatalf("backup=%v: the carried line is gone:\n%s", backup, got)
		}
		if !strings.Contains(stderr, "redacted 2 secrets") {
			t.Errorf("backup=%v: summary %q, want both secrets counted", backup, stderr)
		}
		bak := path + redactBackupSuffix
		// The backup is a hard link: pi's line went to it too.
		if b, err := os.ReadFile(bak); backup && (err != nil || string(b) != carrySession+line) {
			t.Errorf("the backup is not the original: %v\n%s", err, b)
		} else if !backup && err == nil {
			t.Errorf("a backup was made without --backup")
		}
		names, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
		if want := map[bool]int{false: 1, true: 2}[backup]; len(names) != want {
			t.Errorf("backup=%v: directory holds %v", backup, names)
		}
	}
}

// pi appending a secret during every rename: redact gives up after a few
// rounds and says so (changed_during_rewrite, exit 1), never success.
func TestRedactInPlaceFailsWhileAppendsKeepComing(t *testing.T) {
	_, stderr, err := redactWith(t, false, func(path string) safefile.FS {
		return &appendingFS{FS: safefile.OS(), t: t, path: path, line: carryLine, times: 1000}
	})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitInvalid {
		t.Fatalf("got %v, want exit 1 (stderr %q)", err, stderr)
	}
	var me *safefile.Error
	if !errors.As(err, &me) || me.Code != safefile.ChangedDuringRewrite || !strings.Contains(err.Error(), "not redacted") {
		t.Fatalf("got %v, want changed_during_rewrite saying what is not redacted", err)
	}
	t.Log(err)
}

// failSecondRename is appendingFS whose second rename fails.
type failSecondRename struct {
	*appendingFS
	renames int
}

func (f *failSecondRename) Rename(oldname, newname string) error {
	if f.renames++; f.renames == 2 {
		return errors.New("no rename today")
	}
	return f.appendingFS.Rename(oldname, newname)
}

// When the round that redacts the carried bytes fails, the error says
// they are still in the file as pi wrote them.
func TestRedactInPlaceSaysCarriedBytesAreLeft(t *testing.T) {
	_, stderr, err := redactWith(t, false, func(path string) safefile.FS {
		return &failSecondRename{appendingFS: &appendingFS{FS: safefile.OS(), t: t, path: path, line: carryLine, times: 1}}
	})
	var me *safefile.Error
	if !errors.As(err, &me) || me.Code != safefile.RenameFailed {
		t.Fatalf("got %v, want rename_failed (stderr %q)", err, stderr)
	}
	want := fmt.Sprintf("rename_failed: no rename today; the %d bytes another program (pi) appended during the previous rename, carried over into the file, are not redacted", len(carryLine))
	if !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %q\nwant it to end %q", err, want)
	}
}
