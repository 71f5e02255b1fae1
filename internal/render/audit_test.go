package render

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/text"
)

// money rounded x*1e9, which overflows to +Inf for costs above ~1.8e299:
// `pisess audit --format json` then failed with "json: unsupported value:
// +Inf" (exit 2) on a file claiming a cost of 1.7e308.
func TestMoneyStaysFinite(t *testing.T) {
	for _, x := range []float64{0, 0.1 + 0.2, 1.7e308, -1.7e308, math.MaxFloat64, -math.MaxFloat64, 1e-300} {
		got := money(x)
		if math.IsInf(got, 0) || math.IsNaN(got) {
			t.Errorf("money(%g) = %g", x, got)
		}
		if _, err := json.Marshal(got); err != nil {
			t.Errorf("money(%g): %v", x, err)
		}
	}
	if got := money(0.1 + 0.2); got != 0.3 {
		t.Errorf("money(0.1+0.2) = %v, want 0.3", got)
	}
}

// A cost is shown as known only when every usage record says what it cost.
func TestCostText(t *testing.T) {
	tests := []struct {
		u    audit.Usage
		want string
	}{
		{audit.Usage{}, "-"},
		{audit.Usage{Records: 2, Cost: 1.5}, "$1.50"},
		{audit.Usage{Records: 2, Cost: 0.25}, "$0.2500"},
		{audit.Usage{Records: 1}, "$0.0000"}, // priced at $0 with no tokens: known
		{audit.Usage{Records: 2, CostZero: 2}, "n/a"},
		{audit.Usage{Records: 2, CostMissing: 1, CostZero: 1}, "n/a"},
		{audit.Usage{Records: 3, Cost: 2, CostMissing: 1}, "≥$2.00"},
	}
	for _, tt := range tests {
		if got := costText(tt.u); got != tt.want {
			t.Errorf("costText(%+v) = %q, want %q", tt.u, got, tt.want)
		}
	}
}

// CSV cells from the files never start a formula (OWASP, CSV injection).
func TestCSVText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"", ""},
		{"=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"},
		{"+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{"-2+3", "'-2+3"},
		{"@SUM(1+1)", "'@SUM(1+1)"},
		{"\tTAB", `'\tTAB`},
		{"\r=1", `'\r=1`},
		{"a=1", "a=1"},
		{"/home/u/x", "/home/u/x"},
	}
	for _, tt := range tests {
		if got := csvText(tt.in); got != tt.want {
			t.Errorf("csvText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEncodedDir(t *testing.T) {
	for cwd, want := range map[string]string{
		"/home/u/app":           "--home-u-app--",
		`C:\Projects\github\pi`: "--C--Projects-github-pi--",
		"relative/dir":          "--relative-dir--",
	} {
		if got := encodedDir(cwd); got != want {
			t.Errorf("encodedDir(%q) = %q, want %q", cwd, got, want)
		}
	}
}

// `audit --format csv` wrote its cells raw: a crafted session could drive
// the terminal through them.
func TestCSVIsTerminalSafe(t *testing.T) {
	row := []string{"dir\x1b]0;t\x07/s.jsonl", "plain", "line\nbreak"}
	for i, c := range row {
		row[i] = csvText(c)
	}
	if strings.Join(row, "|") != `dir\x1b]0;t\a/s.jsonl|plain|line\nbreak` {
		t.Errorf("csvText = %q", row)
	}
}

// With no file to count (an empty directory under --allow-empty, or a
// --since after every session), the summary has no versions to list: it
// wrote "versions: " with nothing after it.
func TestAuditSummaryWithoutFiles(t *testing.T) {
	var out strings.Builder
	sum := audit.Total(nil, audit.Options{})
	if err := Audit(&out, AuditResult{Sum: sum}, AuditOptions{Format: "table", Sort: "activity"}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasSuffix(line, " ") || strings.HasSuffix(line, ":") {
			t.Errorf("line %q lists nothing", line)
		}
	}
}

// Problem lines fit the width down to 20 columns (a phone's terminal):
// below 40 the path kept 12 columns and the message 24 whatever the
// width, so the lines were 40 wide.
func TestAuditProblemsFitNarrowWidths(t *testing.T) {
	bad := finding.Errorf(finding.ConcatenatedObjects, 440, "2 complete objects on one line (a lost newline); `pisess repair` splits them")
	path := "/home/user/.pi/agent/sessions/--home-user-project--/2026-01-01T00-00-00-000Z_0123.jsonl"
	rows := []AuditRow{
		{Record: &audit.Record{Path: path, Verdict: audit.Corrupt, FirstError: &bad}},
		{Record: &audit.Record{Path: path, Verdict: audit.NeedsMigration, Version: 1, Stuck: true}},
		{Record: &audit.Record{Path: path, Verdict: audit.Repairable}},
		{Record: &audit.Record{Path: path, Verdict: audit.TooNew, Version: 4}},
		{Record: &audit.Record{Path: path, Verdict: audit.NotSession}},
	}
	for width := 20; width <= 50; width++ {
		var out strings.Builder
		a := &auditWriter{AuditResult: AuditResult{Rows: rows}, AuditOptions: AuditOptions{Width: width}, out: &out}
		a.problems()
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if text.Width(line) > width {
				t.Errorf("width %d: %q is %d wide", width, line, text.Width(line))
			}
		}
	}
}

// --quiet prints errors only (the corrupt files): the temp files an
// interrupted rewrite left were still listed.
func TestAuditQuietLeavesTempsOut(t *testing.T) {
	var out strings.Builder
	res := AuditResult{Sum: audit.Total(nil, audit.Options{}), StaleTemps: []string{"s/.pisess-tmp-0123456789ab"}}
	if err := Audit(&out, res, AuditOptions{Format: "table", Quiet: true}); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 0 {
		t.Errorf("--quiet wrote %q", out.String())
	}
}
