package validate

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// linkTools enters the entries in a linker and returns its tool-result
// findings, in the order validate reports them, and the work done finding
// the calls.
func linkTools(entries []entry) ([]finding.Finding, int) {
	var fs []finding.Finding
	k := newLinker(func(f finding.Finding) { fs = append(fs, f) })
	k.made = func() int { return len(fs) }
	for _, e := range entries {
		k.enter(e)
	}
	for j, pl := range k.resolveResults() { // each pos counts the findings made before it, not the placed
		fs = slices.Insert(fs, pl.pos+j, pl.f)
	}
	var tool []finding.Finding
	for _, f := range fs {
		if f.Code == finding.ToolNameMismatch || f.Code == finding.OrphanToolResult {
			tool = append(tool, f)
		}
	}
	return tool, k.toolSteps
}

func userEntry(id, parent string, line int) entry {
	return entry{Entry: session.Entry{Type: "message", ID: id, HasID: true, ParentID: parent, HasParent: parent != "",
		Message: session.Message{Present: true, Role: "user"}}, line: line}
}

func callEntry(id, parent string, line int, calls ...session.ToolCall) entry {
	return entry{Entry: session.Entry{Type: "message", ID: id, HasID: true, ParentID: parent, HasParent: parent != "",
		Message: session.Message{Present: true, Role: "assistant", Calls: calls}}, line: line}
}

func resultEntry(id, parent string, line int, callID, name string) entry {
	return entry{Entry: session.Entry{Type: "message", ID: id, HasID: true, ParentID: parent, HasParent: parent != "",
		Message: session.Message{Present: true, Role: "toolResult", ToolCallID: callID, HasToolCallID: true, ToolName: name}}, line: line}
}

// reusedCallIDs is n branches whose assistant calls all use the id "x",
// all the calls first, then a result on every branch (a third of them
// with another tool's name) and an orphan result on every fifth.
func reusedCallIDs(n int) []entry {
	var es []entry
	for i := 0; i < n; i++ {
		name := "bash"
		if i%3 == 0 {
			name = "read"
		}
		es = append(es, userEntry(fmt.Sprintf("u%d", i), "", len(es)+2))
		es = append(es, callEntry(fmt.Sprintf("a%d", i), fmt.Sprintf("u%d", i), len(es)+2, session.ToolCall{ID: "x", Name: name}))
	}
	for i := 0; i < n; i++ {
		es = append(es, resultEntry(fmt.Sprintf("r%d", i), fmt.Sprintf("a%d", i), len(es)+2, "x", "bash"))
		if i%5 == 0 {
			es = append(es, resultEntry(fmt.Sprintf("o%d", i), fmt.Sprintf("u%d", i), len(es)+2, "x", "bash"))
		}
	}
	return es
}

// A call id reused on many branches: each result used to walk every call
// with the id (20k branches: 2.6 s). The work must grow linearly.
func TestReusedCallIDsCostLinearWork(t *testing.T) {
	count := func(fs []finding.Finding, c finding.Code) int {
		n := 0
		for _, f := range fs {
			if f.Code == c {
				n++
			}
		}
		return n
	}
	small, big := 500, 4000
	fsSmall, wSmall := linkTools(reusedCallIDs(small))
	fsBig, wBig := linkTools(reusedCallIDs(big))
	for _, c := range []struct {
		fs          []finding.Finding
		n, mismatch int
	}{{fsSmall, small, (small + 2) / 3}, {fsBig, big, (big + 2) / 3}} {
		if got := count(c.fs, finding.ToolNameMismatch); got != c.mismatch {
			t.Errorf("n=%d: %d tool_name_mismatch, want %d", c.n, got, c.mismatch)
		}
		if got := count(c.fs, finding.OrphanToolResult); got != c.n/5 {
			t.Errorf("n=%d: %d orphan_tool_result, want %d", c.n, got, c.n/5)
		}
	}
	if ratio := float64(wBig) / float64(wSmall); ratio > 12 { // linear: 8; quadratic: 64
		t.Errorf("work %d for %d branches, %d for %d: grows %.1f times for 8 times the input", wBig, big, wSmall, small, ratio)
	}
}

// The lookup answers as walking the parents does: the newest call with
// the id on the result's ancestor chain, by name; findings in file order.
func TestToolResultLookupMatchesNaiveWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	ids, names := []string{"a", "b", "c", "d"}, []string{"n1", "n2"}
	for trial := 0; trial < 40; trial++ {
		var es []entry
		n := 100 + rng.Intn(400)
		for i := 0; i < n; i++ {
			parent := ""
			if i > 0 && rng.Intn(20) > 0 {
				p := i - 1
				if rng.Intn(4) == 0 {
					p = rng.Intn(i)
				}
				parent = fmt.Sprint("e", p)
			}
			id, line := fmt.Sprint("e", i), i+2
			switch rng.Intn(3) {
			case 0:
				es = append(es, userEntry(id, parent, line))
			case 1:
				var calls []session.ToolCall
				for c := rng.Intn(4); c > 0; c-- {
					calls = append(calls, session.ToolCall{ID: ids[rng.Intn(3)], Name: names[rng.Intn(2)]})
				}
				es = append(es, callEntry(id, parent, line, calls...))
			default:
				es = append(es, resultEntry(id, parent, line, ids[rng.Intn(4)], names[rng.Intn(2)]))
			}
		}
		got, _ := linkTools(es)
		want := naiveToolFindings(es)
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) {
				t.Fatalf("trial %d: %d findings, want %d", trial, len(got), len(want))
			}
			a, b := got[i], want[i]
			if a.Line != b.Line || a.Code != b.Code || a.Message != b.Message || *a.EntryID != *b.EntryID {
				t.Fatalf("trial %d: finding %d is %v (entry %s), want %v (entry %s)", trial, i, a, *a.EntryID, b, *b.EntryID)
			}
		}
	}
}

func naiveToolFindings(es []entry) []finding.Finding {
	byID := map[string]int{}
	var fs []finding.Finding
	for i, e := range es {
		byID[e.ID] = i
		if e.Message.Role != "toolResult" {
			continue
		}
		found := false
		for p, ok := byID[e.ParentID]; ok && e.HasParent && !found; p, ok = byID[es[p].ParentID] {
			calls := es[p].Message.Calls
			for c := len(calls) - 1; c >= 0; c-- {
				if calls[c].ID == e.Message.ToolCallID {
					if calls[c].Name != e.Message.ToolName {
						fs = append(fs, finding.Errorf(finding.ToolNameMismatch, e.line, "toolName %q differs from the call's name %q (line %d)", e.Message.ToolName, calls[c].Name, es[p].line).WithEntry(e.ID))
					}
					found = true
					break
				}
			}
			if !es[p].HasParent {
				break
			}
		}
		if !found {
			fs = append(fs, finding.Errorf(finding.OrphanToolResult, e.line, "toolResult answers call %q, but no toolCall with that id is on its ancestor chain", e.Message.ToolCallID).WithEntry(e.ID))
		}
	}
	return fs
}
