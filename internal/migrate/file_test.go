package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/testfs"
)

// noCreate fails any file creation: proves an operation wrote nothing.
func noCreate(op, name string) error {
	if op == "CreateExcl" || op == "Link" || op == "Rename" {
		return errors.New("must not " + op + " " + name)
	}
	return nil
}

// TestRefusedInvalidNamesTheLine: a Verify that fails with a
// *FindingError makes a refusal that names the finding's line, severity
// and code ("FILE:LINE: refused_invalid: error CODE: message").
func TestRefusedInvalidNamesTheLine(t *testing.T) {
	path := testfs.WriteSession(t, t.TempDir(), sampleV1, 0o640)
	f := finding.Errorf(finding.Schema, 2, "required key %q is missing", "content")
	verify := func(string, io.Reader) error { return &safefile.FindingError{Finding: f} }
	_, err := MigrateFile(newFaultFS(noCreate), path, Options{Verify: verify})
	var e *safefile.Error
	if !errors.As(err, &e) || e.Code != safefile.RefusedInvalid || e.Line != 2 || e.Finding == nil || e.Finding.Code != finding.Schema {
		t.Fatalf("got %#v", err)
	}
	if want := path + `:2: refused_invalid: error schema: required key "content" is missing`; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if got := (&safefile.FindingError{Finding: f}).Error(); got != `line 2: schema: required key "content" is missing` {
		t.Errorf("FindingError: %q", got)
	}
}

func TestMigrateFile(t *testing.T) {
	v2 := `{"type":"session","version":2,"id":"s"}` + "\n" + `{"type":"message","id":"a","parentId":null,"message":{"role":"hookMessage"}}` + "\n"
	v3 := `{"type":"session","version":3,"id":"s"}` + "\n"
	invalid := func(string, io.Reader) error { return errors.New("schema: bad") }
	tests := []struct {
		name       string
		content    string
		opts       Options
		fail       func(op, name string) error
		wantAction Action
		wantFrom   int
		wantBackup string // suffix
		wantCode   safefile.Code
		changed    bool
	}{
		{name: "v1 with backup", content: sampleV1, opts: Options{Backup: true},
			wantAction: Migrated, wantFrom: 1, wantBackup: ".v1.bak", changed: true},
		{name: "v2 with backup", content: v2, opts: Options{Backup: true},
			wantAction: Migrated, wantFrom: 2, wantBackup: ".v2.bak", changed: true},
		{name: "v1 without backup", content: sampleV1,
			wantAction: Migrated, wantFrom: 1, changed: true},
		{name: "v3 is left alone without a temp file", content: v3, opts: Options{Backup: true}, fail: noCreate,
			wantAction: Unchanged, wantFrom: 3},
		{name: "dry run", content: sampleV1, opts: Options{Backup: true, DryRun: true, Diff: true}, fail: noCreate,
			wantAction: WouldMigrate, wantFrom: 1},
		{name: "invalid file is refused before anything is written", content: sampleV1, opts: Options{Verify: invalid}, fail: noCreate,
			wantAction: Refused, wantFrom: 1, wantCode: safefile.RefusedInvalid},
		{name: "invalid v3 file is refused too", content: v3, opts: Options{Verify: invalid}, fail: noCreate,
			wantAction: Refused, wantFrom: 3, wantCode: safefile.RefusedInvalid},
		{name: "corrupt file is refused", content: sampleV1 + "{}{}\n", fail: noCreate,
			wantAction: Refused, wantCode: safefile.RefusedCorrupt},
		{name: "not a session", content: `{"version":1,"recordType":"message"}` + "\n", fail: noCreate,
			wantAction: Refused, wantCode: safefile.Unsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := testfs.WriteSession(t, dir, tt.content, 0o640)
			rep, err := MigrateFile(newFaultFS(tt.fail), path, tt.opts)
			if tt.wantCode != "" {
				var e *safefile.Error
				if !errors.As(err, &e) || e.Code != tt.wantCode || e.Path != path {
					t.Fatalf("got %v, want %s", err, tt.wantCode)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if rep.Action != tt.wantAction || rep.From != tt.wantFrom || rep.File != path {
				t.Errorf("report %+v", rep)
			}
			got, _ := os.ReadFile(path)
			if changed := string(got) != tt.content; changed != tt.changed {
				t.Errorf("file changed: %v, want %v", changed, tt.changed)
			}
			if tt.changed {
				if rep.To != 3 || !strings.Contains(string(got), `"version":3`) {
					t.Errorf("not migrated: %+v", rep)
				}
			}
			wantBackup := ""
			if tt.wantBackup != "" {
				wantBackup = path + tt.wantBackup
				if b, _ := os.ReadFile(wantBackup); string(b) != tt.content {
					t.Error("backup is not the original")
				}
			}
			if rep.Backup != wantBackup {
				t.Errorf("backup %q, want %q", rep.Backup, wantBackup)
			}
			if tt.opts.DryRun && !strings.Contains(rep.Diff, "+++") {
				t.Errorf("dry run diff: %q", rep.Diff)
			}
			testfs.NoTempLeft(t, dir, safefile.TempPrefix)
		})
	}
}

func TestRepairFile(t *testing.T) {
	const h = `{"type":"session","version":3,"id":"s"}`
	const a = `{"type":"a","id":"1","parentId":null}`
	tests := []struct {
		name        string
		content     string
		opts        Options
		fail        func(op, name string) error
		wantAction  Action
		want        string // file content afterwards ("" = unchanged)
		wantCode    safefile.Code
		wantFinding finding.Code
	}{
		{name: "clean file: nothing written", content: h + "\n" + a + "\n", opts: Options{Backup: true}, fail: noCreate,
			wantAction: Unchanged},
		{name: "concatenated line split, with backup", content: h + "\n" + a + a + "\n", opts: Options{Backup: true},
			wantAction: Repaired, want: h + "\n" + a + "\n" + a + "\n"},
		{name: "torn tail dropped", content: h + "\n" + a + "\n" + `{"type":"b`,
			wantAction: Repaired, want: h + "\n" + a + "\n"},
		{name: "zero tail refused without the option", content: h + "\n\x00\x00", fail: noCreate,
			wantAction: Refused, wantCode: safefile.RefusedCorrupt, wantFinding: finding.ZeroFill},
		{name: "zero tail cut with the option", content: h + "\n\x00\x00", opts: Options{ZeroTail: true},
			wantAction: Repaired, want: h + "\n"},
		{name: "invalid json refused", content: h + "\n{\"a\":}\n" + a + a + "\n", fail: noCreate,
			wantAction: Refused, wantCode: safefile.RefusedCorrupt, wantFinding: finding.InvalidJSON},
		{name: "dry run", content: h + "\n" + a, opts: Options{DryRun: true, Diff: true}, fail: noCreate,
			wantAction: WouldRepair},
		{name: "verify rejects the repaired file", content: h + "\n" + a,
			opts:       Options{Verify: func(string, io.Reader) error { return errors.New("bad") }},
			wantAction: Refused, wantCode: safefile.VerifyFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := testfs.WriteSession(t, dir, tt.content, 0o640)
			rep, err := RepairFile(newFaultFS(tt.fail), path, tt.opts)
			if tt.wantCode != "" {
				var e *safefile.Error
				if !errors.As(err, &e) || e.Code != tt.wantCode {
					t.Fatalf("got %v, want %s", err, tt.wantCode)
				}
				if tt.wantFinding != "" && (e.Finding == nil || e.Finding.Code != tt.wantFinding) {
					t.Errorf("finding %+v, want %s", e.Finding, tt.wantFinding)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if rep.Action != tt.wantAction {
				t.Errorf("action %s, want %s", rep.Action, tt.wantAction)
			}
			want := tt.want
			if want == "" {
				want = tt.content
			}
			if got, _ := os.ReadFile(path); string(got) != want {
				t.Errorf("file %q, want %q", got, want)
			}
			if tt.opts.Backup && rep.Action == Repaired {
				if b, _ := os.ReadFile(path + ".bak"); string(b) != tt.content || rep.Backup != path+".bak" {
					t.Error("backup is not the original")
				}
			}
			if rep.Action == Repaired && len(rep.Fixes) == 0 {
				t.Error("no fixes reported")
			}
			testfs.NoTempLeft(t, dir, safefile.TempPrefix)
		})
	}
}

// TestRealDamagedFilesEndToEnd repairs then migrates copies of the two
// damaged real files through the file API, with backups.
func TestRealDamagedFilesEndToEnd(t *testing.T) {
	realFiles(t, "v1-*.jsonl")
	for name := range damaged {
		t.Run(name, func(t *testing.T) {
			orig := readFile(t, filepath.Join(realCorpus, name))
			dir := t.TempDir()
			path := testfs.WriteSession(t, dir, string(orig), 0o640)
			rep, err := RepairFile(safefile.OS(), path, Options{Backup: true})
			if err != nil || rep.Action != Repaired {
				t.Fatalf("repair: %+v, %v", rep, err)
			}
			repaired := readFile(t, path)
			if bytes.Count(repaired, []byte("\n")) != bytes.Count(orig, []byte("\n"))+1 {
				t.Error("repair did not add exactly one line")
			}
			mrep, err := MigrateFile(safefile.OS(), path, Options{Backup: true})
			if err != nil || mrep.Action != Migrated || mrep.From != 1 {
				t.Fatalf("migrate: %+v, %v", mrep, err)
			}
			if b := readFile(t, path+".bak"); !bytes.Equal(b, orig) {
				t.Error(".bak is not the damaged original")
			}
			if b := readFile(t, path+".v1.bak"); !bytes.Equal(b, repaired) {
				t.Error(".v1.bak is not the repaired v1 file")
			}
			again, err := MigrateFile(safefile.OS(), path, Options{Backup: true})
			if err != nil || again.Action != Unchanged {
				t.Errorf("second migrate: %+v, %v", again, err)
			}
			testfs.NoTempLeft(t, dir, safefile.TempPrefix)
		})
	}
}

// TestMigrateFileCheck: with Check, the original's findings are the
// migration's notes (before Migrate's own), its error refuses the file
// before anything is created, the VerifyFunc it returns is the one the
// new generation must pass, and a version-3 file is left alone unchecked.
func TestMigrateFileCheck(t *testing.T) {
	warning := finding.Warnf(finding.Schema, 2, "required key %q is missing", "timestamp")
	v3 := `{"type":"session","version":3,"id":"s"}` + "\n"
	dangling := `{"type":"session","id":"s"}` + "\n" + `{"type":"compaction","summary":"s","firstKeptEntryIndex":9}` + "\n"
	pass := func(string, io.Reader) error { return nil }
	fail := func(string, io.Reader) error { return errors.New("new generation rejected") }
	tests := []struct {
		name       string
		content    string
		check      CheckFunc
		fail       func(op, name string) error
		wantAction Action
		wantCode   safefile.Code
		wantNotes  []finding.Code
	}{
		{name: "warnings are reported, the file migrated", content: sampleV1,
			check: func(string, io.Reader) ([]finding.Finding, safefile.VerifyFunc, error) {
				return []finding.Finding{warning}, pass, nil
			},
			wantAction: Migrated, wantNotes: []finding.Code{finding.Schema}},
		{name: "the check's warnings come before migrate's notes", content: dangling,
			check: func(string, io.Reader) ([]finding.Finding, safefile.VerifyFunc, error) {
				return []finding.Finding{warning}, pass, nil
			},
			wantAction: Migrated, wantNotes: []finding.Code{finding.Schema, finding.DanglingFirstKept}},
		{name: "an error refuses before anything is written", content: sampleV1, fail: noCreate,
			check: func(string, io.Reader) ([]finding.Finding, safefile.VerifyFunc, error) {
				return nil, nil, &safefile.FindingError{Finding: finding.Errorf(finding.MissingHeader, 1, "no header")}
			},
			wantAction: Refused, wantCode: safefile.RefusedInvalid},
		{name: "the new generation is checked with the check's verify", content: sampleV1,
			check:      func(string, io.Reader) ([]finding.Finding, safefile.VerifyFunc, error) { return nil, fail, nil },
			wantAction: Refused, wantCode: safefile.VerifyFailed},
		{name: "a version-3 file is not checked", content: v3, fail: noCreate,
			check: func(string, io.Reader) ([]finding.Finding, safefile.VerifyFunc, error) {
				return nil, nil, errors.New("must not be called")
			},
			wantAction: Unchanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := testfs.WriteSession(t, dir, tt.content, 0o640)
			rep, err := MigrateFile(newFaultFS(tt.fail), path, Options{Check: tt.check, Verify: pass})
			var e *safefile.Error
			switch {
			case tt.wantCode == "" && err != nil:
				t.Fatal(err)
			case tt.wantCode != "" && (!errors.As(err, &e) || e.Code != tt.wantCode):
				t.Fatalf("got %v, want %s", err, tt.wantCode)
			}
			if rep.Action != tt.wantAction {
				t.Errorf("action %s, want %s", rep.Action, tt.wantAction)
			}
			var notes []finding.Code
			for _, n := range rep.Notes {
				notes = append(notes, n.Code)
			}
			if fmt.Sprint(notes) != fmt.Sprint(tt.wantNotes) {
				t.Errorf("notes %v, want %v", notes, tt.wantNotes)
			}
			if got, _ := os.ReadFile(path); (string(got) != tt.content) != (tt.wantAction == Migrated) {
				t.Errorf("file changed: %v, action %s", string(got) != tt.content, rep.Action)
			}
			testfs.NoTempLeft(t, dir, safefile.TempPrefix)
		})
	}
}

// TestMigrateRefusesLinesPiWouldLose: a corrupt line mid-file refuses the
// migration and says that pi's own migration would lose it.
func TestMigrateRefusesLinesPiWouldLose(t *testing.T) {
	path := testfs.WriteSession(t, t.TempDir(), sampleV1[:strings.Index(sampleV1, "\n")+1]+"not-json\n"+sampleV1[strings.Index(sampleV1, "\n")+1:], 0o640)
	_, err := MigrateFile(newFaultFS(noCreate), path, Options{})
	var e *safefile.Error
	if !errors.As(err, &e) || e.Code != safefile.RefusedCorrupt || e.Line != 2 {
		t.Fatalf("got %v, want refused_corrupt on line 2", err)
	}
	if !strings.Contains(err.Error(), "pi 1.6.0's own migration would drop or change this line") || !strings.Contains(err.Error(), "`pisess repair`") {
		t.Errorf("the refusal does not say pi would lose the line: %v", err)
	}
	// A line over pisess's limit is one pi reads: refused, without the note.
	limits := session.DefaultLimits()
	limits.MaxLineBytes = 100
	_, err = MigrateFile(newFaultFS(noCreate), testfs.WriteSession(t, t.TempDir(), sampleV1, 0o640), Options{Limits: limits})
	if !errors.As(err, &e) || e.Code != safefile.RefusedCorrupt || e.Finding == nil || e.Finding.Code != finding.LineTooLong || strings.Contains(err.Error(), "pi 1.6.0") {
		t.Errorf("got %v, want refused_corrupt line_too_long without the note", err)
	}
}

func TestFileAPISymlinkPolicy(t *testing.T) {
	dir := t.TempDir()
	target := testfs.WriteSession(t, dir, sampleV1, 0o640)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, op := range []func(safefile.FS, string, Options) (Report, error){MigrateFile, RepairFile} {
		rep, err := op(safefile.OS(), link, Options{})
		var e *safefile.Error
		if !errors.As(err, &e) || e.Code != safefile.Symlink || rep.Action != Refused || e.Path != link {
			t.Errorf("got %+v, %v", rep, err)
		}
	}
	rep, err := MigrateFile(safefile.OS(), link, Options{FollowSymlinks: true, Backup: true})
	if err != nil || rep.Action != Migrated || rep.Backup != target+".v1.bak" {
		t.Errorf("follow: %+v, %v", rep, err)
	}
}
