package safefile

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestDiffFormat(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n",
			"--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"insert into empty", "", "a\n",
			"--- f\n+++ f\n@@ -0,0 +1 @@\n+a\n"},
		{"last line without newline", "a\nb", "a\nb\n",
			"--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"context is three lines", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n",
			"--- f\n+++ f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"},
		{"changes 6 lines apart share a hunk", "a\n1\n2\n3\n4\n5\n6\nb\n", "A\n1\n2\n3\n4\n5\n6\nB\n",
			"--- f\n+++ f\n@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n"},
		{"changes 7 lines apart get two hunks", "a\n1\n2\n3\n4\n5\n6\n7\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\nB\n",
			"--- f\n+++ f\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-b\n+B\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff("f", []byte(tt.old), []byte(tt.new)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestDiffAppliesBack checks on random texts that applying the diff to the
// old text gives the new one, and that the diff is deterministic.
func TestDiffAppliesBack(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	randomText := func() string {
		var b strings.Builder
		for i, n := 0, rng.Intn(40); i < n; i++ {
			b.WriteString(strconv.Itoa(rng.Intn(8)))
			b.WriteByte('\n')
		}
		s := b.String()
		if rng.Intn(4) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	for i := 0; i < 500; i++ {
		old, new := randomText(), randomText()
		d := Diff("f", []byte(old), []byte(new))
		if d != Diff("f", []byte(old), []byte(new)) {
			t.Fatal("diff is not deterministic")
		}
		got, err := applyUnified(old, d)
		if err != nil || got != new {
			t.Fatalf("case %d: applying the diff gave %q (%v), want %q\ndiff:\n%s", i, got, err, new, d)
		}
	}
}

// applyUnified applies a unified diff produced by Diff.
func applyUnified(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	oldLines := strings.SplitAfter(old, "\n")
	if oldLines[len(oldLines)-1] == "" {
		oldLines = oldLines[:len(oldLines)-1]
	}
	lines := strings.SplitAfter(diff, "\n")[2:] // skip ---/+++
	var out []string
	pos := 0 // next old line to copy
	for i := 0; i < len(lines) && lines[i] != ""; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "@@") {
			var oldStart int
			var rest string
			if _, err := fmt.Sscanf(l, "@@ -%d%s", &oldStart, &rest); err != nil {
				return "", err
			}
			start := oldStart - 1
			if strings.HasPrefix(rest, ",0") {
				start = oldStart
			}
			out = append(out, oldLines[pos:start]...)
			pos = start
			continue
		}
		text := l[1:]
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`) {
			text = strings.TrimSuffix(text, "\n")
			i++
		}
		switch l[0] {
		case ' ':
			out = append(out, text)
			pos++
		case '-':
			pos++
		case '+':
			out = append(out, text)
		default:
			return "", fmt.Errorf("bad diff line %q", l)
		}
	}
	out = append(out, oldLines[pos:]...)
	return strings.Join(out, ""), nil
}
