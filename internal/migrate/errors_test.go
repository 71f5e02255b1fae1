package migrate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/finding"
)

func TestErrorExitCodes(t *testing.T) {
	tests := map[Code]int{
		RefusedCorrupt: 1, RefusedInvalid: 1, Unsupported: 1, BackupExists: 1,
		ChangedDuringRewrite: 1, Symlink: 1, VerifyFailed: 1,
		ReadFailed: 2, NotRegular: 2, CreateFailed: 2, WriteFailed: 2, SyncFailed: 2,
		ChmodFailed: 2, BackupFailed: 2, RenameFailed: 2,
	}
	for code, want := range tests {
		if got := (&Error{Code: code}).ExitCode(); got != want {
			t.Errorf("%s: exit %d, want %d", code, got, want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	f := finding.Errorf(finding.ConcatenatedObjects, 440, "2 complete objects on one line")
	tests := []struct {
		err  *Error
		want string
	}{
		{refuse(RefusedCorrupt, f), "refused_corrupt: error concatenated_objects: 2 complete objects on one line"},
		{&Error{Code: RefusedCorrupt, Path: "a.jsonl", Line: 440, Finding: &f}, "a.jsonl:440: refused_corrupt: error concatenated_objects: 2 complete objects on one line"},
		{&Error{Code: RenameFailed, Path: "a.jsonl", Err: errors.New("EIO")}, "a.jsonl: rename_failed: EIO"},
		{&Error{Code: Symlink}, "symlink"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got[len(got)-len(tt.want):] != tt.want || (tt.err.Path != "" && got != tt.want) {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestFileAPISymlinkPolicy(t *testing.T) {
	dir := t.TempDir()
	target := writeSession(t, dir, sampleV1)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, op := range []func(FS, string, Options) (Report, error){MigrateFile, RepairFile} {
		rep, err := op(OS(), link, Options{})
		var e *Error
		if !errors.As(err, &e) || e.Code != Symlink || rep.Action != Refused || e.Path != link {
			t.Errorf("got %+v, %v", rep, err)
		}
	}
	rep, err := MigrateFile(OS(), link, Options{FollowSymlinks: true, Backup: true})
	if err != nil || rep.Action != Migrated || rep.Backup != target+".v1.bak" {
		t.Errorf("follow: %+v, %v", rep, err)
	}
}
