package du

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/fix"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

// du --max-bytes says what slim --rewrite --max-bytes takes off, to the
// byte: the file row's shrink is its dry run's bytesBefore - bytesAfter,
// and the rows of the lines it edits add up to it.
func TestShrinkIsSlimRewrite(t *testing.T) {
	text := strings.Repeat(`line \"quoted\"\n`, 4000)
	img := strings.Repeat("iVBORw0KGgo", 9000)
	lines := []string{header,
		`{"type":"message","id":"00000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"` + text + `","timestamp":1}}`,
		`{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.png"}}],"stopReason":"toolUse","timestamp":2}}`,
		`{"type":"message","id":"00000003","parentId":"00000002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"small"},{"type":"image","data":"` + img + `","mimeType":"image/png"},{"type":"text","text":"` + text + `"}],"isError":false,"timestamp":3}}`,
		`{"type":"custom_message","id":"00000004","parentId":"00000003","timestamp":"2026-01-01T00:00:04.000Z","customType":"notes","content":[{"type":"text","text":"` + text + `"}],"display":true}`,
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const maxBytes = 10_000
	rep, err := fix.SlimRewriteFile(safefile.OS(), path, fix.Options{Backup: true, DryRun: true, MaxBytes: maxBytes,
		Validate: validate.Options{Limits: session.DefaultLimits()}})
	if err != nil || rep.RewriteStats == nil {
		t.Fatalf("slim --rewrite --dry-run: %+v %v", rep, err)
	}
	want := rep.RewriteStats.BytesBefore - rep.RewriteStats.BytesAfter
	if want <= 0 || rep.RewriteStats.BlocksRemoved != 4 {
		t.Fatalf("slim removes %d blocks, %d bytes", rep.RewriteStats.BlocksRemoved, want)
	}
	u, err := File(path, Options{Limits: session.DefaultLimits(), MaxBytes: maxBytes})
	if err != nil {
		t.Fatal(err)
	}
	shrink := map[string]int64{}
	for _, r := range u.Rows {
		shrink[string(r.Kind)+":"+r.Name] = r.Shrink
	}
	if got := shrink["file:"]; got != want {
		t.Errorf("file row shrinks by %d, slim --rewrite by %d", got, want)
	}
	if byType := shrink["type:message"] + shrink["type:custom_message"]; byType != want {
		t.Errorf("the type rows shrink by %d, the file by %d", byType, want)
	}
	if shrink["role:toolResult"] == 0 || shrink["tool:read"] != shrink["role:toolResult"] || shrink["image:image/png"] == 0 || shrink["customType:notes"] == 0 {
		t.Errorf("shrink by row: %v", shrink)
	}
	if shrink["role:assistant"] != 0 || shrink["toolCall:read"] != 0 {
		t.Errorf("what slim keeps shrinks: %v", shrink)
	}
	without, err := File(path, Options{Limits: session.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range without.Rows {
		if r.Shrink != 0 {
			t.Errorf("without MaxBytes, row %+v", r)
		}
	}
}
