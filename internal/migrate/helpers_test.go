package migrate

import (
	"io/fs"

	"github.com/pisess/pisess/internal/safefile"
)

// sampleV1 is a small version-1 session.
const sampleV1 = `{"type":"session","id":"0b8e2c1e-5b8a-4b8e-9c1e-5b8a4b8e9c1e","timestamp":"2025-12-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","timestamp":"2025-12-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}
{"type":"message","timestamp":"2025-12-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"timestamp":2}}
{"type":"compaction","timestamp":"2025-12-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":2,"tokensBefore":10}
`

// faultFS is the real file system asking fail before each creation, hard
// link and rename (noCreate: prove an operation wrote nothing). safefile's
// tests inject failures at every step of the protocol.
type faultFS struct {
	safefile.FS
	fail func(op, name string) error
}

func newFaultFS(fail func(op, name string) error) *faultFS {
	if fail == nil {
		fail = func(string, string) error { return nil }
	}
	return &faultFS{FS: safefile.OS(), fail: fail}
}

func (f *faultFS) CreateExcl(name string, perm fs.FileMode) (safefile.File, error) {
	if err := f.fail("CreateExcl", name); err != nil {
		return nil, err
	}
	return f.FS.CreateExcl(name, perm)
}

func (f *faultFS) Link(oldname, newname string) error {
	if err := f.fail("Link", newname); err != nil {
		return err
	}
	return f.FS.Link(oldname, newname)
}

func (f *faultFS) Rename(oldname, newname string) error {
	if err := f.fail("Rename", newname); err != nil {
		return err
	}
	return f.FS.Rename(oldname, newname)
}
