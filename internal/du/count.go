package du

import (
	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// counter counts the lines of batches into its tally, one worker's.
type counter struct {
	tally    tally
	tape     session.Tape
	cls      session.Classifier
	maxBytes int64  // > 0: count what slim --rewrite would remove
	rows     rowsOf // the rows the entry being counted was charged to
}

func newCounter(maxBytes int64) *counter { return &counter{tally: tally{}, maxBytes: maxBytes} }

func (c *counter) count(b *batch) {
	for i := range b.items {
		it := &b.items[i]
		c.line(b.arena[it.start:it.end], it)
	}
	if b.own {
		c.forget()
	}
}

// forget lets go of the line the tape was built on (a long line's own
// buffer), and of the row names read off it (views of its bytes): the
// next long line is then read into memory this one leaves.
func (c *counter) forget() { c.tape, c.rows = session.Tape{}, rowsOf{} }

// line counts one physical line: an entry when it holds exactly one
// object, else what the classifier calls it.
func (c *counter) line(raw []byte, it *item) {
	if it.tooLong {
		c.notEntry(it.verdict, it.size)
		return
	}
	if _, ok := c.tape.Line(raw); ok {
		c.entry(it.size)
		return
	}
	v := c.cls.Classify(raw, it.atEOF)
	if v.Class != session.Object {
		c.notEntry(v, it.size)
		return
	}
	span := v.Objects[0]
	if c.tape.Build(raw[span[0]:span[1]]) != nil { // the one way an object fails: too deep
		c.tally.add(KindInvalid, string(finding.TooDeep), it.size, 1)
		return
	}
	c.entry(it.size)
}

// notEntry counts a line that holds no one entry under its class.
func (c *counter) notEntry(v session.Verdict, size int64) {
	switch v.Class {
	case session.Blank:
		c.tally.add(KindBlank, "", size, 1)
	case session.PartialTail:
		c.tally.add(KindTorn, string(finding.PartialTail), size, 1)
	case session.TornLine:
		c.tally.add(KindTorn, string(finding.TornLine), size, 1)
	case session.Concatenated:
		c.tally.add(KindInvalid, string(finding.ConcatenatedObjects), size, 1)
	default:
		c.tally.add(KindInvalid, string(v.Code), size, 1)
	}
}

// entry counts the entry on the tape, a line of size bytes.
func (c *counter) entry(size int64) {
	t := &c.tape
	typ, msg, custom := -1, -1, -1
	for k, v := range t.Members(0) {
		switch {
		case t.KeyIs(k, "type"):
			typ = v
		case t.KeyIs(k, "message"):
			msg = v
		case t.KeyIs(k, "customType"):
			custom = v
		}
	}
	name := c.name(typ)
	c.tally.add(KindType, name, size, 1)
	c.rows = rowsOf{typ: name}
	switch name {
	case "message":
		if t.Kind(msg) == session.KindObject {
			c.message(msg, size)
		}
	case "custom", "custom_message":
		c.rows.custom, c.rows.hasCustom = c.name(custom), true
		c.tally.add(KindCustomType, c.rows.custom, size, 1)
	}
	c.images()
	if c.maxBytes > 0 {
		c.shrink()
	}
}

// message counts message object msg of a line of size bytes: its role,
// and a tool result's output or an assistant's tool calls.
func (c *counter) message(msg int, size int64) {
	t := &c.tape
	role, tool, content, details := -1, -1, -1, -1
	for k, v := range t.Members(msg) {
		switch {
		case t.KeyIs(k, "role"):
			role = v
		case t.KeyIs(k, "toolName"):
			tool = v
		case t.KeyIs(k, "content"):
			content = v
		case t.KeyIs(k, "details"):
			details = v
		}
	}
	name := c.name(role)
	c.tally.add(KindRole, name, size, 1)
	c.rows.role, c.rows.hasRole = name, true
	switch name {
	case "toolResult":
		c.rows.tool, c.rows.hasTool = c.name(tool), true
		c.tally.add(KindTool, c.rows.tool, c.bytes(content)+c.bytes(details), 1)
	case "assistant":
		c.toolCalls(content)
	}
}

// toolCalls counts the toolCall blocks of content, by name, with the
// bytes of their arguments.
func (c *counter) toolCalls(content int) {
	t := &c.tape
	for block := range t.Elements(content) {
		if t.StrOf(block, "type") != "toolCall" {
			continue
		}
		c.tally.add(KindToolCall, c.name(t.Get(block, "name")), c.bytes(t.Get(block, "arguments")), 1)
	}
}

// images counts every image block on the tape, however deep (a tool's
// details may nest them): an object whose type is "image" with a string
// data, charged the bytes of the data as written.
func (c *counter) images() {
	t := &c.tape
	for n, end := 0, t.Skip(0); n < end; n++ {
		if t.Kind(n) != session.KindObject {
			continue
		}
		typ, data, mime := -1, -1, -1
		for k, v := range t.Members(n) {
			switch {
			case t.KeyIs(k, "type"):
				typ = v
			case t.KeyIs(k, "data"):
				data = v
			case t.KeyIs(k, "mimeType"):
				mime = v
			}
		}
		if t.Kind(data) == session.KindString {
			if s, _ := t.Str(typ); s == "image" {
				c.tally.add(KindImage, c.name(mime), int64(len(t.Text(data))), 1)
			}
		}
	}
}

// name is string node n, or NoName when n is no string (an empty string
// is a name too).
func (c *counter) name(n int) string {
	if s, ok := c.tape.Str(n); ok {
		return s
	}
	return NoName
}

// bytes is the size of node n as written (0 when absent).
func (c *counter) bytes(n int) int64 {
	if n < 0 {
		return 0
	}
	start, end := c.tape.Span(n)
	return int64(end - start)
}
