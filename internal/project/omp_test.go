package project

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// TestOmpContext states what omp 18's buildSessionContext gives on the
// omp corpus and fixtures (TestOmpConformance checks it against omp's
// code; this holds it without Bun): the roles of the messages, the models
// per role and the thinking level, per leaf.
func TestOmpContext(t *testing.T) {
	dir := t.TempDir()
	writeOmpFixtures(t, dir)
	corpus := filepath.Join(testCorpus, "omp")
	tests := []struct {
		file, leaf, roles, models, thinking string
	}{
		{filepath.Join(corpus, "omp-minimal.jsonl"), "", "user assistant", "default=anthropic/claude-sonnet-4-5", "medium"},
		{filepath.Join(corpus, "omp-noslot.jsonl"), "", "user assistant", "default=anthropic/claude-sonnet-4-5", "medium"},
		{filepath.Join(corpus, "omp-reset.jsonl"), "", "user assistant", "default=openai/gpt-5.2", "off"},
		{filepath.Join(corpus, "omp-compacted.jsonl"), "", "compactionSummary user assistant user user assistant", "default=anthropic/claude-sonnet-4-5 smol=anthropic/claude-haiku-4-5", "off"},
		{filepath.Join(corpus, "omp-everything.jsonl"), "ac05361d", "user assistant", "default=anthropic/claude-sonnet-4-5 smol=anthropic/claude-haiku-4-5", "high"},
		{filepath.Join(corpus, "omp-everything.jsonl"), "12875298", "user assistant toolResult assistant custom user assistant toolResult assistant", "default=anthropic/claude-sonnet-4-5 smol=anthropic/claude-haiku-4-5", "high"},
		{filepath.Join(corpus, "omp-everything.jsonl"), "d0322a1f", "compactionSummary assistant user assistant", "default=anthropic/claude-sonnet-4-5 smol=anthropic/claude-haiku-4-5", "high"},
		{filepath.Join(corpus, "omp-everything.jsonl"), "cebd634a", "user assistant", "default=anthropic/claude-sonnet-4-5 smol=anthropic/claude-haiku-4-5", "high"},
		{filepath.Join(dir, "omp-fx-models.jsonl"), "m3", "user assistant assistant", "default=openrouter/meta/llama-4 smol=anthropic/claude-haiku-4-5", "high"},
		{filepath.Join(dir, "omp-fx-models.jsonl"), "c3", "user assistant assistant", "default=anthropic/claude-sonnet-4-5 smol=anthropic/claude-haiku-4-5 slow=google/gemini-3-pro", "off"},
		{filepath.Join(dir, "omp-fx-failed.jsonl"), "l1", "user user assistant user user assistant custom", "default=anthropic/claude-sonnet-4-5", "off"},
		{filepath.Join(dir, "omp-fx-failed.jsonl"), "r7", "user user assistant user user assistant custom assistant toolResult", "default=anthropic/claude-sonnet-4-5", "off"},
		{filepath.Join(dir, "omp-fx-reset.jsonl"), "u4", "user", "default=anthropic/claude-sonnet-4-5", "off"},
		{filepath.Join(dir, "omp-fx-reset.jsonl"), "z1", "compactionSummary user custom assistant user", "default=anthropic/claude-sonnet-4-5", "off"},
		{filepath.Join(dir, "omp-fx-remote.jsonl"), "u3", "compactionSummary user assistant user", "default=openai/gpt-5", "off"},
		{filepath.Join(dir, "omp-fx-remote.jsonl"), "u5", "compactionSummary user assistant user", "default=openai/gpt-5", "off"},
		{filepath.Join(dir, "omp-fx-cycle.jsonl"), "c3", "user assistant user", "default=anthropic/claude-sonnet-4-5", "off"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file)+"/"+tt.leaf, func(t *testing.T) {
			s, err := LoadFile(tt.file, session.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if s.Dialect != session.Omp {
				t.Errorf("dialect %q", s.Dialect)
			}
			leaf, err := s.Leaf(tt.leaf)
			if err != nil {
				t.Fatal(err)
			}
			c, err := s.Context(leaf)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rolesOf(c.Messages), " "); got != tt.roles {
				t.Errorf("roles %q, want %q", got, tt.roles)
			}
			var models []string
			for _, m := range c.Models {
				models = append(models, m.Role+"="+c.ModelNames()[m.Role])
			}
			if got := strings.Join(models, " "); got != tt.models {
				t.Errorf("models %q, want %q", got, tt.models)
			}
			if got := c.ThinkingLevelName(); got != tt.thinking {
				t.Errorf("thinking %q, want %q", got, tt.thinking)
			}
		})
	}
}

// TestOmpIndex: the title slot is no entry, the header is line 2, and a
// pi file stays pi's.
func TestOmpIndex(t *testing.T) {
	s, err := LoadFile(filepath.Join(testCorpus, "omp", "omp-minimal.jsonl"), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if s.Header.Line != 2 || len(s.TitleSlot) != session.TitleSlotBytes-1 || s.Entries[0].Line != 3 {
		t.Errorf("header line %d, slot %d bytes, first entry line %d", s.Header.Line, len(s.TitleSlot), s.Entries[0].Line)
	}
	p, err := LoadFile(filepath.Join(testCorpus, "valid", "v3-minimal.jsonl"), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if p.Dialect != session.Pi || p.TitleSlot != nil {
		t.Errorf("pi file: dialect %q, slot %q", p.Dialect, p.TitleSlot)
	}
}
