package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestIsTempName(t *testing.T) {
	for name, want := range map[string]bool{
		".pisess-tmp-0123456789ab":         true,
		".s.jsonl.pisess-tmp-0123456789ab": true, // the earlier, longer form
		".pisess-tmp-0123456789a":          false,
		".pisess-tmp-0123456789abc":        false,
		".pisess-tmp-0123456789AB":         false,
		"pisess-tmp-0123456789ab":          false,
		"x.pisess-tmp-0123456789ab":        false,
		".pisess-tmp-0123456789ab.jsonl":   false,
		"s.jsonl":                          false,
	} {
		if got := IsTempName(name); got != want {
			t.Errorf("IsTempName(%q) = %v", name, got)
		}
	}
}

// Issue 17 item 12: `repair --clean-temps` removes a killed run's temp
// files, and nothing else: not a young one, not one a running rewrite
// holds, not a link, not a file that only looks similar.
func TestCleanTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	mk := func(name string, age time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, age, age); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk(".pisess-tmp-00000000000a", old)
	legacy := mk(".s.jsonl.pisess-tmp-00000000000b", old)
	young := mk(".pisess-tmp-00000000000c", time.Now())
	held := mk(".pisess-tmp-00000000000d", old)
	other := mk(".pisess-tmp-notours", old)
	session := mk("s.jsonl", old)
	link := filepath.Join(dir, ".pisess-tmp-00000000000e")
	if err := os.Symlink(session, link); err != nil {
		t.Fatal(err)
	}
	hf, err := OS().Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	lockOK := OS().Lock(hf) == nil

	dry, err := CleanTemps(OS(), dir, time.Now(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range dry {
		if _, err := os.Lstat(v.Path); err != nil {
			t.Errorf("a dry run removed %s", v.Path)
		}
	}
	verdicts, err := CleanTemps(OS(), dir, time.Now(), false)
	if err != nil {
		t.Fatal(err)
	}
	removed := map[string]bool{}
	for _, v := range verdicts {
		removed[v.Path] = v.Removed
		if !v.Removed && v.Why == "" {
			t.Errorf("%s kept without a reason", v.Path)
		}
	}
	want := map[string]bool{stale: true, legacy: true, young: false, link: false}
	if lockOK {
		want[held] = false
	}
	for p, w := range want {
		if removed[p] != w {
			t.Errorf("%s: removed %v, want %v", filepath.Base(p), removed[p], w)
		}
		if _, err := os.Lstat(p); (err == nil) == w {
			t.Errorf("%s: exists %v after the clean", filepath.Base(p), err == nil)
		}
	}
	for _, p := range []string{other, session} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was touched", filepath.Base(p))
		}
		if _, listed := removed[p]; listed {
			t.Errorf("%s is not a temp file, but was considered", filepath.Base(p))
		}
	}
}

// TestTempsAddDone: a file recorded with add is removed by RemoveAll
// unless done forgot it first; one added after RemoveAll is removed at
// once and refused.
func TestTempsAddDone(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var temps Temps
	partial, complete := mk("partial"), mk("complete")
	if err := errors.Join(temps.add(OS(), partial), temps.add(OS(), complete)); err != nil {
		t.Fatal(err)
	}
	temps.done(complete)
	temps.RemoveAll(OS())
	if _, err := os.Lstat(partial); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the partial file is left (lstat: %v)", err)
	}
	if _, err := os.Lstat(complete); err != nil {
		t.Errorf("the complete file was removed: %v", err)
	}
	late := mk("late")
	if err := temps.add(OS(), late); err == nil {
		t.Error("a file added after RemoveAll was accepted")
	}
	if _, err := os.Lstat(late); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the late file is left (lstat: %v)", err)
	}
	var none *Temps
	if err := none.add(OS(), complete); err != nil {
		t.Errorf("a nil Temps: %v", err)
	}
	none.done(complete)
}
