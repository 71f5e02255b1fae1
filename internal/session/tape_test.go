package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// fromTape rebuilds the Go value of node n through the Tape's accessors
// (Kind, Skip, Str, Text, Get), the way validation reads a tape.
func fromTape(t *Tape, n int) any {
	switch t.Kind(n) {
	case KindObject:
		m := map[string]any{}
		for k := n + 1; k < t.Skip(n); k = t.Skip(k + 1) {
			key, _ := t.Str(k)
			m[key] = fromTape(t, k+1) // the last of duplicate keys wins
		}
		for key, v := range m {
			if !reflect.DeepEqual(fromTape(t, t.Get(n, key)), v) {
				panic(fmt.Sprintf("Get(%q) is not the last member with that key", key))
			}
		}
		return m
	case KindArray:
		a := []any{}
		for e := n + 1; e < t.Skip(n); e = t.Skip(e) {
			a = append(a, fromTape(t, e))
		}
		return a
	case KindString:
		s, _ := t.Str(n)
		return s
	case KindNumber:
		return json.Number(t.Text(n))
	case KindTrue:
		return true
	case KindFalse:
		return false
	case KindNull:
		return nil
	}
	panic(fmt.Sprintf("node %d has no kind", n))
}

// checkTape builds line's tape twice (Line and Build) and checks that
// reading it gives encoding/json's value.
func checkTape(t *testing.T, line []byte, want map[string]any) {
	t.Helper()
	var tape Tape
	span, ok := tape.Line(line)
	if !ok {
		t.Fatalf("Tape.Line(%q) refused it", line)
	}
	if got := fromTape(&tape, 0); !reflect.DeepEqual(got, want) {
		t.Fatalf("Tape.Line(%q) reads %#v, encoding/json %#v", line, got, want)
	}
	if got := tape.Value(0); !reflect.DeepEqual(got, any(want)) {
		t.Fatalf("Tape.Value(%q) = %#v, encoding/json %#v", line, got, want)
	}
	if err := tape.Build(line[span[0]:span[1]]); err != nil {
		t.Fatalf("Tape.Build(%q): %v", line, err)
	}
	if got := fromTape(&tape, 0); !reflect.DeepEqual(got, want) {
		t.Fatalf("Tape.Build(%q) reads %#v, encoding/json %#v", line, got, want)
	}
	checkKeys(t, line)
}

func TestTapeMatchesEncodingJSON(t *testing.T) {
	for _, v := range vectors {
		if v.class != Object {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			checkTape(t, []byte(v.line), stdDecode(t, []byte(v.line)))
		})
	}
}

func TestTapeAccessors(t *testing.T) {
	var tape Tape
	line := []byte(`{"a":1,"b":"x\"y","a":[true,null,{"c":-2.5}],"k\u0065y":"v","n":12}`)
	if _, ok := tape.Line(line); !ok {
		t.Fatal("refused")
	}
	a := tape.Get(0, "a")
	if tape.Kind(a) != KindArray {
		t.Fatalf("the last of duplicate keys counts: kind %d", tape.Kind(a))
	}
	if s, ok := tape.Str(tape.Get(0, "b")); !ok || s != `x"y` {
		t.Errorf("Str(b) = %q, %v", s, ok)
	}
	if s, ok := tape.Str(tape.Get(0, "key")); !ok || s != "v" {
		t.Errorf("an escaped key: Str(key) = %q, %v", s, ok)
	}
	if n, err := tape.Int(tape.Get(0, "n")); err != nil || n != 12 {
		t.Errorf("Int(n) = %d, %v", n, err)
	}
	if _, err := tape.Int(tape.Get(0, "b")); err == nil {
		t.Error("Int of a string succeeded")
	}
	if tape.Get(0, "missing") != -1 || tape.Kind(-1) != KindNone || tape.Get(a, "x") != -1 {
		t.Error("a missing key or a non-object must give -1 / KindNone")
	}
	if _, ok := tape.Str(-1); ok {
		t.Error("Str(-1) ok")
	}
	if tape.Value(-1) != nil {
		t.Error("Value(-1) not nil")
	}
}

func TestTapeRefuses(t *testing.T) {
	var tape Tape
	for _, v := range vectors {
		if v.class == Object {
			continue
		}
		if _, ok := tape.Line([]byte(v.line)); ok {
			t.Errorf("%s: Tape.Line accepted %q", v.name, v.line)
		}
	}
	deep := `{"a":` + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + `}`
	if err := tape.Build([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("want ErrTooDeep, got %v", err)
	}
	if _, ok := tape.Line([]byte(deep)); ok {
		t.Error("Tape.Line accepted a too deep object")
	}
}

func TestHasSpecial(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			var b [8]byte
			for i := range b {
				b[i] = 'a'
			}
			b[pos] = byte(c)
			x := uint64(0)
			for i := 7; i >= 0; i-- {
				x = x<<8 | uint64(b[i])
			}
			if got := specialBits(x) != 0; got != stringSpecial[c] {
				t.Errorf("specialBits with %#x at %d = %v, want %v", c, pos, got, stringSpecial[c])
			}
			if got := plainRun(append(b[:], "aaaaaaaaa"...), 0); got != map[bool]int{true: pos, false: 17}[stringSpecial[c]] {
				t.Errorf("plainRun with %#x at %d = %d", c, pos, got)
			}
		}
	}
}

// TestPlainRunFirstSpecial: plainRun finds the first special byte where
// a byte-at-a-time scan does, with several special and high bytes in a
// word (the ones a borrow could mark wrongly) and at every alignment.
func TestPlainRunFirstSpecial(t *testing.T) {
	alphabet := []byte{'a', ' ', '"', '\\', 0x00, 0x1f, 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0x9f, 0xa0, 0xc3, 0xff}
	reference := func(b []byte, i int) int {
		for i < len(b) && !stringSpecial[b[i]] {
			i++
		}
		return i
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		b := make([]byte, rnd.IntN(40))
		for k := range b {
			b[k] = alphabet[rnd.IntN(len(alphabet))]
			if rnd.IntN(3) > 0 {
				b[k] = 'a'
			}
		}
		i := rnd.IntN(len(b) + 1)
		if got, want := plainRun(b, i), reference(b, i); got != want {
			t.Fatalf("plainRun(%q, %d) = %d, want %d", b, i, got, want)
		}
	}
}

// benchLines is a session-like run of lines: tool output with escapes, as
// most of a real file's bytes are.
func benchLines() []byte {
	line := `{"type":"message","id":"a1b2c3d4","parentId":"00112233","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"` + strings.Repeat(`some output \"quoted\" line\n`, 200) + `"}],"isError":false,"timestamp":1730000000000}}` + "\n"
	return []byte(strings.Repeat(line, 1000))
}

// BenchmarkTape builds the tape of every line (Tape.Line, the fast path
// validate takes), against BenchmarkClassify and BenchmarkDecode on the
// same lines.
func BenchmarkTape(b *testing.B) {
	data := benchLines()
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var tape Tape
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			if _, ok := tape.Line(l); !ok {
				b.Fatal("refused")
			}
		}
	}
}

func BenchmarkClassify(b *testing.B) {
	data := benchLines()
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var c Classifier
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			if c.Classify(l, false).Class != Object {
				b.Fatal("not an object")
			}
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	data := benchLines()
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			if _, err := Decode(l, true); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestTapeWalkers checks Raw, Span, Members, Elements, Float and StrOf
// against the input they were built from.
func TestTapeWalkers(t *testing.T) {
	var tp Tape
	in := []byte(` {"a" : "x\"y", "n": 1e400, "arr": [1, {"k": true}, "s"], "a": 2} `)
	if err := tp.Build(in); err != nil {
		t.Fatal(err)
	}
	var keys, raws []string
	for k, v := range tp.Members(0) {
		key, _ := tp.Str(k)
		keys = append(keys, key)
		raws = append(raws, string(tp.Raw(v)))
	}
	if got := strings.Join(keys, ","); got != "a,n,arr,a" {
		t.Errorf("keys %q", got)
	}
	if got := strings.Join(raws, "|"); got != `"x\"y"|1e400|[1, {"k": true}, "s"]|2` {
		t.Errorf("raws %q", got)
	}
	var elems []string
	for e := range tp.Elements(tp.Get(0, "arr")) {
		elems = append(elems, string(tp.Raw(e)))
	}
	if got := strings.Join(elems, "|"); got != `1|{"k": true}|"s"` {
		t.Errorf("elements %q", got)
	}
	if f, ok := tp.Float(tp.Get(0, "n")); !ok || f <= 1e308 {
		t.Errorf("Float(1e400) = %v, %v; want +Inf, true", f, ok)
	}
	if f, ok := tp.Float(tp.Get(0, "a")); !ok || f != 2 {
		t.Errorf("Float(a) = %v, %v", f, ok)
	}
	if _, ok := tp.Float(tp.Get(0, "arr")); ok {
		t.Error("Float of an array")
	}
	if s, e := tp.Span(0); string(in[s:e]) != strings.TrimSpace(string(in)) {
		t.Errorf("Span(0) = %d,%d", s, e)
	}
	if tp.Raw(-1) != nil || tp.StrOf(0, "nope") != "" {
		t.Error("missing values")
	}
	for range tp.Members(tp.Get(0, "arr")) {
		t.Error("Members of an array")
	}
}

func TestTapeClone(t *testing.T) {
	var tp Tape
	in := []byte(`{"a":"x","b":[1]}`)
	if err := tp.Build(in); err != nil {
		t.Fatal(err)
	}
	c := tp.Clone()
	copy(in, `{"a":"y","b":[2]}`)
	if s, _ := c.Str(c.Get(0, "a")); s != "x" || string(c.Raw(c.Get(0, "b"))) != "[1]" {
		t.Errorf("the clone changed with the input: %q %q", s, c.Raw(c.Get(0, "b")))
	}
}
