package validate

import (
	"path/filepath"
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
		rep, err := File(path, Options{Limits: session.DefaultLimits()})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Kind != Session || !trustedReport(rep) {
			continue // corrupt files are not projected by validate
		}
		s, err := project.LoadFile(path, session.DefaultLimits())
		if err != nil {
			continue
		}
		ctx, err := s.Context(s.DefaultLeaf())
		if err != nil {
			continue // a parent cycle: validate cannot have one
		}
		var want, got []string
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
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\nvalidate:\n%s\nprojection:\n%s", path, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		compared++
	}
	t.Logf("compared %d files", compared)
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
