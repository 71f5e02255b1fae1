package render

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// referenceText is contentText as it was, on the decoded strings: the
// parts joined, then cut to words; the size of the joined text.
func referenceText(t *session.Tape, content, limit int) (string, string, int) {
	var parts []string
	chars := 0
	if s, ok := t.Str(content); ok {
		parts, chars = []string{s}, utf8.RuneCountInString(s)
	}
	for b := range t.Elements(content) {
		switch t.StrOf(b, "type") {
		case "text":
			s := t.StrOf(b, "text")
			parts = append(parts, s)
			chars += utf8.RuneCountInString(s)
		case "image":
			parts = append(parts, "[image]")
		}
	}
	whole := strings.Join(parts, " ")
	size := text.Bytes(int64(len(whole)))
	if n := strings.Count(strings.TrimRight(whole, "\n"), "\n") + 1; n > 1 {
		size += ", " + text.Count(int64(n)) + " lines"
	}
	return wordsUpTo(whole, limit), size, chars
}

// contentText reads a content a piece at a time and gives what reading
// it whole gave: the same words at every limit, the same size.
func TestContentTextAsWhole(t *testing.T) {
	big := strings.Repeat(`ab  \n\t\"é€😀 `, 30000)
	contents := []string{
		`""`, `"plain words"`, `"  lead and trail  \n\n"`, `"a\nb\nc\n\n"`,
		`"` + big + `"`, `"` + strings.Repeat(" ", 70000) + `\nword"`,
		`[{"type":"text","text":"one"},{"type":"image","data":"QUJD"},{"type":"text","text":" two\n"}]`,
		`[{"type":"text","text":"` + big + `"},{"type":"text"},{"type":"text","text":7},{"type":"image"}]`,
		`[]`, `[1,"x",{"type":"thinking","thinking":"no"}]`, `{"type":"text"}`, `12`,
		`"` + strings.Repeat(`bell\u0007 \u009b[31m esc\u001b]0; `, 20000) + `"`, `"\n \t "`,
	}
	for _, c := range contents {
		var tape session.Tape
		if err := tape.Build([]byte(`{"content":` + c + `}`)); err != nil {
			t.Fatal(err)
		}
		n := tape.Get(0, "content")
		for _, limit := range []int{0, 1, 5, 61, 101, 65536} {
			words, lazy, size := contentText(&tape, n, limit)
			if lazy != nil {
				var b, safe strings.Builder
				lazy.writeTo(&b, false)
				words = b.String()
				if lazy.writeTo(&safe, true); safe.String() != text.Safe(words) {
					t.Errorf("content of %d bytes: the lazy words made safe piece by piece differ from Safe of them", len(c))
				}
			}
			wantWords, wantSize, wantChars := referenceText(&tape, n, limit)
			if words != wantWords || size.String() != wantSize || size.chars != wantChars {
				t.Errorf("content of %d bytes, limit %d: got %d-byte words, %q, %d chars; want %d-byte words, %q, %d chars",
					len(c), limit, len(words), size, size.chars, len(wantWords), wantSize, wantChars)
			}
		}
	}
}

// FuzzContentText holds contentText, which reads a text a piece at a time
// (wordsWriter, for a string with escapes), to referenceText's reading of
// it whole, as one string content and as two text blocks, at any limit.
func FuzzContentText(f *testing.F) {
	for _, s := range []string{"", "plain words", "a\nb  c\t\td", " é€😀\u2028 x\x00y\x7f", "\xff\xfe ab", strings.Repeat("word \n", 50)} {
		f.Add(s, "tail\n", 5)
	}
	f.Fuzz(func(t *testing.T, s, more string, limit int) {
		limit = max(limit%200, 0)
		q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
		for _, c := range []string{q(s), `[{"type":"text","text":` + q(s) + `},{"type":"text","text":` + q(more) + `}]`} {
			var tape session.Tape
			if err := tape.Build([]byte(`{"content":` + c + `}`)); err != nil {
				t.Fatal(err)
			}
			n := tape.Get(0, "content")
			words, lazy, size := contentText(&tape, n, limit)
			if lazy != nil {
				var b strings.Builder
				lazy.writeTo(&b, false)
				words = b.String()
			}
			wantWords, wantSize, wantChars := referenceText(&tape, n, limit)
			if words != wantWords || size.String() != wantSize || size.chars != wantChars {
				t.Fatalf("content %s, limit %d: got %q, %q, %d chars; want %q, %q, %d chars", c, limit, words, size, size.chars, wantWords, wantSize, wantChars)
			}
		}
	})
}
