package session

import (
	"strings"
	"testing"
)

func TestOmpTurns(t *testing.T) {
	call := func(stop string, ids ...string) ToolTurn {
		t := ToolTurn{Role: "assistant", StopReason: stop}
		for _, id := range ids {
			t.Calls = append(t.Calls, ToolCall{ID: id, Name: "bash"})
		}
		return t
	}
	result := func(id string) ToolTurn { return ToolTurn{Role: "toolResult", ToolCallID: id} }
	user := ToolTurn{Role: "user"}
	tests := []struct {
		name  string
		turns []ToolTurn
		want  string // role and calls of each turn left
	}{
		{"empty", nil, ""},
		{"answered calls stay", []ToolTurn{user, call("", "x"), result("x")}, "user assistant(x) toolResult(x)"},
		{"a dangling call at the end is stripped", []ToolTurn{user, call("", "x", "y"), result("x")}, "user assistant(x) toolResult(x)"},
		{"a dangling call mid-path is stripped", []ToolTurn{user, call("", "x"), user, call("")}, "user assistant() user assistant()"},
		{"an answer anywhere in the context keeps the call", []ToolTurn{call("", "x"), user, result("x")}, "assistant(x) user toolResult(x)"},
		{"an error turn goes with its results", []ToolTurn{user, call("error", "x"), result("x"), user}, "user user"},
		{"an aborted turn goes, other results stay", []ToolTurn{call("", "y"), call("aborted", "x"), result("x"), result("y")}, "assistant(y) toolResult(y)"},
		{"a result before its failed turn stays", []ToolTurn{result("x"), call("error", "x")}, "toolResult(x)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, turn := range OmpTurns(tt.turns) {
				switch turn.Role {
				case "assistant":
					var ids []string
					for _, c := range turn.Calls {
						ids = append(ids, c.ID)
					}
					got = append(got, "assistant("+strings.Join(ids, ",")+")")
				case "toolResult":
					got = append(got, "toolResult("+turn.ToolCallID+")")
				default:
					got = append(got, turn.Role)
				}
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("got %q, want %q", s, tt.want)
			}
			if u := Unanswered(OmpTurns(tt.turns)); len(u) > 0 {
				t.Errorf("an omp context never ends waiting for a call: %v", u)
			}
		})
	}
}
