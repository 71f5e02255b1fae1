package session

import (
	"strings"
	"testing"
)

func TestUnanswered(t *testing.T) {
	call := func(ids ...string) ToolTurn {
		t := ToolTurn{Role: "assistant", EntryID: "a", Line: 2}
		for _, id := range ids {
			t.Calls = append(t.Calls, ToolCall{ID: id, Name: "bash"})
		}
		return t
	}
	result := func(id string) ToolTurn { return ToolTurn{Role: "toolResult", ToolCallID: id, ToolName: "bash"} }
	user := ToolTurn{Role: "user"}
	aborted := call("x")
	aborted.StopReason = "aborted"
	errored := call("x")
	errored.StopReason = "error"
	tests := []struct {
		name  string
		turns []ToolTurn
		want  string // the unanswered call ids
	}{
		{"empty", nil, ""},
		{"ends in a call", []ToolTurn{user, call("x")}, "x"},
		{"ends in two calls, one answered", []ToolTurn{user, call("x", "y"), result("x")}, "y"},
		{"all answered", []ToolTurn{user, call("x", "y"), result("y"), result("x")}, ""},
		{"a system message after the call", []ToolTurn{user, call("x"), {Role: "system"}}, "x"},
		{"a non-message after the call", []ToolTurn{user, call("x"), {}}, "x"},
		{"a user message closes it (PairTools reports it)", []ToolTurn{call("x"), user}, ""},
		{"aborted turn", []ToolTurn{user, aborted}, ""},
		{"errored turn", []ToolTurn{user, errored}, ""},
		{"a result for another call", []ToolTurn{user, call("x"), result("z")}, "x"},
		{"no calls", []ToolTurn{user, call()}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, u := range Unanswered(tt.turns) {
				if u.Kind != UnansweredCall || u.EntryID != "a" || u.Line != 2 || u.ToolName != "bash" {
					t.Errorf("unexpected %+v", u)
				}
				got = append(got, u.ToolCallID)
			}
			if strings.Join(got, ",") != strings.ReplaceAll(tt.want, " ", "") {
				t.Errorf("got %v, want %q", got, tt.want)
			}
		})
	}
}
