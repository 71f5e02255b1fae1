package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
)

// The JSON documents of tree, path and context (cli.md), all written by
// one streaming writer: one line, no HTML escaping (text from a file keeps
// its <, > and &), raw values from the file copied byte for byte.

// jsonWriter writes one JSON document as it goes.
type jsonWriter struct {
	w     *bufio.Writer
	comma bool // a value ends just before: the next one needs a comma
	// scratch and summary hold a value being made (a number or a
	// timestamp; an entry's summary) until it is written: one buffer
	// each, reused, rather than a string for every entry.
	scratch, summary []byte
}

func newJSONWriter(w io.Writer) *jsonWriter { return &jsonWriter{w: bufio.NewWriter(w)} }

func (j *jsonWriter) sep() {
	if j.comma {
		j.w.WriteByte(',')
	}
	j.comma = false
}

// open starts an object ('{') or an array ('[').
func (j *jsonWriter) open(c byte) {
	j.sep()
	j.w.WriteByte(c)
}

// close ends an object ('}') or an array (']').
func (j *jsonWriter) close(c byte) {
	j.w.WriteByte(c)
	j.comma = true
}

// key writes a member name and its colon.
func (j *jsonWriter) key(k string) {
	j.sep()
	j.quote(k)
	j.w.WriteByte(':')
}

func (j *jsonWriter) str(s string) {
	j.sep()
	j.quote(s)
	j.comma = true
}

// optStr writes s, or null when it is "".
func (j *jsonWriter) optStr(s string) {
	if s == "" {
		j.literal("null")
		return
	}
	j.str(s)
}

func (j *jsonWriter) int(n int) {
	j.scratch = strconv.AppendInt(j.scratch[:0], int64(n), 10)
	j.raw(j.scratch)
}

func (j *jsonWriter) bool(b bool) { j.literal(strconv.FormatBool(b)) }

// raw writes a JSON value as it is.
func (j *jsonWriter) raw(b []byte) {
	j.sep()
	j.w.Write(b)
	j.comma = true
}

// literal is raw for a value written as a string.
func (j *jsonWriter) literal(v string) {
	j.sep()
	j.w.WriteString(v)
	j.comma = true
}

// quote writes s as encoding/json does without HTML escaping
// (session.AppendGoQuote), appended to what the writer has buffered.
func (j *jsonWriter) quote(s string) {
	j.w.Write(session.AppendGoQuote(j.w.AvailableBuffer(), s))
}

// end finishes the document with a newline.
func (j *jsonWriter) end() error {
	j.w.WriteByte('\n')
	return j.w.Flush()
}

// openEntry opens an entry's object and writes the members every entry
// has in the tree and path documents: id, type, parentId, timestamp, line,
// label, summary.
func (j *jsonWriter) openEntry(s *project.Session, rd *project.RecordReader, e *project.Entry, labelled bool) error {
	summary, err := appendSummary(j.summary[:0], s, rd, e)
	if err != nil {
		return err
	}
	j.summary = summary
	j.open('{')
	j.key("id")
	j.optStr(e.ID()) // null without a string id, as parentId
	j.key("type")
	j.str(e.Type())
	j.key("parentId")
	j.optStr(e.ParentID())
	j.key("timestamp")
	j.scratch = e.AppendTimestamp(j.scratch[:0])
	j.str(bytesString(j.scratch))
	j.key("line")
	j.int(e.Line)
	j.key("label")
	if l, ok := s.Label(e.ID()); ok && labelled && e.ID() != "" {
		j.str(l)
	} else {
		j.literal("null")
	}
	j.key("summary")
	j.str(bytesString(j.summary))
	return nil
}

// PathJSON writes `pisess path --format json`:
// {"leaf":ID,"entries":[{"id","type","parentId","timestamp","line","label","summary"}…]}.
func PathJSON(w io.Writer, s *project.Session, leaf *project.Entry, path []*project.Entry) error {
	j := newJSONWriter(w)
	j.open('{')
	j.key("leaf")
	j.leafID(leaf)
	j.key("entries")
	j.open('[')
	if err := j.w.Flush(); err != nil {
		return err
	}
	readers := &readerPool{s: s}
	err := inChunks(w, len(path), chunkItems, func(w io.Writer, from, to int) error {
		j := newJSONWriter(w)
		j.comma = from > 0
		rd := readers.get()
		defer readers.put(rd)
		for _, e := range path[from:to] {
			if err := j.openEntry(s, rd, e, true); err != nil {
				return err
			}
			j.close('}')
		}
		return j.w.Flush()
	})
	if err != nil {
		return err
	}
	j.close(']')
	j.close('}')
	return j.end()
}

func (j *jsonWriter) leafID(leaf *project.Entry) {
	if leaf == nil {
		j.literal("null")
		return
	}
	j.optStr(leaf.ID()) // null when it has no string id: --leaf could not name it
}

// TreeJSON writes `pisess tree --format json`:
// {"leaf":ID,"roots":[{"id","type","parentId","timestamp","line","label","summary","onPath","children":[…]}…]}
// and, for entries no root reaches (a parentId cycle), "detached":[…] with
// the members of a path entry. It nests without recursion: any depth is
// fine.
func TreeJSON(w io.Writer, s *project.Session, leaf *project.Entry) error {
	t := s.Tree()
	onPath := pathSet(s, leaf)
	j := newJSONWriter(w)
	j.open('{')
	j.key("leaf")
	j.leafID(leaf)
	j.key("roots")
	j.open('[')
	if err := j.w.Flush(); err != nil {
		return err
	}
	items := treeItems(t, len(s.Entries))
	readers := &readerPool{s: s}
	err := inChunks(w, len(items), chunkItems, func(w io.Writer, from, to int) error {
		j := newJSONWriter(w)
		rd := readers.get()
		defer readers.put(rd)
		for _, it := range items[from:to] {
			j.comma = it.comma
			if err := j.nodeHead(s, rd, s.Entries[it.n], onPath); err != nil {
				return err
			}
			for range it.closes {
				j.close(']')
				j.close('}')
			}
		}
		return j.w.Flush()
	})
	if err != nil {
		return err
	}
	j.close(']')
	if len(t.Detached) > 0 {
		j.key("detached")
		j.open('[')
		rd := s.Records()
		for _, e := range t.Detached {
			if err := j.openEntry(s, rd, e, false); err != nil {
				return err
			}
			j.close('}')
		}
		j.close(']')
	}
	j.close('}')
	return j.end()
}

// jsonNode is a node of the tree document in the order it is written: a
// comma before it (not the first of its siblings), then its head, then
// the closing brackets of closes nodes whose children end there.
type jsonNode struct {
	n      int32 // entry index
	comma  bool
	closes int32
}

// treeItems lays the tree document out depth first, without recursion.
// A node's last child takes its frame, owing its closing bracket: the
// stack holds only the branch points with children still to write, not
// every level (a session's chain of 300,000 entries grew it to 300,000
// frames, 13 MB of garbage a run).
func treeItems(t *project.Tree, entries int) []jsonNode {
	type frame struct{ n, next, closes int32 } // a node, the index of its next child to write, the brackets owed when it ends
	items := make([]jsonNode, 0, entries)
	var stack []frame // no pointers: a deep tree's stack costs the collector nothing
	for r, root := range t.Roots {
		items = append(items, jsonNode{n: root, comma: r > 0})
		stack = append(stack[:0], frame{n: root})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			kids := t.Children(int(f.n))
			if int(f.next) == len(kids) {
				items[len(items)-1].closes += 1 + f.closes
				stack = stack[:len(stack)-1]
				continue
			}
			child := kids[f.next]
			items = append(items, jsonNode{n: child, comma: f.next > 0})
			if f.next++; int(f.next) == len(kids) {
				*f = frame{n: child, closes: f.closes + 1}
			} else {
				stack = append(stack, frame{n: child})
			}
		}
	}
	return items
}

// nodeHead opens a tree node and writes its members up to its children's
// opening bracket.
func (j *jsonWriter) nodeHead(s *project.Session, rd *project.RecordReader, e *project.Entry, onPath []bool) error {
	if err := j.openEntry(s, rd, e, true); err != nil {
		return err
	}
	j.key("onPath")
	j.bool(onPath != nil && onPath[e.Index])
	j.key("children")
	j.open('[')
	return nil
}

// pathSet marks the entries on leaf's path by index; nil when there is no
// path (no leaf, or a parentId cycle above it).
func pathSet(s *project.Session, leaf *project.Entry) []bool {
	path, err := s.Path(leaf)
	if err != nil || leaf == nil {
		return nil
	}
	on := make([]bool, len(s.Entries))
	for _, e := range path {
		on[e.Index] = true
	}
	return on
}

// ContextJSON writes `pisess context --format json`:
// {"leaf","model","thinkingLevel","messages","entryIds","estimatedTokens","unpaired"}
// ("models", role → "provider/id", after "model" for oh-my-pi files),
// each message exactly as the projection returned it (the file's own bytes
// for message entries: no re-encoding, no HTML escaping, numbers
// untouched), each problem as project.Unpaired marshals.
func ContextJSON(w io.Writer, c *project.Context) error {
	j := newJSONWriter(w)
	j.open('{')
	j.key("leaf")
	j.leafID(c.Leaf)
	j.key("model")
	j.model(c.Model)
	if len(c.Models) > 0 { // an oh-my-pi file: its model per role
		names := c.ModelNames()
		j.key("models")
		j.open('{')
		for _, m := range c.Models {
			j.key(m.Role)
			j.str(names[m.Role])
		}
		j.close('}')
	}
	if len(c.ThinkingLevel) > 0 {
		j.key("thinkingLevel")
		j.raw(c.ThinkingLevel)
	}
	j.key("messages")
	j.open('[')
	for _, m := range c.Messages {
		j.raw(m)
	}
	j.close(']')
	j.key("entryIds")
	j.open('[')
	for _, e := range c.Sources {
		j.optStr(e.ID())
	}
	j.close(']')
	j.key("estimatedTokens")
	j.int(project.ContextTokens(c.Messages))
	j.key("unpaired")
	j.open('[')
	for _, u := range c.Unpaired {
		var b bytes.Buffer
		_ = encodeJSON(&b, u) // its strings and numbers always encode
		j.raw(b.Bytes())
	}
	j.close(']')
	j.close('}')
	return j.end()
}

// model writes the active model: null, or its provider and modelId as
// the entry holds them (an absent one left out).
func (j *jsonWriter) model(m *project.Model) {
	if m == nil {
		j.literal("null")
		return
	}
	j.open('{')
	for _, f := range []struct {
		name  string
		value []byte
	}{{"provider", m.Provider}, {"modelId", m.ModelID}} {
		if len(f.value) > 0 {
			j.key(f.name)
			var b bytes.Buffer
			if json.Compact(&b, f.value) != nil {
				b.Reset()
				b.Write(f.value)
			}
			j.raw(b.Bytes())
		}
	}
	j.close('}')
}
