package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
)

// TestEditTargetNames: a context edit's finding names its target's type or
// message role as the file spells it, a made-up one too; past maxOthers
// made-up names the rest share "(other)", so the linker stays bounded.
func TestEditTargetNames(t *testing.T) {
	schemas := compileForTest(t)
	entry := func(i int, body string) string {
		return fmt.Sprintf(`{"id":"e%07d","parentId":"e%07d","timestamp":"2026-01-01T00:00:01.000Z",%s}`, i, i-1, body)
	}
	lines := []string{hdr3, `{"type":"model_change","id":"e0000000","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","provider":"p","modelId":"m"}`}
	targets := []string{`"type":"made_up"`, `"type":"message","message":{"role":"made_up_role","content":"x"}`, `"type":"label","targetId":"e0000000","label":"l"`}
	for i := range maxOthers + 1 {
		targets = append(targets, fmt.Sprintf(`"type":"made_up_%d"`, i))
	}
	for _, body := range targets {
		lines = append(lines, entry(len(lines)-1, body))
		lines = append(lines, entry(len(lines)-1, fmt.Sprintf(`"type":"context_edit","targetId":"e%07d","replacement":{"content":[{"type":"text","text":"t"}]}`, len(lines)-2)))
	}
	var got []string
	for _, f := range streamLines(t, schemas, 1, lines...).Findings {
		if f.Code == finding.ContextEditTarget {
			got = append(got, strings.SplitN(strings.TrimPrefix(f.Message, "targetId names a "), " on line", 2)[0])
		}
	}
	want := []string{"made_up", "made_up_role message", "label"}
	for i := range maxOthers - 2 { // made_up and made_up_role are kept first
		want = append(want, fmt.Sprintf("made_up_%d", i))
	}
	want = append(want, "(other)", "(other)", "(other)")
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("targets named\n%v\nwant\n%v", got, want)
	}
}
