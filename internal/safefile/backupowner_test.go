package safefile

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/pisess/pisess/internal/testfs"
)

// A backup made as a copy (hard link impossible) got the mode of the
// original but not its owner: `sudo pisess migrate --backup` left a
// root-owned backup of a user's session. It gets the owner now, like the
// new generation, and a failure to set it is refused like a chmod failure.
func TestRewriteBackupCopyGetsTheOwner(t *testing.T) {
	dir := t.TempDir()
	path := testfs.WriteSession(t, dir, sampleV1, origMode)
	fsys := newFaultFS(failing("Link", any_, syscall.EXDEV))
	out, err := Rewrite(fsys, path, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
	if err != nil {
		t.Fatal(err)
	}
	chowned := false
	for _, op := range fsys.ops {
		chowned = chowned || op == "Chown "+out.Backup
	}
	if !chowned {
		t.Errorf("the backup copy was not given the original's owner: %v", fsys.ops)
	}

	path = testfs.WriteSession(t, t.TempDir(), sampleV1, origMode)
	fsys = newFaultFS(func(op, name string) error {
		switch {
		case op == "Link":
			return syscall.EXDEV
		case op == "Chown" && isBackup(name):
			return syscall.EPERM
		}
		return nil
	})
	_, err = Rewrite(fsys, path, RewriteOptions{BackupSuffix: ".v1.bak"}, migrateGen)
	var e *Error
	if !errors.As(err, &e) || e.Code != ChmodFailed {
		t.Fatalf("got %v, want chmod_failed", err)
	}
	if got, _ := os.ReadFile(path); string(got) != sampleV1 {
		t.Error("the original changed")
	}
	if _, err := os.Stat(path + ".v1.bak"); !os.IsNotExist(err) {
		t.Errorf("the backup this run made was not removed: %v", err)
	}
}
