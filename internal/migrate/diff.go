package migrate

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// Diff returns a unified diff (`diff -u` style, 3 lines of context) from
// old to new, both labelled name; "" when they are equal. Lines are
// compared whole (go-diff line mode, without a time limit, so the same
// input always gives the same diff).
func Diff(name string, old, new []byte) string {
	if bytes.Equal(old, new) {
		return ""
	}
	lines := diffLines(string(old), string(new))
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", name, name)
	// oldNo[i], newNo[i]: lines of each side before lines[i].
	oldNo := make([]int, len(lines)+1)
	newNo := make([]int, len(lines)+1)
	for i, l := range lines {
		oldNo[i+1], newNo[i+1] = oldNo[i], newNo[i]
		if l.op != '+' {
			oldNo[i+1]++
		}
		if l.op != '-' {
			newNo[i+1]++
		}
	}
	for i := 0; i < len(lines); {
		for i < len(lines) && lines[i].op == ' ' {
			i++
		}
		if i == len(lines) {
			break
		}
		start := max(i-diffContext, 0)
		end := min(changeRunEnd(lines, i)+diffContext, len(lines))
		writeHunk(&b, lines[start:end], oldNo[start], oldNo[end]-oldNo[start], newNo[start], newNo[end]-newNo[start])
		i = end
	}
	return b.String()
}

// diffLine is one line of a diff: op is ' ', '-' or '+'; text keeps its
// "\n" (absent only on a last line without one).
type diffLine struct {
	op   byte
	text string
}

// diffLines diffs two texts line by line.
func diffLines(old, new string) []diffLine {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // exact and deterministic
	a, b, table := dmp.DiffLinesToRunes(old, new)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), table)
	var out []diffLine
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, text := range strings.SplitAfter(d.Text, "\n") {
			if text != "" {
				out = append(out, diffLine{op, text})
			}
		}
	}
	return out
}

// changeRunEnd returns the end of the hunk's changes starting at lines[i]:
// runs of changes separated by at most 2*diffContext unchanged lines share
// one hunk.
func changeRunEnd(lines []diffLine, i int) int {
	for {
		for i < len(lines) && lines[i].op != ' ' {
			i++
		}
		k := i
		for k < len(lines) && lines[k].op == ' ' && k-i < 2*diffContext {
			k++
		}
		if k == len(lines) || lines[k].op == ' ' {
			return i
		}
		i = k
	}
}

func writeHunk(b *strings.Builder, lines []diffLine, oldStart, oldCount, newStart, newCount int) {
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldStart, oldCount), hunkRange(newStart, newCount))
	for _, l := range lines {
		b.WriteByte(l.op)
		b.WriteString(l.text)
		if !strings.HasSuffix(l.text, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats a hunk side as diff -u does: the 1-based first line and
// the count (omitted when 1; an empty side names the line before it).
func hunkRange(before, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, count)
}
