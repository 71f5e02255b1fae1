package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/session"
)

// Truncate cuts an open file back, with a failure injectable as "truncate".
func (f *faultFile) Truncate(size int64) error {
	if err := f.fs.check("truncate", f.name); err != nil {
		return err
	}
	return f.File.(truncater).Truncate(size)
}

const (
	appendOrig  = `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n"
	appendLines = `{"type":"custom","customType":"x","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z"}` + "\n" +
		`{"type":"custom","customType":"x","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z"}` + "\n"
)

// planLines is a planner that reads everything and returns lines.
func planLines(lines string) Planner {
	return func(in io.Reader) ([]byte, error) {
		if _, err := io.Copy(io.Discard, in); err != nil {
			return nil, err
		}
		return []byte(lines), nil
	}
}

func appendFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func appendRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppend(t *testing.T) {
	tests := []struct {
		name, orig, lines string
		opts              RewriteOptions
		want              string // the file afterwards
		written           bool
	}{
		{"appends", appendOrig, appendLines, RewriteOptions{}, appendOrig + appendLines, true},
		{"nothing to append", appendOrig, "", RewriteOptions{}, appendOrig, false},
		{"a missing final newline goes first", strings.TrimSuffix(appendOrig, "\n"), appendLines, RewriteOptions{}, appendOrig + appendLines, true},
		{"dry run", appendOrig, appendLines, RewriteOptions{DryRun: true}, appendOrig, false},
		{"dry run with backup", appendOrig, appendLines, RewriteOptions{DryRun: true, BackupSuffix: ".bak"}, appendOrig, false},
		{"backup", appendOrig, appendLines, RewriteOptions{BackupSuffix: ".bak"}, appendOrig + appendLines, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := appendFile(t, tt.orig)
			out, err := Append(OS(), path, tt.opts, planLines(tt.lines))
			if err != nil {
				t.Fatal(err)
			}
			if got := appendRead(t, path); got != tt.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.want)
			}
			if out.Written != tt.written || out.Size != int64(len(tt.orig)) {
				t.Errorf("outcome %+v", out)
			}
			if tt.lines != "" && !strings.HasSuffix(string(out.Appended), tt.lines) {
				t.Errorf("appended %q", out.Appended)
			}
			_, berr := os.Stat(path + ".bak")
			if wantBackup := tt.written && tt.opts.BackupSuffix != ""; wantBackup != (berr == nil) || (wantBackup && out.Backup != path+".bak") {
				t.Errorf("backup %q (stat error %v), want one: %v", out.Backup, berr, wantBackup)
			}
			if berr == nil && appendRead(t, path+".bak") != tt.orig {
				t.Error("the backup is not the original")
			}
		})
	}
}

// TestAppendVerifies: the verifier sees the original followed by the new
// lines; a refusal writes nothing.
func TestAppendVerifies(t *testing.T) {
	path := appendFile(t, appendOrig)
	var seen string
	verify := func(name string, r io.Reader) error {
		b, _ := io.ReadAll(r)
		seen = string(b)
		return errors.New("no")
	}
	_, err := Append(OS(), path, RewriteOptions{Verify: verify, BackupSuffix: ".bak"}, planLines(appendLines))
	var e *Error
	if !errors.As(err, &e) || e.Code != VerifyFailed || e.ExitCode() != 1 {
		t.Fatalf("error %v, want verify_failed", err)
	}
	if seen != appendOrig+appendLines {
		t.Errorf("verifier saw %q", seen)
	}
	if appendRead(t, path) != appendOrig {
		t.Error("file changed")
	}
	if _, err := os.Stat(path + ".bak"); err == nil {
		t.Error("backup made")
	}
}

// TestAppendFailuresLeaveOriginalOrComplete injects a failure at every
// file-system operation of an append, one at a time: the file is then
// the original, or the original followed by all the new lines (never a
// part of them), and a backup is left only beside a file that changed.
func TestAppendFailuresLeaveOriginalOrComplete(t *testing.T) {
	clean := newFaultFS(nil)
	path := appendFile(t, appendOrig)
	if _, err := Append(clean, path, RewriteOptions{BackupSuffix: ".bak"}, planLines(appendLines)); err != nil {
		t.Fatal(err)
	}
	ops := append([]string(nil), clean.ops...)
	if len(ops) < 10 {
		t.Fatalf("only %d operations: %v", len(ops), ops)
	}
	injected := errors.New("injected")
	for i := range ops {
		op := ops[i]
		verb, name, _ := strings.Cut(op, " ")
		t.Run(fmt.Sprintf("%02d_%s_%s", i, verb, filepath.Base(name)), func(t *testing.T) {
			path := appendFile(t, appendOrig)
			n := 0
			fsys := newFaultFS(func(string, string) error {
				n++
				if n == i+1 {
					return injected
				}
				return nil
			})
			out, err := Append(fsys, path, RewriteOptions{BackupSuffix: ".bak"}, planLines(appendLines))
			got := appendRead(t, path)
			switch {
			case got == appendOrig:
				if out.Written {
					t.Error("reported written, file unchanged")
				}
			case got == appendOrig+appendLines:
				if !out.Written {
					t.Errorf("file changed, reported not written (err %v)", err)
				}
			default:
				t.Fatalf("file is neither the original nor complete: %q (err %v)", got, err)
			}
			if got == appendOrig && err == nil {
				t.Error("file unchanged, no error")
			}
			if _, berr := os.Stat(path + ".bak"); berr == nil && got == appendOrig {
				t.Errorf("backup left beside an unchanged file (err %v)", err)
			}
		})
	}
}

// TestAppendDiskFull: a write cut short by ENOSPC is cut back.
func TestAppendDiskFull(t *testing.T) {
	path := appendFile(t, appendOrig)
	fsys := newFaultFS(nil)
	fsys.limit = int64(len(appendOrig)) + 5 // the backup fits, the lines do not
	_, err := Append(fsys, path, RewriteOptions{BackupSuffix: ".bak"}, planLines(appendLines))
	var e *Error
	if !errors.As(err, &e) || e.Code != WriteFailed || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("error %v, want write_failed ENOSPC", err)
	}
	if appendRead(t, path) != appendOrig {
		t.Error("the partial write was not cut back")
	}
	if _, err := os.Stat(path + ".bak"); err == nil {
		t.Error("backup left")
	}
}

// TestAppendCutBackFails: when the partial write cannot be cut back, the
// error says so and the backup stays.
func TestAppendCutBackFails(t *testing.T) {
	path := appendFile(t, appendOrig)
	fsys := newFaultFS(func(op, name string) error {
		if op == "truncate" {
			return errors.New("truncate refused")
		}
		return nil
	})
	fsys.limit = int64(len(appendOrig)) + 5 // the backup fits, the lines do not
	_, err := Append(fsys, path, RewriteOptions{BackupSuffix: ".bak"}, planLines(appendLines))
	if err == nil || !strings.Contains(err.Error(), "could not cut the file back") || !strings.Contains(err.Error(), "is kept") {
		t.Fatalf("error %v", err)
	}
	if appendRead(t, path+".bak") != appendOrig {
		t.Error("backup not kept")
	}
}

// TestAppendRefusesAChangedFile: pi appends while the plan is made: the
// append is refused and pi's bytes stay.
func TestAppendRefusesAChangedFile(t *testing.T) {
	path := appendFile(t, appendOrig)
	const late = `{"type":"custom","customType":"pi","id":"bbbb0001","parentId":null,"timestamp":"2026-01-01T00:00:05.000Z"}` + "\n"
	plan := func(in io.Reader) ([]byte, error) {
		io.Copy(io.Discard, in)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		_, err = f.WriteString(late)
		return []byte(appendLines), err
	}
	_, err := Append(OS(), path, RewriteOptions{BackupSuffix: ".bak"}, plan)
	var e *Error
	if !errors.As(err, &e) || e.Code != ChangedDuringRewrite {
		t.Fatalf("error %v, want changed_during_rewrite", err)
	}
	if got := appendRead(t, path); got != appendOrig+late {
		t.Errorf("file %q", got)
	}
}

// TestAppendWaitsForTheLock: another run's lock is waited for, then
// refused after LockWait.
func TestAppendWaitsForTheLock(t *testing.T) {
	path := appendFile(t, appendOrig)
	other, err := OS().Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := OS().Lock(other); err != nil {
		t.Skip("no flock here:", err)
	}
	_, err = Append(OS(), path, RewriteOptions{LockWait: 50 * time.Millisecond}, planLines(appendLines))
	var e *Error
	if !errors.As(err, &e) || e.Code != ChangedDuringRewrite {
		t.Fatalf("error %v, want changed_during_rewrite", err)
	}
	if appendRead(t, path) != appendOrig {
		t.Error("file changed")
	}
}

// TestAppendPlannerRefusal: a planner's *Error passes through unchanged,
// another error is a refusal.
func TestAppendPlannerRefusal(t *testing.T) {
	path := appendFile(t, appendOrig)
	want := &Error{Code: RefusedCorrupt}
	_, err := Append(OS(), path, RewriteOptions{}, func(io.Reader) ([]byte, error) { return nil, want })
	if !errors.Is(err, want) {
		t.Errorf("error %v", err)
	}
	_, err = Append(OS(), path, RewriteOptions{}, func(io.Reader) ([]byte, error) { return nil, errors.New("no") })
	var e *Error
	if !errors.As(err, &e) || e.Code != RefusedInvalid {
		t.Errorf("error %v", err)
	}
	if !bytes.Equal([]byte(appendRead(t, path)), []byte(appendOrig)) {
		t.Error("file changed")
	}
}

// TestAppendedInputReadAt: the verifier's input reads, at any offset, the
// original below its size (not what the file holds past it) and the
// appended lines after it, as its Read does, and says EOF at the end.
func TestAppendedInputReadAt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte("0123456789tail past the size"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := &appendedInput{f: f, size: 10, lines: []byte("abc\n")}
	const want = "0123456789abc\n"
	for _, tt := range []struct {
		off, n int
		eof    bool
	}{
		{0, 4, false}, {0, 10, false}, {3, 7, false}, {8, 4, false},
		{0, 14, false}, {10, 4, false}, {12, 2, false},
		{0, 20, true}, {9, 8, true}, {12, 5, true}, {14, 1, true}, {20, 1, true},
	} {
		p := make([]byte, tt.n)
		n, err := in.ReadAt(p, int64(tt.off))
		wantN := max(0, min(tt.n, len(want)-tt.off))
		if n != wantN || string(p[:n]) != want[min(tt.off, len(want)):min(tt.off, len(want))+wantN] || (err == io.EOF) != tt.eof || err != nil && err != io.EOF {
			t.Errorf("ReadAt(%d bytes, %d) = %d %q, %v", tt.n, tt.off, n, p[:n], err)
		}
	}
	if _, ok := session.SourceOf(in); !ok {
		t.Error("the verifier's input is no parse.Source: a long line is gathered in pieces")
	}
}
