package safefile

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
	// shown[i]: lines[i] is a change or within diffContext lines of one. A
	// run of shown lines is a hunk, so changes at most 2*diffContext
	// unchanged lines apart share one.
	shown := make([]bool, len(lines)+1)
	for i, l := range lines {
		if l.op != ' ' {
			for k := max(i-diffContext, 0); k <= min(i+diffContext, len(lines)-1); k++ {
				shown[k] = true
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", name, name)
	// oldNo, newNo: the lines of each side before lines[i]; start: the
	// index where the current hunk begins, oldStart, newStart: oldNo, newNo
	// there.
	var start, oldNo, newNo, oldStart, newStart int
	for i, l := range lines {
		if shown[i] && (i == 0 || !shown[i-1]) {
			start, oldStart, newStart = i, oldNo, newNo
		}
		if l.op != '+' {
			oldNo++
		}
		if l.op != '-' {
			newNo++
		}
		if shown[i] && !shown[i+1] {
			writeHunk(&b, lines[start:i+1], oldStart, oldNo-oldStart, newStart, newNo-newStart)
		}
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
