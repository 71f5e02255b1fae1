package session

import (
	"slices"
	"strings"
	"testing"
)

// toyEntry is an entry of toyIndex: "type", "message/role", or
// "compaction>kept" (kept: the id its firstKeptEntryId names, "+" for a
// retainedTail); the ids are the positions, "0", "1", ...
type toyIndex []string

func (x toyIndex) field(e int) (typ, rest string) {
	typ, rest, _ = strings.Cut(x[e], "/")
	if t, kept, ok := strings.Cut(typ, ">"); ok {
		return t, kept
	}
	return typ, rest
}

func (x toyIndex) Type(e int) string { typ, _ := x.field(e); return typ }

func (x toyIndex) Role(e int) string {
	if typ, role := x.field(e); typ == "message" {
		return role
	}
	return ""
}

func (x toyIndex) KeptStart(c, e int) bool {
	_, kept := x.field(c)
	return kept == itoa(e)
}

func (x toyIndex) RetainedTail(c int) bool { _, kept := x.field(c); return kept == "+" }

func itoa(n int) string { return string(rune('0' + n)) }

func TestContextEntries(t *testing.T) {
	tests := []struct {
		name  string
		index toyIndex
		omp   bool
		want  []int
	}{
		{"no compaction: the whole path", toyIndex{"message/user", "message/assistant", "label"}, false, []int{0, 1, 2}},
		{"the compaction, the kept range, the rest",
			toyIndex{"message/user", "message/assistant", "message/user", "compaction>1", "message/user"}, false, []int{3, 1, 2, 4}},
		{"system messages of the kept range left out, after it kept",
			toyIndex{"message/user", "message/system", "message/user", "compaction>0", "message/system"}, false, []int{3, 0, 2, 4}},
		{"firstKeptEntryId names no path entry: nothing kept",
			toyIndex{"message/user", "message/assistant", "compaction>9", "message/user"}, false, []int{2, 3}},
		{"retainedTail: nothing from before",
			toyIndex{"message/user", "message/assistant", "compaction>+", "message/user"}, false, []int{2, 3}},
		{"the last compaction cuts; an older one in its kept range stays",
			toyIndex{"message/user", "compaction>0", "message/user", "compaction>1", "message/user"}, false, []int{3, 1, 2, 4}},
		{"omp: a reset after the compaction cuts instead",
			toyIndex{"message/user", "compaction>0", "message/user", "reset_boundary", "message/user"}, true, []int{4}},
		{"omp: a compaction after the reset supersedes it",
			toyIndex{"message/user", "reset_boundary", "message/user", "compaction>2", "message/user"}, true, []int{3, 2, 4}},
		{"pi: a reset_boundary is no cut",
			toyIndex{"message/user", "reset_boundary", "message/user"}, false, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := make([]int, len(tt.index))
			for i := range path {
				path[i] = i
			}
			if got := ContextEntries(path, tt.index, tt.omp); !slices.Equal(got, tt.want) {
				t.Errorf("ContextEntries = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLatestEdits(t *testing.T) {
	index := toyIndex{"message/user", "context_edit", "message/assistant", "context_edit", "context_edit", "context_edit"}
	targets := map[int]string{1: "a", 3: "b", 4: "a"} // 5 names no target
	target := func(e int) (string, bool) { k, ok := targets[e]; return k, ok }
	got := LatestEdits([]int{0, 1, 2, 3, 4, 5}, index, target)
	if want := map[string]int{"a": 4, "b": 3}; len(got) != len(want) || got["a"] != 4 || got["b"] != 3 {
		t.Errorf("LatestEdits = %v, want %v", got, want)
	}
	if got := LatestEdits([]int{0, 2, 3}, index, target); len(got) != 1 || got["b"] != 3 {
		t.Errorf("LatestEdits of the entries after a cut = %v, want map[b:3]", got)
	}
	if got := LatestEdits([]int{0, 2}, index, target); got != nil {
		t.Errorf("LatestEdits without edits = %v, want nil", got)
	}
}

func TestYields(t *testing.T) {
	tests := []struct {
		i    int
		typ  string
		want Yield
	}{
		{0, "compaction", YieldsCheckpoint},
		{1, "compaction", YieldsNothing},
		{0, "message", YieldsMessage},
		{3, "custom_message", YieldsMessage},
		{3, "branch_summary", YieldsMessage},
		{3, "context_edit", YieldsNothing},
		{0, "label", YieldsNothing},
		{2, "custom", YieldsNothing},
	}
	for _, tt := range tests {
		if got := Yields(tt.i, tt.typ); got != tt.want {
			t.Errorf("Yields(%d, %q) = %d, want %d", tt.i, tt.typ, got, tt.want)
		}
	}
}

func TestHasMessage(t *testing.T) {
	tests := []struct {
		typ              string
		message, summary bool
		want             bool
	}{
		{"message", true, false, true},
		{"message", false, true, false},
		{"custom_message", false, false, true},
		{"branch_summary", false, true, true},
		{"branch_summary", true, false, false},
		{"compaction", true, true, false},
		{"model_change", true, true, false},
	}
	for _, tt := range tests {
		if got := HasMessage(tt.typ, tt.message, tt.summary); got != tt.want {
			t.Errorf("HasMessage(%q, %v, %v) = %v, want %v", tt.typ, tt.message, tt.summary, got, tt.want)
		}
	}
}

func TestEditOn(t *testing.T) {
	tests := []struct {
		r    ReplacementKind
		role string
		want EditAction
	}{
		{ReplacementOmit, "user", EditDrops},
		{ReplacementOmit, "branchSummary", EditDrops},
		{ReplacementOmit, "compactionSummary", EditDrops},
		{ReplacementOmit, "", EditDrops},
		{ReplacementContent, "user", EditReplaces},
		{ReplacementContent, "assistant", EditReplaces},
		{ReplacementContent, "toolResult", EditReplaces},
		{ReplacementContent, "custom", EditReplaces},
		{ReplacementContent, "system", EditKeeps},
		{ReplacementContent, "bashExecution", EditKeeps},
		{ReplacementContent, "compactionSummary", EditKeeps},
		{ReplacementAbsent, "assistant", EditKeeps},
		{ReplacementAbsent, "user", EditKeeps},
	}
	for _, tt := range tests {
		if got := EditOn(tt.r, tt.role); got != tt.want {
			t.Errorf("EditOn(%d, %q) = %d, want %d", tt.r, tt.role, got, tt.want)
		}
	}
}

func TestReplacementOf(t *testing.T) {
	for k, want := range map[Kind]ReplacementKind{
		KindNone: ReplacementAbsent, KindNull: ReplacementOmit, KindObject: ReplacementContent,
		KindString: ReplacementContent, KindArray: ReplacementContent, KindFalse: ReplacementContent,
	} {
		if got := ReplacementOf(k); got != want {
			t.Errorf("ReplacementOf(%v) = %d, want %d", k, got, want)
		}
	}
}

func TestEditable(t *testing.T) {
	tests := []struct {
		typ, role string
		want      bool
	}{
		{"custom_message", "", true},
		{"message", "user", true},
		{"message", "assistant", true},
		{"message", "toolResult", true},
		{"message", "custom", true},
		{"message", "bashExecution", false},
		{"message", "system", false},
		{"message", "branchSummary", false},
		{"branch_summary", "", false},
		{"compaction", "", false},
	}
	for _, tt := range tests {
		if got := Editable(tt.typ, tt.role); got != tt.want {
			t.Errorf("Editable(%q, %q) = %v, want %v", tt.typ, tt.role, got, tt.want)
		}
	}
}
