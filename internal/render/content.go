package render

import (
	"strings"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/parse"
)

// The text of a message's content for the views, read without holding a
// decoded copy of it: a tool result of hundreds of megabytes, with
// escapes, is measured and its first words taken a piece at a time
// (parse.Tape.StrChunks), so describing it costs about its line once.

// textStats is the size of a whole text: its bytes and lines as textSize
// shows them, and the characters of its text blocks (images and the
// spaces between blocks count none).
type textStats struct {
	bytes, newlines, trailing int // trailing: the newlines at its end
	chars                     int
}

// String is the size for people: bytes, and lines when there are
// several (textSize's form).
func (s textStats) String() string {
	size := byteSize(s.bytes)
	if n := s.newlines - s.trailing + 1; n > 1 {
		size += ", " + Count(int64(n)) + " lines"
	}
	return size
}

// add counts piece, a part of the text.
func (s *textStats) add(piece string) {
	s.bytes += len(piece)
	n := strings.Count(piece, "\n")
	s.newlines += n
	if kept := strings.TrimRight(piece, "\n"); kept == "" {
		s.trailing += len(piece)
	} else {
		s.trailing = len(piece) - len(kept)
	}
}

// contentText returns the words of a string or block content (text
// blocks joined by a space, an image as [image]), cut after limit runes
// as wordsUpTo cuts them (0: all), and the size of the whole text.
func contentText(t *parse.Tape, content, limit int) (string, textStats) {
	var parts []int // string nodes; -1 for an image
	if t.Kind(content) == parse.KindString {
		parts = append(parts, content)
	}
	for b := range t.Elements(content) {
		switch t.StrOf(b, "type") {
		case "text":
			if n := t.Get(b, "text"); t.Kind(n) == parse.KindString {
				parts = append(parts, n)
			} else {
				parts = append(parts, -2) // no string text: "" as StrOf reads it
			}
		case "image":
			parts = append(parts, -1)
		}
	}
	// One string without escapes shares the line: its words are taken
	// from it without a copy.
	shared := len(parts) == 1 && parts[0] >= 0 && !t.Escaped(parts[0])
	var st textStats
	w := wordsWriter{limit: limit}
	if limit <= 0 && !shared { // the words of the whole text: at most its bytes as written, in one allocation
		room := 0
		for _, n := range parts {
			room += len(t.Raw(n)) + len(" [image]")
		}
		w.b.Grow(room)
	}
	for i, n := range parts {
		if i > 0 {
			st.add(" ")
			w.add(" ")
		}
		if n == -1 {
			st.add("[image]")
			w.add("[image]")
			continue
		}
		for piece := range t.StrChunks(n) {
			st.add(piece)
			st.chars += utf8.RuneCountInString(piece)
			if shared {
				return wordsUpTo(piece, limit), st
			}
			w.add(piece)
		}
	}
	return w.String(), st
}

// wordsWriter collapses white space as wordsUpTo does, over a text given
// a piece at a time (each ending on a character boundary), and keeps no
// more than limit runes of it (0: all).
type wordsWriter struct {
	b     strings.Builder
	limit int
	n     int
	space bool
}

// add takes the next piece of the text, while there is room.
func (w *wordsWriter) add(piece string) {
	if w.limit > 0 && w.b.Len() == 0 && w.n == 0 {
		w.b.Grow(w.limit + 8)
	}
	for _, r := range piece { // invalid UTF-8 is U+FFFD a byte at a time, as in wordsUpTo
		if w.limit > 0 && w.n >= w.limit {
			return
		}
		if isSpace(r) {
			w.space = w.b.Len() > 0
			continue
		}
		if w.space {
			w.b.WriteByte(' ')
			w.n++
			w.space = false
		}
		w.b.WriteRune(r)
		w.n++
	}
}

func (w *wordsWriter) String() string { return w.b.String() }

// textCells are the cells of a line's text: prefix and text, made safe
// for the terminal, as one flexible cell, which fit shrinks first. At
// width 0 nothing is cut, so they go as two cells: a text of hundreds of
// megabytes is written as it is instead of copied after its prefix.
func textCells(width int, prefix, text string) []cell {
	if width > 0 || prefix == "" || text == "" {
		return []cell{{text: Safe(prefix + text), flex: true}} // nothing copied when one is ""
	}
	return []cell{{text: Safe(prefix)}, {text: Safe(text), flex: true}}
}

// joinPrefix is what join(a, sep, b) puts before b.
func joinPrefix(a, sep, b string) string {
	if a == "" || b == "" {
		return a
	}
	return a + sep
}

// restPrefix is what entryView.rest puts before the text.
func (d entryView) restPrefix() string {
	s := ""
	if d.detail != "" {
		s = " " + d.detail
	}
	if d.text != "" {
		s += ": "
	}
	return s
}
