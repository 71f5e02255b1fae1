package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func slot(title string) string {
	s := `{"type":"title","v":1,"title":"` + title + `","updatedAt":"2026-03-01T09:00:00.000Z","pad":"`
	return s + strings.Repeat(" ", TitleSlotBytes-len(s)-3) + `"}` + "\n"
}

const piHeader = `{"type":"session","version":3,"id":"s1","timestamp":"2026-03-01T09:00:00.000Z","cwd":"/p"}` + "\n"

func TestSniffDialect(t *testing.T) {
	cases := []struct {
		name, text string
		want       Dialect
	}{
		{"title slot", slot("Fix the cart") + piHeader, Omp},
		{"title slot, empty title", slot("") + piHeader, Omp},
		{"slot with v 2 is no slot", strings.Replace(slot(""), `"v":1`, `"v":2`, 1) + piHeader, Pi},
		{"pi header only", piHeader, Pi},
		{"empty", "", Pi},
		{"garbage", "not json\n\x00\x01{\n", Pi},
		{"omp model_change", piHeader + `{"type":"model_change","id":"a","parentId":null,"timestamp":"t","model":"anthropic/claude"}` + "\n", Omp},
		{"pi model_change", piHeader + `{"type":"model_change","id":"a","parentId":null,"timestamp":"t","provider":"anthropic","modelId":"claude"}` + "\n", Pi},
		{"omp entry type", piHeader + `{"type":"message","id":"a"}` + "\n" + `{"type":"model_usage","id":"b"}` + "\n", Omp},
		{"pi entry type first", piHeader + `{"type":"session_info","id":"a"}` + "\n" + `{"type":"model_usage","id":"b"}` + "\n", Pi},
		{"omp header field", `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/","titleSource":"user"}` + "\n", Omp},
		{"thinking configured", piHeader + `{"type":"thinking_level_change","id":"a","thinkingLevel":null,"configured":"auto"}` + "\n", Omp},
		{"omp compaction", piHeader + `{"type":"compaction","id":"a","shortSummary":"s"}` + "\n", Omp},
		{"torn second line", piHeader + `{"type":"model_usage"`, Pi},
		{"crlf slot", strings.Replace(slot("x"), "\n", "\r\n", 1) + piHeader, Omp},
	}
	for _, c := range cases {
		if got := SniffDialect([]byte(c.text)); got != c.want {
			t.Errorf("%s: SniffDialect = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestTitleSlotSize(t *testing.T) {
	if n := len(slot("Fix the cart")); n != TitleSlotBytes {
		t.Fatalf("test slot is %d bytes", n)
	}
}

// TestSniffOmpCorpus: every file omp's own code wrote is omp's.
func TestSniffOmpCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/omp/*.jsonl")
	if len(files) == 0 {
		t.Skip("no testdata/corpus/omp files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if d := SniffDialect(b); d != Omp {
			t.Errorf("%s: %q", f, d)
		}
	}
}

func FuzzSniffDialect(f *testing.F) {
	f.Add([]byte(slot("a") + piHeader))
	f.Add([]byte(piHeader))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = SniffDialect(b)
		_ = IsTitleSlot(b)
	})
}

// TestEntryTypes: the one list holds pi's eleven types and omp's sixteen,
// each once, and a record of a type only one dialect writes tells it.
func TestEntryTypes(t *testing.T) {
	seen := map[string]bool{}
	pi := 0
	for _, e := range EntryTypes() {
		if seen[e.Name] {
			t.Errorf("%s listed twice", e.Name)
		}
		seen[e.Name] = true
		if e.Pi {
			pi++
		}
		if !e.Pi && !e.Omp {
			t.Errorf("%s: no dialect writes it", e.Name)
		}
		if got := SniffDialect([]byte(`{"type":"session"}` + "\n" + `{"type":"` + e.Name + `"}` + "\n")); e.Pi != e.Omp && got != map[bool]Dialect{true: Pi, false: Omp}[e.Pi] {
			t.Errorf("a %s record sniffs as %s", e.Name, got)
		}
	}
	if pi != 11 || len(OmpEntryTypes()) != 16 {
		t.Errorf("%d pi types, %d omp types; want 11 and 16", pi, len(OmpEntryTypes()))
	}
	if !IsOmpEntryType("reset_boundary") || IsOmpEntryType("usage") || IsOmpEntryType("") {
		t.Error("IsOmpEntryType disagrees with the list")
	}
}
