package session

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// node finds the node at a slash path of keys and array indexes ("" is
// the object itself).
func nodeAt(t *testing.T, tape *Tape, path string) int {
	t.Helper()
	n := 0
	if path == "" {
		return n
	}
	for _, step := range strings.Split(path, "/") {
		if i, err := strconv.Atoi(step); err == nil && tape.Kind(n) == KindArray {
			el := -1
			for e := range tape.Elements(n) {
				if i == 0 {
					el = e
					break
				}
				i--
			}
			n = el
		} else {
			n = tape.Get(n, step)
		}
		if n < 0 {
			t.Fatalf("no node at %q", path)
		}
	}
	return n
}

type op struct {
	kind  byte // 'r' Replace, 's' Set, 'd' Delete
	path  string
	key   string
	value string
}

func set(path, key, value string) op { return op{'s', path, key, value} }
func del(path, key string) op        { return op{'d', path, key, ""} }
func repl(path, value string) op     { return op{'r', path, "", value} }

func apply(t *testing.T, e *Editor, tape *Tape, ops []op) {
	t.Helper()
	for _, o := range ops {
		n := nodeAt(t, tape, o.path)
		switch o.kind {
		case 'r':
			e.Replace(n, []byte(o.value))
		case 's':
			e.Set(n, o.key, []byte(o.value))
		case 'd':
			e.Delete(n, o.key)
		}
	}
}

func TestEditor(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ops  []op
		want string
		err  error
	}{
		{"nothing", `{ "a" : 1.50 , "b":"\u0041"}`, nil, `{ "a" : 1.50 , "b":"\u0041"}`, nil},
		{"replace nested", `{"a":{"b":1,"c":[1,2]}}`, []op{repl("a/c", `"x"`)}, `{"a":{"b":1,"c":"x"}}`, nil},
		{"replace array element", `{"a":[1,{"b":2},3]}`, []op{repl("a/1", `null`)}, `{"a":[1,null,3]}`, nil},
		{"replace twice: the last wins", `{"a":1}`, []op{repl("a", `2`), repl("a", `3`)}, `{"a":3}`, nil},
		{"replace the object", `{"a":1}`, []op{repl("", `{}`)}, `{}`, nil},
		{"set existing", `{"a":1,"b":2}`, []op{set("", "a", `3`)}, `{"a":3,"b":2}`, nil},
		{"set keeps the spacing", `{ "a" :  1 }`, []op{set("", "a", `"x"`)}, `{ "a" :  "x" }`, nil},
		{"set duplicate: the last, as JSON.parse reads", `{"a":1,"b":2,"a":3}`, []op{set("", "a", `9`)}, `{"a":1,"b":2,"a":9}`, nil},
		{"set an escaped key", `{"\u0061":1}`, []op{set("", "a", `2`)}, `{"\u0061":2}`, nil},
		{"set absent", `{"a":1}`, []op{set("", "b", `2`)}, `{"a":1,"b":2}`, nil},
		{"set absent after spacing", `{ "a" : 1 }`, []op{set("", "b", `2`)}, `{ "a" : 1,"b":2 }`, nil},
		{"set absent in empty", `{}`, []op{set("", "b", `2`)}, `{"b":2}`, nil},
		{"set absent in empty with space", `{ }`, []op{set("", "b", `2`)}, `{"b":2 }`, nil},
		{"set two absent: in order", `{}`, []op{set("", "x", `1`), set("", "y", `2`)}, `{"x":1,"y":2}`, nil},
		{"set absent twice: the last value", `{}`, []op{set("", "x", `1`), set("", "x", `2`)}, `{"x":2}`, nil},
		{"set a key that needs escapes", `{}`, []op{set("", "a\"b\n<", `1`)}, `{"a\"b\n<":1}`, nil},
		{"set nested absent", `{"m":{"r":1},"z":0}`, []op{set("m", "s", `2`)}, `{"m":{"r":1,"s":2},"z":0}`, nil},
		{"set in two objects", `{"m":{"r":1},"z":0}`, []op{set("m", "r", `2`), set("", "z", `1`), set("", "n", `true`)}, `{"m":{"r":2},"z":1,"n":true}`, nil},
		{"delete middle", `{"a":1,"b":2,"c":3}`, []op{del("", "b")}, `{"a":1,"c":3}`, nil},
		{"delete first", `{"a":1,"b":2,"c":3}`, []op{del("", "a")}, `{"b":2,"c":3}`, nil},
		{"delete last", `{"a":1,"b":2,"c":3}`, []op{del("", "c")}, `{"a":1,"b":2}`, nil},
		{"delete only", `{"a":1}`, []op{del("", "a")}, `{}`, nil},
		{"delete only, spacing kept", `{ "a" : 1 }`, []op{del("", "a")}, `{  }`, nil},
		{"delete first, spacing kept", `{ "a" :  1 , "b" : "x\u0041" }`, []op{del("", "a")}, `{ "b" : "x\u0041" }`, nil},
		{"delete last, spacing kept", `{ "a" :  1 , "b" : 2 }`, []op{del("", "b")}, `{ "a" :  1 }`, nil},
		{"delete duplicates", `{"a":1,"b":2,"a":3}`, []op{del("", "a")}, `{"b":2}`, nil},
		{"delete adjacent duplicates first", `{"a":1,"a":2,"b":3}`, []op{del("", "a")}, `{"b":3}`, nil},
		{"delete duplicates last", `{"b":3,"a":1,"a":2}`, []op{del("", "a")}, `{"b":3}`, nil},
		{"delete all", `{"a":1,"b":2,"c":3}`, []op{del("", "a"), del("", "c"), del("", "b")}, `{}`, nil},
		{"delete an escaped key", `{"x":0,"\u0061":1}`, []op{del("", "a")}, `{"x":0}`, nil},
		{"delete absent", `{"a":1}`, []op{del("", "b")}, `{"a":1}`, nil},
		{"delete nested", `{"m":{"r":1,"s":2}}`, []op{del("m", "r")}, `{"m":{"s":2}}`, nil},
		{"delete then set: appended", `{"a":1,"b":2}`, []op{del("", "a"), set("", "a", `3`)}, `{"b":2,"a":3}`, nil},
		{"set then delete: gone", `{"a":1,"b":2}`, []op{set("", "a", `3`), del("", "a")}, `{"b":2}`, nil},
		{"set absent then delete", `{"a":1}`, []op{set("", "b", `3`), del("", "b")}, `{"a":1}`, nil},
		{"delete last, then append", `{"a":1,"b":2}`, []op{del("", "b"), set("", "c", `3`)}, `{"a":1,"c":3}`, nil},
		{"delete first, then append", `{"a":1,"b":2}`, []op{del("", "a"), set("", "c", `3`)}, `{"b":2,"c":3}`, nil},
		{"delete only, then append", `{"a":1}`, []op{del("", "a"), set("", "c", `3`)}, `{"c":3}`, nil},
		// migrate's cases, from its own editor's tests
		{"delete only, then append, spacing kept", `{ "x" : 1 }`, []op{del("", "x"), set("", "a", `1`)}, `{"a":1  }`, nil},
		{"delete first of two, then append", `{"x":1, "y":2}`, []op{del("", "x"), set("", "a", `1`)}, `{"y":2,"a":1}`, nil},
		{"delete last of two, then append two", `{"x":1, "y":2}`, []op{del("", "y"), set("", "a", `1`), set("", "b", `2`)}, `{"x":1,"a":1,"b":2}`, nil},
		{"append after a nested value", `{"m":{"k":[1,{"j":2}]}}`, []op{set("", "a", `1`)}, `{"m":{"k":[1,{"j":2}]},"a":1}`, nil},
		{"delete beside a set", `{"a":1,"b":2,"c":3}`, []op{set("", "a", `0`), del("", "b"), set("", "c", `4`)}, `{"a":0,"c":4}`, nil},
		{"replace beside a delete", `{"a":[1],"b":2}`, []op{repl("a/0", `5`), del("", "b")}, `{"a":[5]}`, nil},
		{"replace inside a replaced value", `{"a":{"b":1}}`, []op{repl("a", `1`), repl("a/b", `2`)}, "", ErrOverlap},
		{"set in a replaced object", `{"a":{"b":1}}`, []op{repl("a", `1`), set("a", "c", `2`)}, "", ErrOverlap},
		{"set a replaced value", `{"a":1}`, []op{repl("a", `1`), set("", "a", `2`)}, "", ErrOverlap},
		{"replace in a deleted value", `{"a":{"b":1},"c":0}`, []op{repl("a/b", `2`), del("", "a")}, "", ErrOverlap},
		{"set in an array", `{"a":[1]}`, []op{set("a", "b", `2`)}, "", ErrNotObject},
		{"delete in a string", `{"a":"s"}`, []op{del("a", "b")}, "", ErrNotObject},
	}
	var e Editor // reused: Reset forgets the previous object's edits
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tape Tape
			if err := tape.Build([]byte(tt.in)); err != nil {
				t.Fatal(err)
			}
			e.Reset(&tape)
			apply(t, &e, &tape, tt.ops)
			if e.Changed() != (len(tt.ops) > 0) {
				t.Errorf("Changed() = %v with %d edits", e.Changed(), len(tt.ops))
			}
			var out bytes.Buffer
			n, err := e.WriteTo(&out)
			if !errors.Is(err, tt.err) {
				t.Fatalf("WriteTo: error %v, want %v", err, tt.err)
			}
			if err != nil {
				if out.Len() != 0 || n != 0 {
					t.Errorf("WriteTo wrote %q (n=%d) before failing", out.String(), n)
				}
				if _, err := e.Bytes(); !errors.Is(err, tt.err) {
					t.Errorf("Bytes: error %v, want %v", err, tt.err)
				}
				return
			}
			if out.String() != tt.want || n != int64(out.Len()) {
				t.Errorf("WriteTo = %q (n=%d), want %q", out.String(), n, tt.want)
			}
			b, err := e.Bytes()
			if err != nil || string(b) != tt.want {
				t.Errorf("Bytes = %q, %v; want %q", b, err, tt.want)
			}
			if cap(b) != len(b) {
				t.Errorf("Bytes: cap %d for %d bytes: not sized at once", cap(b), len(b))
			}
		})
	}
}

// TestEditorSpan: a tape built on a line with space around its object
// writes only the object.
func TestEditorSpan(t *testing.T) {
	var tape Tape
	if _, ok := tape.Line([]byte(`  {"a":1}  `)); !ok {
		t.Fatal("not a line")
	}
	var e Editor
	e.Reset(&tape)
	e.Set(0, "a", []byte("2"))
	if b, err := e.Bytes(); err != nil || string(b) != `{"a":2}` {
		t.Errorf("Bytes = %q, %v", b, err)
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(b []byte) (int, error) {
	if w.after <= 0 {
		return 0, io.ErrShortWrite
	}
	w.after--
	return len(b), nil
}

func TestEditorWriteError(t *testing.T) {
	var tape Tape
	if err := tape.Build([]byte(`{"a":1,"b":2}`)); err != nil {
		t.Fatal(err)
	}
	var e Editor
	e.Reset(&tape)
	e.Set(0, "a", []byte("3"))
	for after := range 3 {
		if _, err := e.WriteTo(&failWriter{after}); !errors.Is(err, io.ErrShortWrite) {
			t.Errorf("failing after %d writes: error %v", after, err)
		}
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{`"\`, `"\"\\"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"\x7f", "\"\x7f\""},
		{"<>&", `"<>&"`},                     // no HTML escaping
		{"\u2028\u2029", "\"\u2028\u2029\""}, // JSON.stringify leaves them
		{"é€😀", `"é€😀"`},
		{"a\xffb", "\"a\uFFFDb\""},
		{"\xe2\x82", "\"\uFFFD\uFFFD\""}, // a cut character: each byte
	}
	for _, tt := range tests {
		if got := string(Quote(tt.in)); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestGoQuote: AppendGoQuote differs from Quote only where encoding/json
// does (render's FuzzQuoteAsEncodingJSON holds it to encoding/json).
func TestGoQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{`a"b\c` + "\n\x01", `"a\"b\\c\n\u0001"`},
		{"x\u2028y\u2029z", `"x\u2028y\u2029z"`},
		{"é\xffb", `"é\ufffdb"`},
		{"\xe2\x82", `"\ufffd\ufffd"`}, // a cut character: each byte
		{"\ufffd", "\"\ufffd\""},       // a real U+FFFD is kept
		{"<>&", `"<>&"`},
	}
	for _, tt := range tests {
		if got := string(AppendGoQuote([]byte("pre"), tt.in)); got != "pre"+tt.want {
			t.Errorf("AppendGoQuote(pre, %q) = %s, want pre%s", tt.in, got, tt.want)
		}
	}
}

// countWriter counts what it is given.
type countWriter struct{ n int }

func (w *countWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// TestEditorHugeValue: a member set beside a 100 MB string, and a 100 MB
// value set, are written without copying either: a few writes, no
// allocation that grows with the value.
func TestEditorHugeValue(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips the 100 MB line")
	}
	const size = 100 << 20
	line := make([]byte, 0, size+64)
	line = append(line, `{"big":"`...)
	line = append(line, bytes.Repeat([]byte{'x'}, size)...)
	line = append(line, `","n":1}`...)
	var tape Tape
	if err := tape.Build(line); err != nil {
		t.Fatal(err)
	}
	big := tape.Raw(tape.Get(0, "big"))
	var e Editor
	var w countWriter
	allocs := testing.AllocsPerRun(5, func() {
		e.Reset(&tape)
		e.Set(0, "n", []byte("2"))
		e.Set(0, "copy", big) // appended: a value of 100 MB
		w.n = 0
		if _, err := e.WriteTo(&w); err != nil {
			t.Fatal(err)
		}
	})
	if want := len(line) + len(`,"copy":`) + len(big); w.n != want {
		t.Fatalf("wrote %d bytes, want %d", w.n, want)
	}
	if allocs > 4 {
		t.Errorf("%v allocations per WriteTo", allocs)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e.Reset(&tape)
	e.Delete(0, "n")
	e.Replace(tape.Get(0, "big"), big)
	if _, err := e.WriteTo(&w); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
		t.Errorf("WriteTo allocated %d bytes for a %d-byte line", grew, len(line))
	}
}

// TestEditorInPlace: edits made in the input's own memory give what Bytes
// gives, without a copy, or refuse and leave the input as it was.
func TestEditorInPlace(t *testing.T) {
	tests := []struct {
		name string
		in   string
		room int
		ops  []op
		ok   bool
	}{
		{"append", `{"type":"message","m":{"x":1}}`, 64, []op{set("", "id", `"ab"`), set("", "parentId", `null`)}, true},
		{"replace longer and append", `{"id":1,"n":[1]}`, 64, []op{set("", "id", `"abc"`), set("", "p", `2`)}, true},
		{"nested set", `{"m":{"role":"hookMessage"},"z":1}`, 8, []op{set("m", "role", `"custom"`)}, true},
		{"shorter at the end", `{"a":1,"b":2}`, 0, []op{del("", "b")}, true},
		{"no edits", `{"a":1}`, 0, nil, true},
		{"no room", `{"a":1}`, 3, []op{set("", "id", `"ab"`)}, false},
		{"shorter before a longer", `{"a":1,"b":2}`, 64, []op{del("", "a"), set("", "c", `333`)}, false},
		{"overlap", `{"a":{"b":1}}`, 64, []op{repl("a", `1`), repl("a/b", `2`)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tape, copyTape Tape
			if err := copyTape.Build([]byte(tt.in)); err != nil {
				t.Fatal(err)
			}
			var ref Editor
			ref.Reset(&copyTape)
			apply(t, &ref, &copyTape, tt.ops)
			want, _ := ref.Bytes()
			buf := append(make([]byte, 0, len(tt.in)+tt.room), tt.in...)
			if err := tape.Build(buf); err != nil {
				t.Fatal(err)
			}
			var e Editor
			e.Reset(&tape)
			apply(t, &e, &tape, tt.ops)
			got, ok := e.InPlace()
			if ok != tt.ok {
				t.Fatalf("InPlace ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				if string(buf) != tt.in {
					t.Errorf("refused, but changed the input to %q", buf)
				}
				return
			}
			if string(got) != string(want) {
				t.Errorf("InPlace = %q, Bytes = %q", got, want)
			}
			if len(got) > 0 && &got[0] != &buf[0] {
				t.Error("InPlace copied the object")
			}
		})
	}
	var tape Tape
	buf := append(make([]byte, 0, 64), `{"a":"xyz"}`...)
	if err := tape.Build(buf); err != nil {
		t.Fatal(err)
	}
	var e Editor
	e.Reset(&tape)
	e.Set(0, "b", tape.Raw(tape.Get(0, "a"))) // a value in the input's memory
	if _, ok := e.InPlace(); ok {
		t.Error("InPlace with a value in the input's memory")
	}
}

func TestObjectWriter(t *testing.T) {
	var empty ObjectWriter
	if got := string(empty.Bytes()); got != `{}` {
		t.Errorf("empty: %s", got)
	}
	var o ObjectWriter
	o.Member("role", []byte(`"custom"`))
	o.Member("absent", nil) // undefined: left out
	o.String("text", "a\"b\n<\u2028")
	o.Member("n", []byte(`1.50`))
	o.Member("k\u0001", []byte(`{ "x" : [1, 2] }`))
	want := "{\"role\":\"custom\",\"text\":\"a\\\"b\\n<\u2028\",\"n\":1.50,\"k\\u0001\":{ \"x\" : [1, 2] }}"
	if got := string(o.Bytes()); got != want {
		t.Errorf("ObjectWriter = %s, want %s", got, want)
	}
}
