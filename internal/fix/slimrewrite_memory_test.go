package fix

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/safefile"
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
	rep, err := SlimRewriteFile(safefile.OS(), path, opts)
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

// manyLongResults writes a version-3 session of n turns, each a tool
// result of one text block of size bytes, answered.
func manyLongResults(t *testing.T, n, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "many.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bufio.NewWriterSize(f, 1<<20)
	b.WriteString(`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	big := strings.Repeat("x", size)
	parent := "null"
	for i := range n {
		id := func(k int) string { return fmt.Sprintf("%08x", 3*i+k) }
		fmt.Fprintf(b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_%d","name":"read","arguments":{"path":"a"}}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}}`+"\n", id(1), parent, i)
		fmt.Fprintf(b, `{"type":"message","id":"%s","parentId":"%s","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"call_%d","toolName":"read","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":3}}`+"\n", id(2), id(1), i, big)
		fmt.Fprintf(b, `{"type":"message","id":"%s","parentId":"%s","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"next"}],"timestamp":4}}`+"\n", id(3), id(2))
		parent = `"` + id(3) + `"`
	}
	if err := errors.Join(b.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSlimMemoryDoesNotFollowTheFile: slim (append mode) plans and checks
// its context_edits one message at a time (project.EachMessage, and a
// stand-in of the new file on disk), and the index keeps no batch of a
// long line: on a session whose context is the whole file, of results of
// 320 KiB (each a batch of its own in the index pass), the heap it grows
// stays far below the file. It held the file three times over: the
// context's messages, the check's stand-in in memory, and the index's
// free batches (a 1 GiB session: 986 MB of peak RSS, now 49 MB).
func TestSlimMemoryDoesNotFollowTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and slims a 40 MiB session")
	}
	path := manyLongResults(t, 128, 320<<10)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := options(t)
	opts.MaxBytes, opts.Backup = 64<<10, true
	// The collector's target is the one the command runs at (cli's
	// indexGCPercent for the fix commands): at Go's default of 100 the
	// heap may hold as much garbage as it keeps, and how much of it is
	// collected before the figure is read hangs on the load (11.8 MiB
	// once under make test, 3.3-6.9 MiB alone).
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	debug.FreeOSMemory() // what earlier tests grew is given back: it is counted if taken again
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := SlimFile(safefile.OS(), path, opts)
	runtime.ReadMemStats(&after)
	if err != nil || rep.Action != "slimmed" || len(rep.Elided) != 128 {
		t.Fatalf("%+v %v", rep, err)
	}
	grown := int64(after.HeapSys-after.HeapReleased) - int64(before.HeapSys-before.HeapReleased)
	t.Logf("the heap grew by %.1f MiB for a %.1f MiB file", float64(grown)/(1<<20), float64(info.Size())/(1<<20))
	if grown > info.Size()/4 {
		t.Errorf("slim: the heap grew by %d bytes for a file of %d", grown, info.Size())
	}
}

// TestSlimHoldsALongLineOnce: slim (append mode) reads a long record five
// times (its plan, the check's stand-in, its index and context, the
// verify), and must hold it once at a time. It held it twice: each read
// into a new buffer while the last one was garbage the collector let
// stand (project.Session.Read now collects before reading a long record),
// and the verify gathered the line in pieces and joined them, the
// appended file being no session.Source (now migrate's appendedInput is).
// A 300 MB line peaked at 604 MB of RSS, now 312 MB.
func TestSlimHoldsALongLineOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and slims a session of one 48 MiB line")
	}
	const n = 48 << 20
	path := longToolResult(t, n)
	opts := options(t)
	opts.MaxBytes, opts.Backup = 64<<10, true
	opts.Validate.Limits.MaxLineBytes = 2 * n
	debug.FreeOSMemory() // what earlier tests grew is given back: it is counted if taken again
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := SlimFile(safefile.OS(), path, opts)
	runtime.ReadMemStats(&after)
	if err != nil || rep.Action != "slimmed" || len(rep.Elided) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	grown := int64(after.HeapSys-after.HeapReleased) - int64(before.HeapSys-before.HeapReleased)
	t.Logf("a %d MiB line: the heap grew by %.1f MiB", n>>20, float64(grown)/(1<<20))
	if grown > n*3/2 {
		t.Errorf("slim: the heap grew by %d bytes for a line of %d: the line is held twice", grown, n)
	}
}
