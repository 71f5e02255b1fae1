package safefile

import (
	"errors"
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
		{&Error{Code: RefusedCorrupt, Line: f.Line, Finding: &f}, "refused_corrupt: error concatenated_objects: 2 complete objects on one line"},
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
