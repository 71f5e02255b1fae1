package session

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pisess/pisess/internal/finding"
)

type lineResult struct {
	num   int
	class Class
	code  finding.Code
}

func readAll(t *testing.T, input string, lim Limits) ([]lineResult, error) {
	t.Helper()
	r := NewReader(strings.NewReader(input), lim)
	var got []lineResult
	for r.Next() {
		l := r.Line()
		got = append(got, lineResult{l.Num, l.Class, l.Code})
	}
	return got, r.Err()
}

func TestReader(t *testing.T) {
	small := Limits{MaxLineBytes: 32}
	long := `{"a":"` + strings.Repeat("x", 600<<10) + `"}`
	tests := []struct {
		name  string
		input string
		lim   Limits
		want  []lineResult
	}{
		{"empty file", "", DefaultLimits(), nil},
		{"two lines", "{}\n{\"a\":1}\n", DefaultLimits(), []lineResult{{1, Object, ""}, {2, Object, ""}}},
		{"crlf", "{}\r\n{}\r\n", DefaultLimits(), []lineResult{{1, Object, ""}, {2, Object, ""}}},
		{"no final newline", "{}\n{}", DefaultLimits(), []lineResult{{1, Object, ""}, {2, Object, ""}}},
		{"blank in middle", "{}\n\n{}\n", DefaultLimits(), []lineResult{{1, Object, ""}, {2, Blank, finding.BlankLine}, {3, Object, ""}}},
		{"partial tail", "{}\n{\"ty", DefaultLimits(), []lineResult{{1, Object, ""}, {2, PartialTail, finding.PartialTail}}},
		{"torn line in middle", "{}\n{\"ty\n{}\n", DefaultLimits(), []lineResult{{1, Object, ""}, {2, TornLine, finding.TornLine}, {3, Object, ""}}},
		{"torn line last, with newline", "{}\n{\"ty\n", DefaultLimits(), []lineResult{{1, Object, ""}, {2, TornLine, finding.TornLine}}},
		{"garbage in middle", "{}\nnot-json\n{}\n", DefaultLimits(), []lineResult{{1, Object, ""}, {2, Corrupt, finding.InvalidJSON}, {3, Object, ""}}},
		{"bom", "\xef\xbb\xbf{}\n{}\n", DefaultLimits(), []lineResult{{1, Object, ""}, {2, Object, ""}}},
		{"bom only on line 1", "{}\n\xef\xbb\xbf{}\n", DefaultLimits(), []lineResult{{1, Object, ""}, {2, Corrupt, finding.InvalidJSON}}},
		{"zero fill", "{}\n\x00\x00\x00", DefaultLimits(), []lineResult{{1, Object, ""}, {2, Corrupt, finding.ZeroFill}}},
		{"line too long", "{}\n{\"a\":\"" + strings.Repeat("x", 40) + "\"}\n{}\n", small, []lineResult{{1, Object, ""}, {2, Corrupt, finding.LineTooLong}, {3, Object, ""}}},
		{"line at the limit", "{\"a\":\"" + strings.Repeat("x", 24) + "\"}\n", small, []lineResult{{1, Object, ""}}},
		{"long line over buffers", long + "\n{}\n", DefaultLimits(), []lineResult{{1, Object, ""}, {2, Object, ""}}},
		{"long zero fill over limit", "{}\n" + strings.Repeat("\x00", 100), small, []lineResult{{1, Object, ""}, {2, Corrupt, finding.ZeroFill}}},
		{"long line over limit and buffers", "{}\n" + long + "\n{}\n", Limits{MaxLineBytes: 1 << 10}, []lineResult{{1, Object, ""}, {2, Corrupt, finding.LineTooLong}, {3, Object, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(t, tt.input, tt.lim)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("line %d: got %v, want %v", i+1, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestReaderOffsetsAndRaw(t *testing.T) {
	r := NewReader(iotest.OneByteReader(strings.NewReader("{}\r\n\n{\"a\":1}")), DefaultLimits())
	var offsets []int64
	var raws []string
	for r.Next() {
		offsets = append(offsets, r.Line().Offset)
		raws = append(raws, string(r.Line().Raw))
	}
	if want := []int64{0, 4, 5}; !equal(offsets, want) {
		t.Errorf("offsets %v, want %v", offsets, want)
	}
	if want := []string{"{}", "", `{"a":1}`}; strings.Join(raws, "|") != strings.Join(want, "|") {
		t.Errorf("raw %q, want %q", raws, want)
	}
	if r.BytesRead() != 12 {
		t.Errorf("BytesRead %d, want 12", r.BytesRead())
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReaderFileTooLarge(t *testing.T) {
	r := NewReader(strings.NewReader("{}\n{}\n{}\n"), Limits{MaxLineBytes: 100, MaxFileBytes: 5})
	n := 0
	for r.Next() {
		n++
	}
	if !errors.Is(r.Err(), ErrFileTooLarge) || n != 1 {
		t.Errorf("got %d lines, err %v; want 1 line and ErrFileTooLarge", n, r.Err())
	}
}

func TestReaderIOError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(iotest.ErrReader(boom), DefaultLimits())
	if r.Next() || !errors.Is(r.Err(), boom) {
		t.Errorf("want the read error, got %v", r.Err())
	}
}

func BenchmarkReader(b *testing.B) {
	line := `{"type":"message","id":"a1b2c3d4","parentId":"00112233","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"` + strings.Repeat(`some output \"quoted\" line\n`, 200) + `"}],"isError":false,"timestamp":1730000000000}}` + "\n"
	data := bytes.Repeat([]byte(line), 1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := NewReader(bytes.NewReader(data), DefaultLimits())
		for r.Next() {
		}
	}
}

func TestReaderBOM(t *testing.T) {
	tests := []struct {
		name  string
		input string
		bom   bool
		raw   string // line 1
	}{
		{"none", "{}\n", false, "{}"},
		{"bom", "\xef\xbb\xbf{}\n", true, "{}"},
		{"bom crlf", "\xef\xbb\xbf{\"a\":1}\r\n", true, `{"a":1}`},
		{"bom only", "\xef\xbb\xbf", true, ""},
		// pi 1.6.0 skips a line that trim() leaves empty, and trim() strips
		// U+FEFF: a mark alone on line 1 (with white space, a CR) is a blank
		// line to pi, which loads the file; the line keeps its bytes.
		{"bom alone on line 1", "\xef\xbb\xbf\n", false, "\xef\xbb\xbf"},
		{"bom and white space on line 1", "\xef\xbb\xbf \t\r\n", false, "\xef\xbb\xbf \t"},
		{"two boms alone on line 1", "\xef\xbb\xbf\xef\xbb\xbf\n", false, "\xef\xbb\xbf\xef\xbb\xbf"},
		{"half a bom", "\xef\xbb{}\n", false, "\xef\xbb{}"},
		{"two boms", "\xef\xbb\xbf\xef\xbb\xbf{}\n", true, "\xef\xbb\xbf{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(iotest.OneByteReader(strings.NewReader(tt.input)), DefaultLimits())
			if !r.Next() {
				t.Fatalf("no line: %v", r.Err())
			}
			l := r.Line()
			if l.BOM != tt.bom || string(l.Raw) != tt.raw {
				t.Errorf("BOM %v raw %q, want %v %q", l.BOM, l.Raw, tt.bom, tt.raw)
			}
			if l.Size != int64(len(tt.input)) {
				t.Errorf("Size %d, want %d (the mark is part of the line)", l.Size, len(tt.input))
			}
			f, ok := l.BOMFinding()
			if ok != tt.bom || (ok && (f.Code != finding.BOM || f.Severity != finding.Error || f.Line != 1)) {
				t.Errorf("BOMFinding = %+v %v", f, ok)
			}
		})
	}
}
