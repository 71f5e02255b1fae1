package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// chainFile writes a session whose entries have the given ids and parents
// ("" for a root), in that order.
func chainFile(entries [][2]string) string {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	for i, e := range entries {
		parent := "null"
		if e[1] != "" {
			parent = `"` + e[1] + `"`
		}
		fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:%02d:%02d.000Z","message":{"role":"user","content":"m"}}`+"\n",
			e[0], parent, i/60, i%60)
	}
	return b.String()
}

// writers lays out entries as writers appending to one file by turns:
// bursts[i] entries from writer i%2 (a and b), each under its own last
// entry, both starting under the shared root r0..r(base-1).
func writers(base int, bursts ...int) [][2]string {
	var out [][2]string
	last := ""
	for i := range base {
		id := fmt.Sprintf("r%d", i)
		out = append(out, [2]string{id, last})
		last = id
	}
	tips := [2]string{last, last}
	count := [2]int{}
	for i, n := range bursts {
		w := i % 2
		for range n {
			id := fmt.Sprintf("%c%d", 'a'+w, count[w])
			count[w]++
			out = append(out, [2]string{id, tips[w]})
			tips[w] = id
		}
	}
	return out
}

func TestInterleavedAppends(t *testing.T) {
	// A user who goes back in /tree: a branch from an older entry, then
	// back to the first branch's tip once.
	tree := writers(3, 5, 5)
	tree = append(tree, [2]string{"c0", "a4"}, [2]string{"c1", "c0"})
	tests := []struct {
		name    string
		entries [][2]string
		want    string // the message's tips, "" for no finding
	}{
		{"a chain", writers(10), ""},
		{"one /tree branch", writers(3, 6, 6), ""},
		{"back to the first branch once", tree, ""},
		{"two writers", writers(2, 4, 4, 4, 4), "from line 8 on, two branches grow by turns (2 times one resumed where it had stopped), as two pi processes appending to one session leave it: tips a7 (line 15, 8 entries) and b7 (line 19, 8 entries)"},
		{"two writers, long", writers(2, 3, 2, 3, 2, 3, 2, 3, 2), "tips a11 (line 21, 12 entries) and b7 (line 23, 8 entries)"},
		{"alternating but tiny sides", writers(2, 1, 1, 1, 1, 1), ""},
		{"just two resumes", writers(2, 2, 2, 2, 2), "tips a3 (line 9, 4 entries) and b3 (line 11, 4 entries)"},
		{"one resume only", writers(2, 5, 5, 5), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Stream("s.jsonl", strings.NewReader(chainFile(tt.entries)), Options{Limits: session.DefaultLimits()})
			if err != nil {
				t.Fatal(err)
			}
			var got []finding.Finding
			for _, f := range rep.Findings {
				if f.Code == finding.InterleavedAppends {
					got = append(got, f)
				} else {
					t.Errorf("unexpected %v", f)
				}
			}
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("want none, got %v", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0].Message, tt.want)):
				t.Errorf("want one with %q, got %v", tt.want, got)
			case tt.want != "" && got[0].Severity != finding.Warning:
				t.Errorf("severity %s", got[0].Severity)
			}
		})
	}
}

// TestInterleavedAppendsBounded: a hostile file of endless tiny
// alternations costs constant memory and a bounded number of findings.
func TestInterleavedAppendsBounded(t *testing.T) {
	var a appends
	n := 0
	add := func(finding.Finding) { n++ }
	for i := int32(0); i < 200000; i++ {
		parent := i - 1
		if i%9 == 0 && i > 9 {
			parent = i - 9 // resumes a tip left 9 entries ago
		}
		a.enter(i, parent, "x", int(i)+2, add)
		if len(a.tips) > recentTips {
			t.Fatalf("%d tips kept", len(a.tips))
		}
	}
	a.finish(add)
	if n > maxInterlace {
		t.Errorf("%d findings", n)
	}
}
