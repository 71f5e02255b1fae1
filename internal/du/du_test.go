package du

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

const (
	header = `{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
	user   = `{"type":"message","id":"00000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"QUJD","mimeType":"image/png"}],"timestamp":1}}`
	call   = `{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}},{"type":"toolCall","id":"c2","name":"bash","arguments":{}}],"stopReason":"toolUse","timestamp":2}}`
	result = `{"type":"message","id":"00000003","parentId":"00000002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"abc"}],"details":{"shots":[{"type":"image","data":"AAAAAAAA","mimeType":"image/jpeg"}]},"isError":false,"timestamp":3}}`
	custom = `{"type":"custom","id":"00000004","parentId":"00000003","timestamp":"2026-01-01T00:00:04.000Z","customType":"state","data":{"n":1}}`
	noType = `{"id":"00000005","parentId":"00000004"}`
)

// row finds the row (kind, name) of u.
func row(u *Usage, kind Kind, name string) (Row, bool) {
	for _, r := range u.Rows {
		if r.Kind == kind && r.Name == name {
			return r, true
		}
	}
	return Row{}, false
}

func countOf(t *testing.T, content string, workers int) *Usage {
	t.Helper()
	u, err := Stream("f.jsonl", strings.NewReader(content), Options{Limits: session.Limits{MaxLineBytes: 1 << 20}, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// span is the length of the first occurrence of sub in s (it must be
// there): the bytes a block is charged.
func span(t *testing.T, s, sub string) int64 {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%q not in %q", sub, s)
	}
	return int64(len(sub))
}

func TestRows(t *testing.T) {
	lines := []string{header, user, call, result, custom, noType, "", `{"type":"message","id":"0000`, `{"type":1}{"type":2}`, `not json`, `{"type":"message","id":"00000009","par`}
	content := strings.Join(lines, "\n") // the last line has no newline: a partial tail
	size := func(i int) int64 {
		if i == len(lines)-1 {
			return int64(len(lines[i]))
		}
		return int64(len(lines[i]) + 1)
	}
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprint("workers", workers), func(t *testing.T) {
			u := countOf(t, content, workers)
			want := []Row{
				{KindFile, "", int64(len(lines)), int64(len(content)), 0},
				{KindType, "message", 3, size(1) + size(2) + size(3), 0},
				{KindType, "session", 1, size(0), 0},
				{KindType, "custom", 1, size(4), 0},
				{KindType, NoName, 1, size(5), 0},
				{KindRole, "user", 1, size(1), 0},
				{KindRole, "assistant", 1, size(2), 0},
				{KindRole, "toolResult", 1, size(3), 0},
				{KindCustomType, "state", 1, size(4), 0},
				{KindTool, "read", 1, span(t, result, `[{"type":"text","text":"abc"}]`) + span(t, result, `{"shots":[{"type":"image","data":"AAAAAAAA","mimeType":"image/jpeg"}]}`), 0},
				{KindToolCall, "read", 1, span(t, call, `{"path":"a"}`), 0},
				{KindToolCall, "bash", 1, 2, 0},
				{KindImage, "image/jpeg", 1, 8, 0},
				{KindImage, "image/png", 1, 4, 0},
				{KindBlank, "", 1, size(6), 0},
				{KindTorn, "torn_line", 1, size(7), 0},
				{KindTorn, "partial_tail", 1, size(10), 0},
				{KindInvalid, "concatenated_objects", 1, size(8), 0},
				{KindInvalid, "invalid_json", 1, size(9), 0},
			}
			for _, w := range want {
				got, ok := row(u, w.Kind, w.Name)
				if !ok || got != w {
					t.Errorf("row %s %q: got %+v (found %v), want %+v", w.Kind, w.Name, got, ok, w)
				}
			}
			if len(u.Rows) != len(want) {
				t.Errorf("%d rows, want %d: %+v", len(u.Rows), len(want), u.Rows)
			}
			if u.Bytes != int64(len(content)) {
				t.Errorf("Bytes %d, want %d", u.Bytes, len(content))
			}
		})
	}
}

// The line kinds add up to the file, in entries (lines) and bytes.
func TestLineKindsAddUp(t *testing.T) {
	content := strings.Join([]string{header, user, "", "x", call, `{"type":"m`, result}, "\r\n") + "\n"
	u := countOf(t, content, 1)
	var lines, bytes int64
	for _, r := range u.Rows {
		switch r.Kind {
		case KindType, KindBlank, KindTorn, KindInvalid:
			lines += r.Entries
			bytes += r.Bytes
		}
	}
	file, _ := row(u, KindFile, "")
	if lines != file.Entries || bytes != file.Bytes || bytes != int64(len(content)) {
		t.Errorf("line kinds: %d lines, %d bytes; file row %+v; file %d bytes", lines, bytes, file, len(content))
	}
}

// Rows are listed by kind, largest first within a kind, then by name.
func TestOrder(t *testing.T) {
	small := `{"type":"label","id":"a","parentId":null,"timestamp":"t","targetId":"x"}`
	content := strings.Join([]string{header, small, small, user}, "\n") + "\n"
	u := countOf(t, content, 1)
	var got []string
	for _, r := range u.Rows {
		got = append(got, string(r.Kind)+":"+r.Name)
	}
	want := "file: type:message type:label type:session role:user image:image/png"
	if strings.Join(got, " ") != want {
		t.Errorf("order\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// A line over --max-line-bytes is not kept: it is invalid, with its bytes.
func TestLineTooLong(t *testing.T) {
	long := `{"type":"message","id":"1","x":"` + strings.Repeat("a", 2000) + `"}`
	content := header + "\n" + long + "\n"
	u, err := Stream("f", strings.NewReader(content), Options{Limits: session.Limits{MaxLineBytes: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := row(u, KindInvalid, "line_too_long"); !ok || r.Bytes != int64(len(long)+1) || r.Entries != 1 {
		t.Errorf("line_too_long row %+v %v", r, ok)
	}
}

// A line longer than a batch is counted from the reader's own buffer, on
// the workers too.
func TestLongLine(t *testing.T) {
	data := strings.Repeat("QUJD", 300<<10)
	img := `{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"image","data":"` + data + `","mimeType":"image/png"}]}}`
	content := header + "\n" + strings.Repeat(user+"\n", 2000) + img + "\n" + user + "\n"
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		u, err := File(path, Options{Limits: session.DefaultLimits(), Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := row(u, KindImage, "image/png")
		if r.Entries != 2002 || r.Bytes != int64(len(data))+2001*4 {
			t.Errorf("workers %d: image row %+v", workers, r)
		}
	}
}

// Strings with escapes are read as JSON reads them; names are copies.
func TestEscapedNames(t *testing.T) {
	esc := `{"type":"cust\u006fm","id":"1","customType":"a\"b"}`
	u := countOf(t, header+"\n"+esc+"\n", 1)
	if _, ok := row(u, KindCustomType, `a"b`); !ok {
		t.Errorf("no customType a\"b: %+v", u.Rows)
	}
}

func TestSum(t *testing.T) {
	a := countOf(t, header+"\n"+user+"\n", 1)
	b := countOf(t, header+"\n"+call+"\n", 1)
	s := Sum("", []*Usage{a, b})
	if s.Files != 2 || s.Bytes != a.Bytes+b.Bytes {
		t.Errorf("sum %+v", s)
	}
	if r, _ := row(s, KindType, "session"); r.Entries != 2 {
		t.Errorf("session row %+v", r)
	}
	if r, _ := row(s, KindFile, ""); r.Entries != 4 || r.Bytes != s.Bytes {
		t.Errorf("file row %+v", r)
	}
}

// Bad input never panics: every prefix of a session is counted, and its
// line kinds add up.
func TestEveryPrefix(t *testing.T) {
	content := strings.Join([]string{header, user, call, result, custom}, "\n") + "\n"
	for n := range len(content) + 1 {
		u := countOf(t, content[:n], 1)
		if file, _ := row(u, KindFile, ""); file.Bytes != int64(n) {
			t.Fatalf("prefix %d: file row %+v", n, file)
		}
	}
}

func FuzzCount(f *testing.F) {
	f.Add(strings.Join([]string{header, user, call, result, custom}, "\n"))
	f.Add("{\"type\":[[[[[[\n\x00\x00")
	f.Fuzz(func(t *testing.T, content string) {
		u := countOf(t, content, 1)
		var bytes int64
		for _, r := range u.Rows {
			switch r.Kind {
			case KindType, KindBlank, KindTorn, KindInvalid:
				bytes += r.Bytes
			}
		}
		if bytes != int64(len(content)) {
			t.Errorf("line kinds %d bytes, file %d", bytes, len(content))
		}
	})
}

// A file counted in ranges by several workers (long lines after them)
// gives the rows one reader gives, whatever is where the ranges are cut.
func TestRangesAgree(t *testing.T) {
	big := `{"type":"message","id":"9","parentId":null,"timestamp":"t","message":{"role":"toolResult","toolName":"read","content":[{"type":"image","data":"` + strings.Repeat("QUJD", 5<<18) + `","mimeType":"image/png"}]}}`
	var b strings.Builder
	b.WriteString("\xef\xbb\xbf" + header + "\n")
	for i := range 60000 {
		switch {
		case i%20000 == 7:
			b.WriteString(big + "\n") // 5 MiB: over what a range keeps
		case i%9999 == 3:
			b.WriteString(`{"type":"message","id":"0000` + "\n") // torn
		case i%7777 == 5:
			b.WriteString("\xef\xbb\xbf" + custom + "\n") // a mark mid-file: invalid
		case i%3 == 0:
			b.WriteString(user + "\n")
		default:
			b.WriteString(result + "\n")
		}
	}
	b.WriteString(`{"type":"message","id":"00000009","par`) // partial tail
	path := filepath.Join(t.TempDir(), "ranges.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, lim := range []session.Limits{session.DefaultLimits(), {MaxLineBytes: 1 << 20}} {
		one, err := File(path, Options{Limits: lim, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 3, 7} {
			many, err := File(path, Options{Limits: lim, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(many.Rows) != fmt.Sprint(one.Rows) || many.Bytes != one.Bytes {
				t.Errorf("limit %d, %d workers:\n got %v\nwant %v", lim.MaxLineBytes, workers, many.Rows, one.Rows)
			}
		}
		if r, _ := row(one, KindImage, "image/png"); lim.MaxLineBytes > 1<<20 && r.Entries < 3 {
			t.Errorf("the long lines were not counted: %+v", r)
		}
	}
}

// Ranges are cut just after a newline, never before a byte order mark.
func TestSplitLines(t *testing.T) {
	content := "aaaa\nbb\n\xef\xbb\xbfcc\ndddddddd\ne"
	path := filepath.Join(t.TempDir(), "s")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bounds, err := splitLines(f, int64(len(content)), 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bounds[1 : len(bounds)-1] {
		if content[b-1] != '\n' || strings.HasPrefix(content[b:], "\xef\xbb\xbf") {
			t.Errorf("bound %d in %q", b, content)
		}
	}
	if fmt.Sprint(bounds) != "[0 5 14 23 24]" {
		t.Errorf("bounds %v", bounds)
	}
}
