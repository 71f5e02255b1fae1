//go:build unix

package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// escapedResult is a session whose last entry is a tool result of one
// text written with escapes (\n, \t, \"), as real tool output is: what is
// shown of it must be decoded, where base64 and plain text are shared
// with the line.
var escapedResult = struct{ head, tail string }{
	Header(3) + "\n" + Entry("message", ID(1), "", UserMsg(Q("ls"))) + "\n" +
		Entry("message", ID(2), ID(1), AssistantMsg(ToolCallBlock("call_1", "bash", `{"command":"ls -l"}`), Usage("1", "0"))) + "\n" +
		`{"type":"message","id":"00000003","parentId":"00000002",` + stamp + `,"message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"`,
	`"}],"isError":false,"timestamp":1767323045678}}`,
}

// writeEscaped writes the escaped tool result session, n bytes long.
func writeEscaped(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(escapedResult.head)
	unit := []byte(`-rw-r--r-- 1 root root 4096 Jan  1 00:00 \"some file\"\tname.go\n`)
	fill := bytes.Repeat(unit, (64<<10)/len(unit))
	for left := n - len(escapedResult.head) - len(escapedResult.tail) - 1; left > 0; {
		k := min(left, len(fill))
		for k > 0 && fill[k-1] == '\\' { // never cut an escape
			k--
		}
		if k == 0 {
			w.Write(bytes.Repeat([]byte("x"), left))
			break
		}
		w.Write(fill[:k])
		left -= k
	}
	w.WriteString(escapedResult.tail + "\n")
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// TestHugeEscapedTextMemory: the views of a session whose one tool result
// is a 64 MiB text with escapes (200 MB in the long run) peak at about the
// line once, as they do on base64 (TestHugeEntryMemory): at most 1.5
// times it plus the fixed working set. Before they measured and cut such
// a text a piece at a time (session.Tape.StrChunks), each decoded it whole,
// and context also kept every message's whole text and grew a copy of
// it: on a 286 MiB line tree and path peaked at 572 MiB (2x), context at
// 1.4 GiB (4.8x), and --width 0 at 1.4 GiB (4.9x). At --width 0, where
// the whole text is shown, it is decoded into the output a piece at a
// time as its line is written (it was held decoded besides the line, 2x).
func TestHugeEscapedTextMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 64 MiB session")
	}
	t.Parallel()
	n := hugeLine()
	path := filepath.Join(t.TempDir(), "escaped.jsonl")
	if err := writeEscaped(path, n); err != nil {
		t.Fatal(err)
	}
	lineBound := int64(n)*3/2 + hugeSlack
	runs := []struct {
		args  []string
		bound int64
	}{
		{[]string{"du"}, lineBound},
		{[]string{"validate"}, lineBound},
		{[]string{"tree"}, lineBound},
		{[]string{"path"}, lineBound},
		{[]string{"context"}, lineBound},
		{[]string{"tree", "--format", "json"}, lineBound},
		{[]string{"context", "--format", "json"}, lineBound},
		{[]string{"tree", "--width", "0"}, lineBound},
		{[]string{"path", "--width", "0"}, lineBound},
		{[]string{"context", "--width", "0"}, lineBound},
	}
	const limit = 2 * time.Minute
	var b strings.Builder
	for _, r := range runs {
		if _, missing := the.missing[r.args[0]]; missing {
			continue
		}
		args := append(append([]string{}, r.args...), path)
		got := boundedRSS(t, func() run { return the.measured(t, limit, []int{0}, args...) }, r.bound, n, "escaped-text", r.args)
		fmt.Fprintf(&b, " %s %d MiB (%.2fx);", strings.Join(r.args, " "), got.rss>>20, float64(got.rss)/float64(n))
		the.tally.input(r.args[0], 1)
	}
	the.tally.note("a %d MiB tool result text with escapes, peak RSS:%s; bound %d MiB.",
		n>>20, strings.TrimSuffix(b.String(), ";"), lineBound>>20)
}

// TestHugeLinesDu: du holds one long line at a time however many the file
// has (its ranges leave them for later, counted one by one): three 64 MiB
// lines cost it what one does.
func TestHugeLinesDu(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 192 MiB session")
	}
	if _, missing := the.missing["du"]; missing {
		t.Skip("no du in this binary")
	}
	t.Parallel()
	n := hugeLine()
	dir := t.TempDir()
	one := filepath.Join(dir, "one.jsonl")
	if err := writeEscaped(one, n); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	head, line := data[:bytes.LastIndexByte(data[:len(data)-1], '\n')+1], data[bytes.LastIndexByte(data[:len(data)-1], '\n')+1:]
	three := filepath.Join(dir, "three.jsonl")
	if err := os.WriteFile(three, slices.Concat(head, line, line, line), 0o600); err != nil {
		t.Fatal(err)
	}
	data = nil
	// Held to what one line costs it, plus 16 MiB: before each long line
	// let go of the last, three 64 MiB lines peaked at 141 MiB, one at 76.
	single := the.measured(t, 2*time.Minute, []int{0}, "du", one)
	bound := min(int64(n)*3/2+hugeSlack, single.rss+16<<20)
	r := boundedRSS(t, func() run { return the.measured(t, 2*time.Minute, []int{0}, "du", "--format", "json", three) }, bound, n, "three-lines", []string{"du"})
	if !bytes.Contains(r.stdout, []byte(`"kind":"tool","name":"bash","entries":3,`)) {
		t.Errorf("du did not count the three results:\n%s", r.stdout)
	}
	the.tally.input("du", 2)
	the.tally.note("three %d MiB lines: du peak RSS %d MiB (%.2fx one line; one line alone %d MiB); bound %d MiB.", n>>20, r.rss>>20, float64(r.rss)/float64(n), single.rss>>20, bound>>20)
}
