package fix

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/safefile"
)

// hugeSession writes a session of n user messages of size bytes each, each
// answered, then a compaction that keeps none of them, a tool call with a
// 4 KiB result, and a tool call left without one.
func hugeSession(t *testing.T, n, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bufio.NewWriter(f)
	b.WriteString(`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	id, parent := 0, "null"
	entry := func(typ, body string) {
		id++
		fmt.Fprintf(b, `{"type":%q,"id":"%08x","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z",%s}`+"\n", typ, id, parent, body)
		parent = fmt.Sprintf(`"%08x"`, id)
	}
	assistant := func(content, stop string) {
		entry("message", `"message":{"role":"assistant","content":[`+content+`],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"`+stop+`","timestamp":2}`)
	}
	user := func(text string) {
		entry("message", `"message":{"role":"user","content":[{"type":"text","text":"`+text+`"}],"timestamp":1}`)
	}
	call := func(n int) string {
		return fmt.Sprintf(`{"type":"toolCall","id":"call_%d","name":"bash","arguments":{"command":"cat big"}}`, n)
	}
	big := strings.Repeat("x", size)
	for range n {
		user(big)
		assistant(`{"type":"text","text":"ok"}`, "stop")
	}
	entry("compaction", fmt.Sprintf(`"summary":"all of it","firstKeptEntryId":"%08x","tokensBefore":1`, id))
	user("go on")
	assistant(call(1), "toolUse")
	entry("message", `"message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"`+strings.Repeat("y", 4096)+`"}],"isError":false,"timestamp":3}`)
	assistant(call(2), "toolUse")
	if err := errors.Join(b.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMemoryDoesNotFollowTheFile: the commands index the file in one
// streaming pass and read entries back one at a time, so the heap they
// grow stays far below the size of a session of large entries (holding
// the file, as they once did, took several times its size).
func TestMemoryDoesNotFollowTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 32 MiB session")
	}
	path := hugeSession(t, 2000, 16<<10)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := options(t)
	opts.DryRun, opts.MaxBytes = true, 1024
	for _, tt := range []struct {
		want string
		run  func(safefile.FS, string, Options) (Report, error)
	}{
		{"would-unstick", UnstickFile},
		{"would-slim", SlimFile},
		{"would-fork", ForkFile},
	} {
		opts.Leaf = ""
		if tt.want == "would-fork" {
			opts.Leaf = fmt.Sprintf("%08x", 2*2000+5)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep, err := tt.run(safefile.OS(), path, opts)
		runtime.ReadMemStats(&after)
		if err != nil || rep.Action != tt.want {
			t.Fatalf("%s: %+v %v", tt.want, rep, err)
		}
		grown := int64(after.HeapSys) - int64(before.HeapSys)
		t.Logf("%s: the heap grew by %.1f MiB for a %.1f MiB file", tt.want, float64(grown)/(1<<20), float64(info.Size())/(1<<20))
		if grown > info.Size()/2 {
			t.Errorf("%s: the heap grew by %d bytes for a file of %d", tt.want, grown, info.Size())
		}
	}
}
