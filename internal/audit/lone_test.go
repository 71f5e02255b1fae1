package audit_test

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/audit"
)

// TestLoneKeepsNoKeys: a collector told its file is the only one keeps
// no entry keys, and every figure and total is what it is otherwise, on
// every file of testdata/corpus (version 1 files, omp's, damaged ones).
func TestLoneKeepsNoKeys(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/corpus/*/*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	keys := 0
	for _, path := range paths {
		rec := fileOf(t, path)
		lone, err := audit.LoneFile(path, options())
		if err != nil {
			t.Fatal(err)
		}
		keys += audit.KeyCount(rec)
		if n := audit.KeyCount(lone); n != 0 {
			t.Errorf("%s: the lone collector kept %d keys", path, n)
		}
		if a, b := audit.WithoutEntries(rec), audit.WithoutEntries(lone); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: lone figures\n%+v\nwant\n%+v", path, b, a)
		}
		for _, opts := range []audit.Options{{}, {By: audit.ByModel}, {By: audit.ByDay},
			{By: audit.ByMonth, Window: audit.Window{From: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}}} {
			want := audit.Total([]*audit.Record{rec}, opts)
			if got := audit.Total([]*audit.Record{lone}, opts); !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %+v: lone total\n%+v\nwant\n%+v", path, opts, got, want)
			}
			if got, want := lone.UsageIn(opts.Window), rec.UsageIn(opts.Window); got != want {
				t.Errorf("%s, %+v: lone usage %+v, want %+v", path, opts, got, want)
			}
		}
	}
	if keys == 0 {
		t.Error("no file of the corpus has entry keys: the test compares nothing")
	}
}
