package validate

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
)

// TestUnpairedMatchesProjection holds validate's compact rule-6 check to the
// projection of the full file, on every session of both corpora: same
// lines, same calls, same words.
func TestUnpairedMatchesProjection(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../testdata/corpus/*/*.jsonl", filepath.Join(realCorpus, "*.jsonl")} {
		found, _ := filepath.Glob(pattern)
		files = append(files, found...)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files found")
	}
	compared := 0
	for _, path := range files {
		got, want, ok := ruleSixBothWays(t, path)
		if !ok {
			continue
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\nvalidate:\n%s\nprojection:\n%s", path, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		compared++
	}
	t.Logf("compared %d files", compared)
}

// ruleSixBothWays returns validate's rule-6 findings of a file and the
// projection's (line and message, sorted); ok is false for a file
// validate does not project (corrupt) or project cannot (a cycle).
func ruleSixBothWays(t *testing.T, path string) (got, want []string, ok bool) {
	t.Helper()
	rep, err := File(path, Options{Limits: session.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != Session || !trustedReport(rep) {
		return nil, nil, false // corrupt files are not projected by validate
	}
	s, err := project.LoadFile(path, session.DefaultLimits())
	if err != nil {
		return nil, nil, false
	}
	ctx, err := s.Context(s.DefaultLeaf())
	if err != nil {
		return nil, nil, false // a parent cycle: validate cannot have one
	}
	for _, u := range ctx.Unpaired {
		want = append(want, itoa(u.Line)+" "+u.Describe())
	}
	for _, u := range ctx.Unanswered() {
		want = append(want, itoa(u.Line)+" "+session.DescribeUnanswered(u))
	}
	for _, f := range rep.Findings {
		if f.Code == finding.UnpairedToolInContext || f.Code == finding.UnansweredToolCall {
			got = append(got, itoa(f.Line)+" "+f.Message)
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	return got, want, true
}

// TestEditsMatchProjection holds validate's rule 6 to the projection on
// the context edits the corpora lack, where validate once projected by
// rules of its own (an edit it found ill-formed did not count, a null
// replacement dropped only messages it could edit, a retainedTail and a
// target after its edit were never edited): both now read
// session's rules. want is the rule-6 findings, by line.
func TestEditsMatchProjection(t *testing.T) {
	const head = `{"type":"session","version":3,"id":"019cadfd-8900-7733-921c-461dc31850b2","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/w"}`
	ts := `"timestamp":"2026-03-02T10:00:00.000Z"`
	entry := func(id, parent, rest string) string {
		p := "null"
		if parent != "" {
			p = strconv.Quote(parent)
		}
		return `{"id":"` + id + `","parentId":` + p + `,` + ts + `,` + rest + `}`
	}
	msg := func(id, parent, m string) string { return entry(id, parent, `"type":"message","message":`+m) }
	user := func(id, parent string) string {
		return msg(id, parent, `{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}`)
	}
	call := `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1}`
	result := msg("00000003", "00000002", `{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[],"isError":false,"timestamp":1}`)
	edit := func(id, parent, target, replacement string) string {
		return entry(id, parent, `"type":"context_edit","targetId":"`+target+`"`+replacement)
	}
	tests := []struct {
		name  string
		lines []string
		want  []int // lines of the rule-6 findings
	}{
		{"a call without its result", []string{user("00000001", ""), msg("00000002", "00000001", call), user("00000003", "00000002")}, []int{3}},
		{"a replacement that is no object takes the content away",
			[]string{user("00000001", ""), msg("00000002", "00000001", call), user("00000003", "00000002"), edit("00000004", "00000003", "00000002", `,"replacement":7`)}, nil},
		{"the last edit wins, even without a replacement",
			[]string{user("00000001", ""), msg("00000002", "00000001", call), user("00000003", "00000002"),
				edit("00000004", "00000003", "00000002", `,"replacement":{"content":[]}`), edit("00000005", "00000004", "00000002", ``)}, []int{3}},
		{"replacement null drops a branch summary",
			[]string{user("00000001", ""), msg("00000002", "00000001", call),
				entry("00000009", "00000002", `"type":"branch_summary","fromId":"00000001","summary":"s"`),
				msg("00000003", "00000009", `{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[],"isError":false,"timestamp":1}`),
				edit("00000004", "00000003", "00000009", `,"replacement":null`)}, nil},
		{"replacement null drops a custom message entry",
			[]string{user("00000001", ""), msg("00000002", "00000001", call),
				msg("00000009", "00000002", `{"role":"custom","customType":"x","content":"c","display":true,"timestamp":1}`),
				msg("00000003", "00000009", `{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[],"isError":false,"timestamp":1}`),
				edit("00000004", "00000003", "00000009", `,"replacement":null`)}, nil},
		{"an edit of a compaction edits its retainedTail",
			[]string{user("00000001", ""),
				entry("00000002", "00000001", `"type":"compaction","summary":"s","firstKeptEntryId":"00000001","tokensBefore":1,"retainedTail":[`+call+`]`),
				user("00000003", "00000002"), edit("00000004", "00000003", "00000002", `,"replacement":{"content":[]}`)}, nil},
		{"an edit before its target",
			[]string{user("00000001", ""), edit("00000004", "00000001", "00000002", `,"replacement":{"content":[]}`),
				msg("00000002", "00000004", call), user("00000003", "00000002")}, nil},
		{"an answered call", []string{user("00000001", ""), msg("00000002", "00000001", call), result}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(head+"\n"+strings.Join(tt.lines, "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			got, want, ok := ruleSixBothWays(t, path)
			if !ok {
				t.Fatal("not projected")
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("validate:\n%s\nprojection:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			var lines []int
			for _, f := range got {
				n, _ := strconv.Atoi(strings.Fields(f)[0])
				lines = append(lines, n)
			}
			if !slices.Equal(lines, tt.want) {
				t.Errorf("rule-6 findings on lines %v, want %v:\n%s", lines, tt.want, strings.Join(got, "\n"))
			}
		})
	}
}

// trustedReport: no fatal parse error, so validate projected the file.
func trustedReport(rep *Report) bool {
	for _, f := range rep.Findings {
		switch f.Code {
		case finding.InvalidJSON, finding.InvalidUTF8, finding.TrailingData, finding.NotObject,
			finding.ZeroFill, finding.LineTooLong, finding.FileTooLarge, finding.TooDeep,
			finding.MissingHeader, finding.UnsupportedVersion, finding.NotASession:
			return false
		}
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }
