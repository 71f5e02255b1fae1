package text

import (
	"bytes"
	"strings"
	"testing"
)

// A table of the audit's shape: a path, a title, numbers.
var (
	fitCols = []Column{
		{Title: "FILE", Min: 20, Middle: true},
		{Title: "VERDICT"},
		{Title: "INPUT", Right: true, Drop: 1},
		{Title: "OUTPUT", Right: true, Drop: 2},
		{Title: "TOKENS", Right: true, Drop: 4},
		{Title: "COST", Right: true},
		{Title: "TITLE", Min: 8, Drop: 3},
	}
	fitRows = [][]string{
		{"2026-01-01T00-00-00-000Z_0194f7e2-aaaa-7000-8000-000000000001.jsonl", "ok", "1,234", "567", "1,801", "$0.5500", "Fix the parser in the validation pass"},
		{"old.jsonl", "needs-migration", "12", "3", "15", "$12.01", "如月家の記録を整理する"},
	}
	fitFoot = []string{"total", "", "1,246", "570", "1,816", "$12.56", ""}
)

func render(t *testing.T, width int) []string {
	t.Helper()
	var b bytes.Buffer
	if err := Table(&b, fitCols, fitRows, fitFoot, width); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

func TestTableFitsTheWidth(t *testing.T) {
	tests := []struct {
		width   int
		titles  []string // the columns shown, in order
		missing []string // columns dropped
	}{
		{0, []string{"FILE", "VERDICT", "INPUT", "OUTPUT", "TOKENS", "COST", "TITLE"}, nil},
		{200, []string{"FILE", "VERDICT", "INPUT", "OUTPUT", "TOKENS", "COST", "TITLE"}, nil},
		{100, []string{"FILE", "VERDICT", "INPUT", "OUTPUT", "TOKENS", "COST", "TITLE"}, nil},
		{90, []string{"FILE", "VERDICT", "INPUT", "OUTPUT", "TOKENS", "COST", "TITLE"}, nil},
		{80, []string{"FILE", "VERDICT", "TOKENS", "COST", "TITLE"}, []string{"INPUT", "OUTPUT"}},
		{70, []string{"FILE", "VERDICT", "TOKENS", "COST"}, []string{"INPUT", "OUTPUT", "TITLE"}},
		{60, []string{"FILE", "VERDICT", "COST"}, []string{"INPUT", "OUTPUT", "TITLE", "TOKENS"}},
		{45, []string{"FILE", "VERDICT", "COST"}, []string{"INPUT", "OUTPUT", "TITLE", "TOKENS"}}, // FILE below its Min
	}
	for _, tt := range tests {
		lines := render(t, tt.width)
		if len(lines) != 8 {
			t.Errorf("width %d: %d lines, want 8:\n%s", tt.width, len(lines), strings.Join(lines, "\n"))
		}
		for _, l := range lines {
			if tt.width > 0 && Width(l) > tt.width {
				t.Errorf("width %d: a line of %d columns: %q", tt.width, Width(l), l)
			}
			if Width(l) != Width(lines[0]) {
				t.Errorf("width %d: ragged table:\n%s", tt.width, strings.Join(lines, "\n"))
				break
			}
		}
		header := strings.Fields(strings.ReplaceAll(lines[1], "│", " "))
		if strings.Join(header, " ") != strings.Join(tt.titles, " ") {
			t.Errorf("width %d: columns %v, want %v", tt.width, header, tt.titles)
		}
	}
}

// Paths are shortened from the middle (start and name stay), titles at
// the end; wide characters are two columns.
func TestTableShortens(t *testing.T) {
	lines := render(t, 90)
	if got := lines[3]; !strings.Contains(got, "│ 2026-01-0") || !strings.Contains(got, "0001.jsonl │") || !strings.Contains(got, "…") {
		t.Errorf("path not cut in the middle: %q", got)
	}
	out := strings.Join(render(t, 100), "\n")
	if !strings.Contains(out, "│ Fix the") || strings.Contains(out, "validation pass") {
		t.Errorf("title not cut at the end:\n%s", out)
	}
	for _, l := range render(t, 100) {
		if Width(l) > 100 {
			t.Errorf("wide characters overflow: %q", l)
		}
	}
}

// The table is exactly the width when it has to shrink: nothing is given
// away that was not needed.
func TestTableUsesTheWidth(t *testing.T) {
	for _, w := range []int{70, 90, 100} {
		if got := Width(render(t, w)[0]); got != w {
			t.Errorf("width %d: table of %d columns", w, got)
		}
	}
}

// Even a width nothing can fit in gets no longer lines.
func TestTableTooNarrow(t *testing.T) {
	for _, l := range render(t, 20) {
		if Width(l) > 20 {
			t.Errorf("line of %d columns at width 20: %q", Width(l), l)
		}
	}
}

// The layout of a table that fits: the same box as before fitting.
func TestTableGolden(t *testing.T) {
	var b bytes.Buffer
	cols := []Column{{Title: "MODEL"}, {Title: "COST", Right: true}}
	if err := Table(&b, cols, [][]string{{"openai/gpt-5", "$0.6500"}}, []string{"total", "$0.6500"}, 80); err != nil {
		t.Fatal(err)
	}
	want := `┌──────────────┬─────────┐
│ MODEL        │    COST │
├──────────────┼─────────┤
│ openai/gpt-5 │ $0.6500 │
├──────────────┼─────────┤
│ total        │ $0.6500 │
└──────────────┴─────────┘
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// Two different values never print the same: a column is cut only as far
// as its cells stay distinct, and the others give the room back.
func TestTableCutsStayDistinct(t *testing.T) {
	cols := []Column{{Title: "MODEL", Min: 16}, {Title: "PROJECT", Min: 12, Middle: true}, {Title: "COST", Right: true}}
	rows := [][]string{
		{"anthropic/claude-sonnet-4-5-20250929", "/home/x/work/projects/alpha/src", "$1.00"},
		{"anthropic/claude-sonnet-4-20250514", "/home/x/work/projects/beta/src", "$2.00"},
		{"openai/gpt-5", "/home/x/play", "$3.00"},
	}
	for _, width := range []int{60, 70, 80} {
		var b bytes.Buffer
		if err := Table(&b, cols, rows, nil, width); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		for _, l := range lines {
			if Width(l) > width {
				t.Errorf("width %d: line of %d columns: %q", width, Width(l), l)
			}
		}
		for c := range cols {
			seen := map[string]bool{}
			for _, l := range lines[3:6] {
				cell := strings.TrimSpace(strings.Split(l, "│")[c+1])
				if seen[cell] {
					t.Errorf("width %d: two rows print %s %q:\n%s", width, cols[c].Title, cell, b.String())
				}
				seen[cell] = true
			}
		}
	}
}
