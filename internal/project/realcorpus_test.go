package project

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

func realFilesOrNone() []string {
	files, _ := filepath.Glob(filepath.Join(realCorpus, "*.jsonl"))
	return files
}

func realFiles(tb testing.TB) []string {
	files := realFilesOrNone()
	if len(files) == 0 {
		tb.Skipf("no real corpus at %s: skipping (CI has it)", realCorpus)
	}
	return files
}

// unpairedInRealCorpus is the rule-6 calibration (docs/format.md): in the
// default leaf's context of every real file, the only unpaired tool call is
// one pi itself wrote before compacting (the turn was interrupted while the
// call ran). The nine aborted/errored turns with calls and no results are
// exempt.
var unpairedInRealCorpus = map[string][]string{
	"v1-pi-mono-before-compaction.jsonl": {"call_without_result line 628 toolu_01571BXn2nSXvrR7sxVHAXXE (bash)"},
}

func TestRealCorpus(t *testing.T) {
	for _, path := range realFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			s, err := LoadFile(path, session.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			leaves := s.Leaves()
			if len(s.Entries) > 0 && (len(leaves) != 1 || leaves[0] != s.DefaultLeaf()) {
				t.Errorf("every real file is one chain; leaves %v", ids(leaves))
			}
			c, err := s.Context(s.DefaultLeaf())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range c.Unpaired {
				got = append(got, fmt.Sprintf("%s line %d %s (%s)", u.Kind, u.Line, u.ToolCallID, u.ToolName))
			}
			want := unpairedInRealCorpus[name]
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("unpaired tools %v, want %v", got, want)
			}
		})
	}
}

// TestRealConcatenatedLines: both objects of a line with a lost newline are
// entries (pi drops the line).
func TestRealConcatenatedLines(t *testing.T) {
	realFiles(t)
	tests := []struct {
		file          string
		line, entries int
	}{
		{"v1-pi-mono-compact-root-concatenated-line.jsonl", 1013, 1013},
		{"v1-pi-mono-session-root-concatenated-line.jsonl", 440, 463},
	}
	for _, tt := range tests {
		s, err := LoadFile(filepath.Join(realCorpus, tt.file), session.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		var onLine []*Entry
		for _, e := range s.Entries {
			if e.Line == tt.line {
				onLine = append(onLine, e)
			}
		}
		if len(s.Entries) != tt.entries || len(onLine) != 2 || onLine[1].ParentID() != onLine[0].ID() {
			t.Errorf("%s: %d entries, %d on line %d", tt.file, len(s.Entries), len(onLine), tt.line)
		}
	}
}

// BenchmarkLoadAndProject loads the largest real file and projects the
// context of its default leaf.
func BenchmarkLoadAndProject(b *testing.B) {
	largest, size := "", int64(0)
	for _, path := range realFiles(b) {
		if fi, err := os.Stat(path); err == nil && fi.Size() > size {
			largest, size = path, fi.Size()
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		s, err := LoadFile(largest, session.DefaultLimits())
		if err != nil {
			b.Fatal(err)
		}
		c, err := s.Context(s.DefaultLeaf())
		if err != nil || len(c.Messages) == 0 {
			b.Fatal(err)
		}
		_ = s.Tree()
	}
}
