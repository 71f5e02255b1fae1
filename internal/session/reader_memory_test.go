package session

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// A line over the limit costs the limit in memory, not the twice as much a
// doubling buffer left behind (a 1 GiB line at the default 256 MiB limit
// made every command peak at 730–1020 MiB).
func TestReaderLongLineMemory(t *testing.T) {
	const limit = 16 << 20
	line := io.MultiReader(strings.NewReader(`{"a":"`), io.LimitReader(zeroes{}, 4*limit), strings.NewReader("\"}\n{}\n"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rd := NewReader(line, Limits{MaxLineBytes: limit})
	var codes []string
	for rd.Next() {
		codes = append(codes, string(rd.Line().Code)+"/"+rd.Line().Class.String())
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit*5/4 {
		t.Errorf("reading a %d MiB line with a %d MiB limit allocated %d MiB", 4*limit>>20, limit>>20, alloc>>20)
	}
	if len(codes) != 2 || !strings.HasPrefix(codes[0], "line_too_long") {
		t.Errorf("lines: %v", codes)
	}
}

// zeroes reads as '0' bytes forever.
type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// Long lines (over the read buffer) of different sizes, one after the
// other, come back byte for byte.
func TestReaderLongLinesIntact(t *testing.T) {
	var in bytes.Buffer
	var want []string
	for _, n := range []int{3 << 20, readBufferSize + 1, 5 << 20, 10, 2*readBufferSize - 1} {
		l := `{"a":"` + strings.Repeat(string(rune('a'+n%26)), n) + `"}`
		want = append(want, l)
		in.WriteString(l + "\n")
	}
	rd := NewReader(&in, DefaultLimits())
	for i := 0; rd.Next(); i++ {
		if got := string(rd.Line().Raw); got != want[i] {
			t.Errorf("line %d: %d bytes, want %d", i+1, len(got), len(want[i]))
		}
	}
	if rd.Err() != nil {
		t.Fatal(rd.Err())
	}
}
