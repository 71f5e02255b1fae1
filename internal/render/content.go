package render

import (
	"github.com/pisess/pisess/internal/text"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/session"
)

// The text of a message's content for the views, read without holding a
// decoded copy of it: a tool result of hundreds of megabytes, with
// escapes, is measured and its first words taken a piece at a time
// (session.Tape.StrChunks), so describing it costs about its line once.

// textStats is the size of a whole text: its bytes and lines as a tool
// result's detail shows them, and the characters of its text blocks (images and the
// spaces between blocks count none).
type textStats struct {
	bytes, newlines, trailing int // trailing: the newlines at its end
	chars                     int
}

// String is the size for people: bytes, and lines when there are
// several.
func (s textStats) String() string {
	size := text.Bytes(int64(s.bytes))
	if n := s.newlines - s.trailing + 1; n > 1 {
		size += ", " + text.Count(int64(n)) + " lines"
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
// as wordsUpTo cuts them, and the size of the whole text. With limit 0
// (all of it) a text that is not shared with the line comes back lazy,
// to be written with its line, when it has any words.
func contentText(t *session.Tape, content, limit int) (string, *lazyWords, textStats) {
	var parts []int // string nodes; -1 for an image
	if t.Kind(content) == session.KindString {
		parts = append(parts, content)
	}
	for b := range t.Elements(content) {
		bm := blockMembersOf(t, b)
		switch typ, _ := t.Str(bm.typ); typ {
		case "text":
			if n := bm.text; t.Kind(n) == session.KindString {
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
	lazy := limit <= 0 && !shared
	var st textStats
	w := wordsWriter{limit: limit}
	words := false // the text has a character that is not white space
	for i, n := range parts {
		if i > 0 {
			st.add(" ")
			w.add(" ")
		}
		if n == -1 {
			st.add("[image]")
			w.add("[image]")
			words = true
			continue
		}
		for piece := range t.StrChunks(n) {
			st.add(piece)
			st.chars += utf8.RuneCountInString(piece)
			if shared {
				return wordsUpTo(piece, limit), nil, st
			}
			if lazy {
				words = words || strings.IndexFunc(piece, func(r rune) bool { return !isSpace(r) }) >= 0
				continue
			}
			w.add(piece)
		}
	}
	if lazy {
		if !words {
			return "", nil, st
		}
		return "", &lazyWords{t: t, parts: parts}, st
	}
	return w.String(), nil, st
}

// lazyWords are the words of a whole text, written when its line is (at
// --width 0, where nothing is cut): a text of hundreds of megabytes with
// escapes is decoded a piece at a time into the output instead of held
// decoded beside its line. The tape must live until then.
type lazyWords struct {
	t     *session.Tape
	parts []int // as contentText lists them
}

// writeTo writes the words to out, made safe for the terminal when safe.
func (l *lazyWords) writeTo(out io.StringWriter, safe bool) {
	w := wordsWriter{out: out, safe: safe}
	for i, n := range l.parts {
		if i > 0 {
			w.add(" ")
		}
		if n == -1 {
			w.add("[image]")
			continue
		}
		for piece := range l.t.StrChunks(n) {
			w.add(piece)
		}
	}
	w.flush()
}

// wordsWriter collapses white space as wordsUpTo does, over a text given
// a piece at a time (each ending on a character boundary), and keeps no
// more than limit runes of it (0: all).
type wordsWriter struct {
	b     strings.Builder
	limit int
	n     int
	space bool
	wrote bool            // a word was written (to b, or out)
	out   io.StringWriter // when set, b is written to it as it fills
	safe  bool            // what goes to out is made safe (text.Safe)
}

// streamBuffer is how much of the words a streaming wordsWriter holds.
const streamBuffer = 64 << 10

// add takes the next piece of the text, while there is room.
func (w *wordsWriter) add(piece string) {
	if w.limit > 0 && w.b.Len() == 0 && w.n == 0 {
		w.b.Grow(w.limit + 8)
	}
	for i := 0; i < len(piece); {
		if w.limit > 0 && w.n >= w.limit {
			return
		}
		if run := asciiWord(piece[i:]); run > 0 { // most text: a word's runes written at once
			w.spaceBefore()
			if w.limit > 0 {
				run = min(run, max(1, w.limit-w.n)) // its first rune, as any rune, however far n got
			}
			w.b.WriteString(piece[i : i+run])
			w.n += run
			w.wrote = true
			i += run
			continue
		}
		r, size := utf8.DecodeRuneInString(piece[i:]) // invalid UTF-8 is U+FFFD a byte at a time, as in wordsUpTo
		i += size
		if isSpace(r) {
			w.space = w.wrote
			continue
		}
		w.spaceBefore()
		w.b.WriteRune(r)
		w.n++
		w.wrote = true
	}
	if w.out != nil && w.b.Len() >= streamBuffer {
		w.flush()
	}
}

// spaceBefore writes the space that white space before a word left.
func (w *wordsWriter) spaceBefore() {
	if w.space {
		w.b.WriteByte(' ')
		w.n++
		w.space = false
	}
}

// asciiWord is how many bytes at the start of s are ASCII and not white
// space (isSpace): runes of one byte each.
func asciiWord(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == ' ', c >= '\t' && c <= '\r':
			return i
		}
	}
	return len(s)
}

// flush writes what b holds to out (streaming).
func (w *wordsWriter) flush() {
	if w.safe {
		w.out.WriteString(text.Safe(w.b.String()))
	} else {
		w.out.WriteString(w.b.String())
	}
	w.b.Reset()
}

// words is the text of d, a lazy one written out.
func (d entryView) words() string {
	if d.lazy == nil {
		return d.text
	}
	var b strings.Builder
	d.lazy.writeTo(&b, false)
	return b.String()
}

func (w *wordsWriter) String() string { return w.b.String() }

// appendTextCells are the cells of a line's text: prefix and body, made safe
// for the terminal, as one flexible cell, which fit shrinks first. At
// width 0 nothing is cut, so they go as two cells: a body of hundreds of
// megabytes is written as it is instead of copied after its prefix.
// A lazy body (width 0 only) is a cell of its own, written as the line is.
// The two are joined in the writer's scratch space (join).
func (tw *textWriter) appendTextCells(cells []cell, prefix, body string, lazy *lazyWords) []cell {
	if lazy != nil {
		return append(cells, cell{text: text.Safe(prefix)}, cell{lazy: lazy})
	}
	if tw.opt.Width > 0 || prefix == "" || body == "" {
		return append(cells, cell{text: text.Safe(tw.join(prefix, body)), flex: true}) // nothing copied when one is ""
	}
	return append(cells, cell{text: text.Safe(prefix)}, cell{text: text.Safe(body), flex: true})
}

// joinPrefix is what join(a, sep, b) puts before b; hasB says b is not "".
// It lies in tw's scratch space.
func (tw *textWriter) joinPrefix(a, sep string, hasB bool) string {
	if a == "" || !hasB {
		return a
	}
	return tw.join(a, sep)
}

// hasText says the entry shows a text (maybe lazy).
func (d entryView) hasText() bool { return d.text != "" || d.lazy != nil }

// restPrefix is what entryView.rest puts before the text, in tw's
// scratch space.
func (d entryView) restPrefix(tw *textWriter) string {
	switch lead, colon := d.detail != "", d.hasText(); {
	case lead && colon:
		return tw.join(" ", d.detail, ": ")
	case lead:
		return tw.join(" ", d.detail)
	case colon:
		return ": "
	}
	return ""
}
