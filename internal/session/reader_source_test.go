package session

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// longLine is a line of n bytes: an object whose string fills it.
func longLine(n int, c byte) string {
	return `{"a":"` + strings.Repeat(string(c), n-8) + `"}`
}

// writeTemp writes data to a file in a test directory and opens it.
func writeTemp(t *testing.T, data string) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// readLines is every line r reads, with its bytes copied.
func readLines(r *Reader) []Line {
	var lines []Line
	for r.Next() {
		l := *r.Line()
		l.Raw = bytes.Clone(l.Raw)
		l.Objects = append([][2]int(nil), l.Objects...)
		lines = append(lines, l)
	}
	return lines
}

func sameLines(t *testing.T, got, want []Line) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !bytes.Equal(g.Raw, w.Raw) || (g.Raw == nil) != (w.Raw == nil) || g.Num != w.Num || g.Offset != w.Offset || g.Size != w.Size ||
			g.Newline != w.Newline || g.CRLF != w.CRLF || g.BOM != w.BOM || g.Class != w.Class || g.Code != w.Code || len(g.Objects) != len(w.Objects) {
			t.Errorf("line %d: got %d bytes %+v, want %d bytes %+v", i+1, len(g.Raw), brief(g), len(w.Raw), brief(w))
		}
	}
}

func brief(l Line) Line { l.Raw = nil; return l }

// A regular file is read with its lines measured first: every line,
// whatever its length and ending, reads as it does from a plain stream
// (where long lines are gathered in pieces).
func TestReaderSourceSameLines(t *testing.T) {
	small := Limits{MaxLineBytes: 1 << 20}
	over := readBufferSize + 10
	tests := []struct {
		name  string
		input string
		lim   Limits
	}{
		{"long lines", longLine(3<<20, 'a') + "\n{}\n" + longLine(over, 'b') + "\n" + longLine(2*readBufferSize, 'c') + "\n", DefaultLimits()},
		{"long last line without newline", "{}\n" + longLine(over, 'a'), DefaultLimits()},
		{"long torn last line", "{}\n" + longLine(over, 'a')[:over-3], DefaultLimits()},
		{"long crlf", longLine(over, 'a') + "\r\n" + longLine(over, 'b') + "\r\n", DefaultLimits()},
		{"bom and a long line 1", byteOrderMark + longLine(over, 'a') + "\n{}\n", DefaultLimits()},
		{"over the limit", "{}\n" + longLine(3<<20, 'a') + "\n" + longLine(over, 'b') + "\n{}\n", small},
		{"at the limit", longLine(1<<20, 'a') + "\n" + longLine(1<<20+1, 'b') + "\n", small},
		{"long zero fill", "{}\n" + strings.Repeat("\x00", 3<<20), small},
		{"long line, then a longer one", longLine(over, 'a') + "\n" + longLine(4*over, 'b') + "\n" + longLine(over, 'c') + "\n", DefaultLimits()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := writeTemp(t, tt.input)
			rd := NewReader(f, tt.lim)
			if rd.src.at == nil {
				t.Fatal("a regular file has no Source")
			}
			got := readLines(rd)
			if rd.Err() != nil {
				t.Fatal(rd.Err())
			}
			sameLines(t, got, readLines(NewReader(strings.NewReader(tt.input), tt.lim)))
		})
	}
}

// The Source is where the reader starts: a file read from an offset, and
// a file under a buffer (SetSource).
func TestReaderSourceOffset(t *testing.T) {
	head := "skipped\n"
	body := "{}\n" + longLine(2*readBufferSize, 'a') + "\n" + longLine(readBufferSize+1, 'b')
	want := readLines(NewReader(strings.NewReader(body), DefaultLimits()))

	f := writeTemp(t, head+body)
	if _, err := f.Seek(int64(len(head)), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	sameLines(t, readLines(NewReader(f, DefaultLimits())), want)

	if _, err := f.Seek(int64(len(head)), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	src, ok := SourceOf(f)
	if !ok || src.base != int64(len(head)) {
		t.Fatalf("SourceOf = %+v %v, want base %d", src, ok, len(head))
	}
	rd := NewReader(io.MultiReader(f), DefaultLimits()) // hides the file
	rd.SetSource(src)
	sameLines(t, readLines(rd), want)
}

// Inputs that are no regular file have no Source.
func TestSourceOfNoFile(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for name, r := range map[string]io.Reader{"pipe": pr, "bytes": bytes.NewReader([]byte("{}\n")), "dir": openDir(t)} {
		if _, ok := SourceOf(r); ok {
			t.Errorf("%s: has a Source", name)
		}
	}
}

func openDir(t *testing.T) *os.File {
	f, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// A file that changes between the measure and the read (a line that
// grew, one that shrank) still reads as the stream has it.
func TestReaderSourceChanged(t *testing.T) {
	now := longLine(3*readBufferSize, 'a') + "\n" + longLine(readBufferSize+1, 'b') + "\n{}\n"
	for name, then := range map[string]string{
		"grew":   longLine(readBufferSize+1, 'a') + "\n" + longLine(readBufferSize+1, 'b') + "\n{}\n",
		"shrank": longLine(5*readBufferSize, 'a') + "\n" + longLine(4*readBufferSize, 'b') + "\n",
		"gone":   "",
	} {
		t.Run(name, func(t *testing.T) {
			rd := NewReader(strings.NewReader(now), DefaultLimits())
			rd.SetSource(Source{at: strings.NewReader(then)})
			sameLines(t, readLines(rd), readLines(NewReader(strings.NewReader(now), DefaultLimits())))
		})
	}
}

// A long line read from a file is held once, in a buffer of its size:
// not again in the pieces it was gathered in (a 200 MB line made
// validate peak at 590 MiB).
func TestReaderSourceLongLineMemory(t *testing.T) {
	const n = 32 << 20
	f := writeTemp(t, "{}\n"+longLine(n, 'a')+"\n{}\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rd := NewReader(f, DefaultLimits())
	lines := 0
	for rd.Next() {
		if l := rd.Line(); l.Class != Object {
			t.Errorf("line %d: %v %s", l.Num, l.Class, l.Code)
		}
		lines++
	}
	runtime.ReadMemStats(&after)
	if lines != 3 || rd.Err() != nil {
		t.Fatalf("%d lines, %v", lines, rd.Err())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > n+2<<20 {
		t.Errorf("reading a %d MiB line allocated %d MiB", n>>20, alloc>>20)
	}
}

// Detach gives a long line away with its buffer, and copies a short one:
// either way the bytes outlive the lines read after them.
func TestReaderDetach(t *testing.T) {
	long1, long2 := longLine(2*readBufferSize, 'a'), longLine(2*readBufferSize, 'b')
	input := long1 + "\n{}\n" + long2 + "\n{\"b\":2}\n"
	for name, in := range map[string]func() io.Reader{
		"file":   func() io.Reader { return writeTemp(t, input) },
		"stream": func() io.Reader { return strings.NewReader(input) },
	} {
		t.Run(name, func(t *testing.T) {
			rd := NewReader(in(), DefaultLimits())
			var kept [][]byte
			for rd.Next() {
				raw := rd.Line().Raw
				d := rd.Detach()
				if !bytes.Equal(d, raw) {
					t.Fatalf("line %d: Detach differs from Raw", rd.Line().Num)
				}
				if long := len(raw) > readBufferSize; long != (&d[0] == &raw[0]) {
					t.Errorf("line %d (%d bytes): copied %v", rd.Line().Num, len(raw), !long)
				}
				kept = append(kept, d)
			}
			want := []string{long1, "{}", long2, `{"b":2}`}
			for i := range want {
				if string(kept[i]) != want[i] {
					t.Errorf("line %d changed after it was detached", i+1)
				}
			}
		})
	}
}

// A line over the limit, measured in the file, is not kept at all: not
// even the limit's worth of it.
func TestReaderSourceTooLongKeepsNothing(t *testing.T) {
	const limit = 4 << 20
	f := writeTemp(t, "{}\n"+longLine(4*limit, 'a')+"\n{}\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rd := NewReader(f, Limits{MaxLineBytes: limit})
	var codes []string
	for rd.Next() {
		codes = append(codes, string(rd.Line().Code))
	}
	runtime.ReadMemStats(&after)
	if strings.Join(codes, ",") != ",line_too_long," || rd.Err() != nil {
		t.Errorf("codes %q, %v", codes, rd.Err())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("reading a %d MiB line with a %d MiB limit allocated %d KiB", 4*limit>>20, limit>>20, alloc>>10)
	}
}
