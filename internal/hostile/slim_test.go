//go:build unix

package hostile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// slimmable is a version-3 session of about size bytes that slim
// --rewrite shrinks: turns whose tool result holds a base64 image and a
// long output.
func slimmable(size int) []byte {
	img := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 200) // 4,800 bytes of base64
	out := strings.Repeat(`line of output\n`, 200)
	lines := []string{Header(3)}
	parent := ""
	for i := 0; len(strings.Join(lines, "\n")) < size; i++ {
		u, a, r := ID(4*i+1), ID(4*i+2), ID(4*i+3)
		call := fmt.Sprintf("call_%d", i)
		lines = append(lines,
			Entry("message", u, parent, UserMsg(Q("look again"))),
			Entry("message", a, u, `"message":{"role":"assistant","content":[`+ToolCallBlock(call, "screenshot", `{}`)+`],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":`+Usage("1", "0")+`,"stopReason":"toolUse","timestamp":1767323045678}`),
			Entry("message", r, a, `"message":{"role":"toolResult","toolCallId":`+Q(call)+`,"toolName":"screenshot","content":[{"type":"text","text":"`+out+`"},{"type":"image","data":"`+img+`","mimeType":"image/png"}],"isError":false,"timestamp":1767323045678}`),
			Entry("message", ID(4*i+4), r, AssistantMsg(TextBlock(Q("seen")), Usage("1", "0"))),
		)
		parent = ID(4*i + 4)
	}
	return Lines(lines...)
}

// slimFlags are the flags of the slim case of the rewrite suite (after
// --backup).
var slimFlags = []string{"--rewrite", "--max-bytes", "1KiB"}

var placeholderLine = regexp.MustCompile(`\[pisess: removed ([^,]+), [^(]+\((\d+) bytes, sha256:([0-9a-f]{64})\), from entry ([^\]]+)\]`)

// TestSlimRewriteHostile: slim --rewrite on inputs made to hurt it. Each
// result validates, says in its placeholders exactly what it removed, and
// a second run has nothing to do.
func TestSlimRewriteHostile(t *testing.T) {
	t.Parallel()
	if _, missing := the.missing["slim"]; missing {
		t.Skip("no slim in this binary")
	}
	img := strings.Repeat("QUJD", 1024)
	invalid := "not base64 at all: *** " + strings.Repeat("!", 5000)
	nested := `{"type":"image","data":"` + img + `","mimeType":"image/png"}`
	call := Entry("message", ID(2), ID(1), `"message":{"role":"assistant","content":[`+ToolCallBlock("c1", "read", `{}`)+`],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":`+Usage("1", "0")+`,"stopReason":"toolUse","timestamp":1767323045678}`)
	result := func(content, details string) string {
		return Entry("message", ID(3), ID(2), `"message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[`+content+`],"details":`+details+`,"isError":false,"timestamp":1767323045678}`)
	}
	for _, tt := range []struct {
		name    string
		file    []byte
		removed []string // the strings the placeholders must stand for, in order
		keeps   string   // bytes the result must still hold
	}{
		{"invalid base64",
			Lines(Header(3), Entry("message", ID(1), "", UserMsg(Q("x"))), call, result(`{"type":"image","data":`+Q(invalid)+`,"mimeType":"image/png"}`, `{}`)),
			[]string{invalid}, ""},
		{"images nested in the tool output",
			Lines(Header(3), Entry("message", ID(1), "", UserMsg(Q("x"))), call,
				result(`{"type":"text","text":"shot"},`+nested, `{"subagent":{"messages":[{"role":"toolResult","content":[`+nested+`]}]}}`)),
			[]string{img}, `"details":{"subagent":{"messages":[{"role":"toolResult","content":[` + nested + `]}]}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := write(t, dir, "s.jsonl", tt.file)
			the.pisess(t, time.Minute, []int{0}, append(append([]string{"slim", "--backup"}, slimFlags...), file)...)
			got, _ := os.ReadFile(file)
			checkPlaceholders(t, got, tt.removed)
			if !bytes.Contains(got, []byte(tt.keeps)) {
				t.Errorf("the result lost %.80s…", tt.keeps)
			}
			validates(t, file)
			again := the.pisess(t, time.Minute, []int{0}, append(append([]string{"slim", "--backup"}, slimFlags...), file)...)
			if !bytes.Contains(again.stdout, []byte("nothing to do")) {
				t.Errorf("a second run did something:\n%s", again)
			}
		})
	}

	// A file `slim` already hid (context_edit entries appended), then
	// slim --rewrite: the bulk leaves the file, the edits still name their
	// targets, and slim --rewrite's own result has nothing more to do.
	t.Run("already slimmed", func(t *testing.T) {
		dir := t.TempDir()
		file := write(t, dir, "s.jsonl", slimmable(60_000))
		the.pisess(t, time.Minute, []int{0}, "slim", "--max-bytes", "1KiB", file)
		the.pisess(t, time.Minute, []int{0}, append(append([]string{"slim", "--backup"}, slimFlags...), file)...)
		validates(t, file)
		before, _ := os.ReadFile(file)
		r := the.pisess(t, time.Minute, []int{0}, append(append([]string{"slim", "--backup"}, slimFlags...), file)...)
		after, _ := os.ReadFile(file)
		if !bytes.Contains(r.stdout, []byte("nothing to do")) || !bytes.Equal(before, after) {
			t.Errorf("slim --rewrite of its own result changed it:\n%s", r)
		}
	})
}

// checkPlaceholders checks that the placeholders of file stand, in order,
// for the strings of removed: size and sha256.
func checkPlaceholders(t *testing.T, file []byte, removed []string) {
	t.Helper()
	found := placeholderLine.FindAllSubmatch(file, -1)
	if len(found) != len(removed) {
		t.Fatalf("%d placeholders, want %d", len(found), len(removed))
	}
	for i, s := range removed {
		sum := sha256.Sum256([]byte(s))
		if string(found[i][2]) != fmt.Sprint(len(s)) || string(found[i][3]) != hex.EncodeToString(sum[:]) {
			t.Errorf("placeholder %d: %s, want %d bytes, sha256 %x", i, found[i][0], len(s), sum)
		}
	}
}

// TestSlimRewriteHugeBlock: a session whose one block is a 300 MB image
// (64 MiB in -short) is slimmed in about the line's memory (1.5 times it
// plus the fixed working set), and the placeholder's sha256 is the
// block's.
func TestSlimRewriteHugeBlock(t *testing.T) {
	t.Parallel()
	if _, missing := the.missing["slim"]; missing {
		t.Skip("no slim in this binary")
	}
	n := 300_000_000
	if testing.Short() {
		n = 64 << 20
	}
	k := hugeEntries[1] // v3-image
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	if err := writeHuge(file, k.head, k.tail, k.after, n); err != nil {
		t.Fatal(err)
	}
	bound := int64(n)*3/2 + hugeSlack
	out := filepath.Join(dir, "small.jsonl")
	measure := func() run {
		os.Remove(out)
		return the.measured(t, 2*time.Minute, []int{0}, "slim", "--rewrite", "--max-line-bytes", "512MiB", "--output", out, file)
	}
	r := boundedRSS(t, measure, bound, n, "v3-image", []string{"slim", "--rewrite"})
	the.tally.note("slim --rewrite of a %d MiB block: peak RSS %d MiB (%.2fx the line); bound %d MiB.", n>>20, r.rss>>20, float64(r.rss)/float64(n), bound>>20)
	small, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(small) > 4096 {
		t.Errorf("the result is %d bytes", len(small))
	}
	// the image's string is the filler writeHuge wrote between head and tail
	fill := bytes.Repeat([]byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"), 1<<10)
	h := sha256.New()
	for left := n - len(k.head) - len(k.tail); left > 0; left -= len(fill) {
		h.Write(fill[:min(left, len(fill))])
	}
	f := placeholderLine.FindSubmatch(small)
	if f == nil || string(f[3]) != hex.EncodeToString(h.Sum(nil)) {
		t.Errorf("the placeholder does not carry the image's sha256: %s", small)
	}
	the.pisess(t, time.Minute, []int{0}, "validate", out)
}
