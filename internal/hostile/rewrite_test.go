//go:build unix

package hostile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rewriteCase is a file migrate or repair rewrites, with the bytes it
// must become: both commands are deterministic, so after any fault or kill
// the file is exactly one of two byte strings.
type rewriteCase struct {
	cmd        string
	flags      []string
	old, new   []byte
	backupName string // suffix of the backup --backup makes
}

// rewriteCases builds the migrate, repair and slim --rewrite cases of about
// size bytes and works out their new generations with a clean run.
func rewriteCases(t *testing.T, size int) []*rewriteCase {
	t.Helper()
	_, v1 := source(t, "v1-pi-mono-before-compaction.jsonl", "valid/v1-linear.jsonl")
	if len(v1) > size {
		v1 = Prefix(v1, size)
	} else {
		v1 = RepeatBody(v1, size)
	}
	var chain bytes.Buffer
	if err := Chain(&chain, size/220); err != nil {
		t.Fatal(err)
	}
	torn := append(chain.Bytes(), `{"type":"message","id":"ffffffff","parentId":"0000`...)
	cases := []*rewriteCase{
		{cmd: "migrate", old: v1, backupName: ".v1.bak"},
		{cmd: "repair", old: torn, backupName: ".bak"},
		{cmd: "slim", flags: slimFlags, old: slimmable(size), backupName: ".bak"}, // slim --rewrite
	}
	for _, c := range cases {
		dir := t.TempDir()
		file := write(t, dir, "s.jsonl", c.old)
		r := the.pisess(t, time.Minute, []int{0}, append(append([]string{c.cmd, "--backup", "--format", "json"}, c.flags...), file)...)
		if !bytes.Contains(r.stdout, []byte(`"action":"`+map[string]string{"migrate": "migrated", "repair": "repaired", "slim": "slimmed"}[c.cmd]+`"`)) {
			t.Fatalf("the %s case is not rewritten by a clean run\n%s", c.cmd, r)
		}
		c.new, _ = os.ReadFile(file)
		v := the.pisess(t, time.Minute, []int{0}, "validate", "--format", "json", "--require-version", "3", file)
		if !bytes.Contains(v.stdout, []byte(`"status":"valid"`)) {
			t.Fatalf("the %s case does not become a valid version-3 file\n%s", c.cmd, v)
		}
	}
	return cases
}

// state is what a disturbed rewrite left in its directory.
type state struct {
	replaced bool     // the file holds the new generation (else the old)
	backup   bool     // a backup is beside it
	temps    []string // temp files left
}

// inspect checks the guarantees after a disturbed run of c on dir/s.jsonl:
// the file is the old bytes or the complete new generation, and a backup
// is byte-identical to the old bytes. It returns what it found.
func (c *rewriteCase) inspect(t *testing.T, dir string) state {
	t.Helper()
	file := filepath.Join(dir, "s.jsonl")
	var st state
	now, err := os.ReadFile(file)
	switch {
	case err != nil:
		t.Errorf("%s: the session is gone: %v", c.cmd, err)
	case bytes.Equal(now, c.new):
		st.replaced = true
	case !bytes.Equal(now, c.old):
		t.Errorf("%s: the session is neither the old bytes nor the new generation (%d bytes; old %d, new %d)", c.cmd, len(now), len(c.old), len(c.new))
	}
	if b, err := os.ReadFile(file + c.backupName); err == nil {
		st.backup = true
		if !bytes.Equal(b, c.old) {
			t.Errorf("%s: the backup is not byte-identical to the original", c.cmd)
		}
	}
	st.temps = tempFiles(t, dir)
	for _, tmp := range st.temps {
		if b, err := os.ReadFile(tmp); err == nil && !bytes.HasPrefix(c.new, b) {
			t.Errorf("%s: temp file %s is not a prefix of the new generation", c.cmd, filepath.Base(tmp))
		}
	}
	return st
}

// rerun runs c again, undisturbed: it must succeed and leave the new
// generation and a byte-identical backup.
func (c *rewriteCase) rerun(t *testing.T, dir string) {
	t.Helper()
	file := filepath.Join(dir, "s.jsonl")
	the.pisess(t, time.Minute, []int{0}, append(append([]string{c.cmd, "--backup"}, c.flags...), file)...)
	st := c.inspect(t, dir)
	if !st.replaced || !st.backup {
		t.Errorf("%s: running again did not finish the job (replaced %v, backup %v)", c.cmd, st.replaced, st.backup)
	}
}

// validates runs pisess validate on a file that is not the old bytes.
func validates(t *testing.T, file string) {
	t.Helper()
	r := the.pisess(t, time.Minute, []int{0}, "validate", "--format", "json", "--require-version", "3", file)
	if !strings.Contains(string(r.stdout), `"status":"valid"`) {
		t.Errorf("the new generation does not validate\n%s", r)
	}
}
