package cli

import (
	"io"
	"os"
	"testing"
)

// BenchmarkViews runs validate and the views in-process on the session
// named by PISESS_BENCH_VIEWS (a large generated one: docs/performance.md,
// "views"), so that `go test -bench Views -cpuprofile` profiles them.
func BenchmarkViews(b *testing.B) {
	file := os.Getenv("PISESS_BENCH_VIEWS")
	if file == "" {
		b.Skip("PISESS_BENCH_VIEWS names no session file (docs/performance.md, views)")
	}
	for _, args := range [][]string{{"validate"}, {"audit"}, {"context"}, {"path"}, {"path", "--format", "json"}, {"tree"}, {"tree", "--format", "json"}} {
		b.Run(args[0]+map[bool]string{true: "-json"}[len(args) > 1], func(b *testing.B) {
			for range b.N {
				c := &CLI{Stdin: os.Stdin, Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" },
					IsTerminal: func(io.Writer) bool { return false }}
				if code := c.Run(append(append([]string{"pisess"}, args...), file)); code > ExitInvalid {
					b.Fatalf("%v: exit %d", args, code)
				}
			}
		})
	}
}
