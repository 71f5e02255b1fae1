//go:build unix

package hostile

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestGeneratedBasesAreValid: the catalogue damages valid sessions, so the
// sessions it starts from must be valid, or a finding would not mean what
// the input's name says.
func TestGeneratedBasesAreValid(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name     string
		data     []byte
		findings int // needs_migration for version 1
	}{{"base.jsonl", Base(), 0}, {"base-v1.jsonl", BaseV1(), 1}} {
		r := the.pisess(t, 30*time.Second, []int{0}, "validate", "--format", "json", write(t, dir, tt.name, tt.data))
		for _, rep := range jsonLines(t, r) {
			if fs, _ := rep["findings"].([]any); rep["status"] != "valid" || len(fs) != tt.findings {
				t.Errorf("%s: %s", tt.name, r.stdout)
			}
		}
	}
}

func TestGeneratorNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, in := range Catalogue() {
		if seen[in.Name] {
			t.Errorf("two inputs are named %q", in.Name)
		}
		seen[in.Name] = true
	}
	if len(seen) < 200 {
		t.Errorf("the catalogue has only %d inputs", len(seen))
	}
}

// TestCatalogue runs every command on every named hostile input.
func TestCatalogue(t *testing.T) {
	t.Parallel()
	for i, b := range newBatches("catalogue", Catalogue()) {
		t.Run(fmt.Sprintf("flags%d", i), func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			the.checkBatch(t, b, depth{viewStride: size(4, 1, 1), formats: true})
			progress(t, "catalogue %v: %d files, every command and format: %v", b.flags, len(b.files), time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestTruncations cuts real sessions at every byte offset. Every command
// that takes many files sees every offset; the one-file views every
// PISESS_HOSTILE_STRIDE-th (default 8, 1 in the long run). The long run
// (PISESS_HOSTILE_LONG=1) cuts more and bigger sessions.
func TestTruncations(t *testing.T) {
	t.Parallel()
	long := envInt(envLong, 0) == 1
	stride := envInt(envStride, size(64, 8, 1))
	sources := []struct {
		real, fallback string
		size           int
		long           bool
	}{
		{"v3-howard-pimono-local-cli-tiny.jsonl", "valid/v3-minimal.jsonl", 2000, false},
		{"v1-pi-mono-large-session.jsonl", "valid/v1-linear.jsonl", 3000, false},
		{"v3-earth0-deepseek-4-short.jsonl", "valid/v3-tools.jsonl", 5000, true},
		{"v3-switchboard-reserialized-windows-cwd.jsonl", "valid/v3-crlf.jsonl", 5000, true},
		{"v1-pi-mono-before-compaction.jsonl", "valid/v1-linear.jsonl", 8000, true},
	}
	for _, src := range sources {
		if src.long && !long {
			continue
		}
		name, data := source(t, src.real, src.fallback)
		data = Prefix(data, size(src.size/5, src.size*3/5, src.size)) // make test: 60 %, to stay within its 5 minutes
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			for i, b := range newBatches("trunc", Truncations("t", data, 1)) {
				start := time.Now()
				the.checkBatch(t, b, depth{viewStride: stride})
				progress(t, "truncations batch %d: %d files, every command, views on every %d-th: %v", i+1, len(b.files), stride, time.Since(start).Round(time.Millisecond))
			}
		})
	}
}

// TestFlips flips random bytes of real sessions (seeded: the same inputs
// every run): PISESS_HOSTILE_FLIPS variants of each (default 150, 2000 in
// the long run).
func TestFlips(t *testing.T) {
	t.Parallel()
	n := envInt(envFlips, size(20, 150, 2000))
	sources := []struct {
		real, fallback string
		size           int
	}{
		{"v3-earth0-deepseek-3.jsonl", "valid/v3-everything.jsonl", 30_000},
		{"v3-kimchi-custom-entries-2.jsonl", "valid/v3-branched.jsonl", 20_000},
		{"v1-pi-mono-before-compaction.jsonl", "valid/v1-linear.jsonl", 20_000},
	}
	for i, src := range sources {
		name, data := source(t, src.real, src.fallback)
		data = Prefix(data, src.size)
		seed := uint64(i + 1)
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			for i, b := range newBatches("flip", Flips("f", data, seed, n, 4)) {
				start := time.Now()
				the.checkBatch(t, b, depth{viewStride: 10, formats: true})
				progress(t, "flips batch %d: %d files, every command and format: %v", i+1, len(b.files), time.Since(start).Round(time.Millisecond))
			}
		})
	}
}
