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
	note := ToolTurn{Role: "custom", CustomType: InterruptedThinking}
	bare := func(t ToolTurn) ToolTurn { t.OnlyCalls = true; return t }
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
		// omp 18 session-context.ts keeps the interrupted-thinking continuity pair.
		{"a failed turn before an interrupted-thinking note stays", []ToolTurn{user, call("aborted"), note, user}, "user assistant() custom user"},
		{"with its results", []ToolTurn{user, call("aborted", "x"), note, result("x")}, "user assistant(x) custom toolResult(x)"},
		{"another custom message does not keep it", []ToolTurn{user, call("aborted"), {Role: "custom", CustomType: "other"}}, "user custom"},
		{"the note must follow at once", []ToolTurn{user, call("error"), user, note}, "user user custom"},
		{"only the failed turn the note follows stays", []ToolTurn{call("aborted"), call("error"), note}, "assistant() custom"},
		{"a turn of nothing but dangling calls goes", []ToolTurn{user, bare(call("", "x")), user}, "user user"},
		{"a turn with answered calls stays", []ToolTurn{user, bare(call("", "x", "y")), result("x")}, "user assistant(x) toolResult(x)"},
		{"a turn with no calls is no stripped turn", []ToolTurn{user, bare(call(""))}, "user assistant()"},
		{"a turn that went does not part a failed turn from its note", []ToolTurn{user, call("aborted"), bare(call("", "z")), note}, "user assistant() custom"},
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
