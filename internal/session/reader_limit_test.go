package session

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
)

// TestMaxLineBytesExact: --max-line-bytes N accepts a line of N bytes
// (its terminator not counted) and refuses one of N+1, whatever the
// terminator, whether the line fits the read buffer or not, read from a
// stream or from a file. A line longer than the buffer was allowed two
// bytes for a "\r\n" it might not have: N+1 bytes and "\n", or N+2 bytes
// at the end of the file, passed.
func TestMaxLineBytesExact(t *testing.T) {
	for _, limit := range []int{32, readBufferSize + 100, 3 * readBufferSize} {
		for _, tt := range []struct {
			size int
			end  string
			long bool
		}{
			{limit, "\n", false}, {limit, "\r\n", false}, {limit, "", false},
			{limit + 1, "\n", true}, {limit + 1, "\r\n", true}, {limit + 1, "", true},
			{limit + 2, "", true}, {limit + 2, "\n", true},
		} {
			input := "{}\n" + longLine(tt.size, 'a') + tt.end + "{}\n"
			if tt.end == "" {
				input = "{}\n" + longLine(tt.size, 'a')
			}
			for _, source := range []string{"stream", "file"} {
				t.Run(fmt.Sprintf("limit %d, line %d%q, %s", limit, tt.size, tt.end, source), func(t *testing.T) {
					var in io.Reader = strings.NewReader(input)
					if source == "file" {
						in = writeTemp(t, input)
					}
					r := NewReader(in, Limits{MaxLineBytes: limit})
					r.Next()
					if !r.Next() {
						t.Fatalf("no line 2: %v", r.Err())
					}
					l := r.Line()
					if got := l.Code == finding.LineTooLong; got != tt.long {
						t.Errorf("line of %d bytes, limit %d: too long %v, want %v (class %s)", tt.size, limit, got, tt.long, l.Class)
					}
					if !tt.long && len(l.Raw) != tt.size {
						t.Errorf("raw of %d bytes, want %d", len(l.Raw), tt.size)
					}
				})
			}
		}
	}
}
