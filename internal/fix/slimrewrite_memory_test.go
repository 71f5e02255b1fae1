package fix

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/migrate"
)

// longToolResult writes a version-3 session whose tool result holds one
// text block of n bytes: one line of about n bytes.
func longToolResult(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "long.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bufio.NewWriterSize(f, 1<<20)
	b.WriteString(`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	b.WriteString(`{"type":"message","id":"00000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"read it"}],"timestamp":1}}` + "\n")
	b.WriteString(`{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a"}}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}}` + "\n")
	b.WriteString(`{"type":"message","id":"00000003","parentId":"00000002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"`)
	b.WriteString(strings.Repeat("x", n))
	b.WriteString(`"}],"isError":false,"timestamp":3}}` + "\n")
	if err := errors.Join(b.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSlimRewriteOutputHoldsALongLineOnce: slim --rewrite --output reads
// the source through a section of the file as it was opened, which must
// still let the line reader measure a long line before reading it; the
// section alone (no Stat) sent a 300 MB line through the doubling buffer,
// 604 MB of peak RSS where --backup took 310 MB. What the run allocates
// is counted, not the heap, so the figure does not hang on the collector.
func TestSlimRewriteOutputHoldsALongLineOnce(t *testing.T) {
	const n = 32 << 20
	path := longToolResult(t, n)
	opts := options(t)
	opts.MaxBytes, opts.Output = 64<<10, filepath.Join(t.TempDir(), "small.jsonl")
	opts.Validate.Limits.MaxLineBytes = 2 * n
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := SlimRewriteFile(migrate.OS(), path, opts)
	runtime.ReadMemStats(&after)
	if err != nil || rep.Action != "slimmed" || rep.RewriteStats == nil || rep.RewriteStats.BlocksRemoved != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d MiB line: %.1f MiB allocated", n>>20, float64(allocated)/(1<<20))
	if allocated > n*3/2 {
		t.Errorf("slim --rewrite --output allocated %d bytes for a line of %d: the line is gathered, not held once", allocated, n)
	}
}
