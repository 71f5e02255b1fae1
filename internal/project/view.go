package project

import (
	"bytes"
	"encoding/json"
	"io"
)

// The JSON documents of cli.md for tree, path and context. Their required
// fields are the contract; the others are extensions.

// PathView is `pisess path --format json`.
type PathView struct {
	Leaf    *string     `json:"leaf"`
	Entries []PathEntry `json:"entries"`
}

// PathEntry is one entry of a PathView.
type PathEntry struct {
	ID        string  `json:"id"`
	Type      string  `json:"type"`
	ParentID  *string `json:"parentId"`
	Timestamp string  `json:"timestamp"`
	Line      int     `json:"line"`
	Label     *string `json:"label"`
	Summary   string  `json:"summary"`
}

// PathView returns the path of leaf as a JSON document.
func (s *Session) PathView(leaf *Entry) (*PathView, error) {
	path, err := s.Path(leaf)
	if err != nil {
		return nil, err
	}
	v := &PathView{Leaf: idOf(leaf), Entries: make([]PathEntry, 0, len(path))}
	for _, e := range path {
		v.Entries = append(v.Entries, PathEntry{
			ID: e.ID, Type: e.Type, ParentID: optional(e.ParentID), Timestamp: e.Timestamp,
			Line: e.Line, Label: s.labelOf(e), Summary: Summary(e),
		})
	}
	return v, nil
}

// ContextView is `pisess context --format json`.
type ContextView struct {
	Leaf          *string           `json:"leaf"`
	Model         *Model            `json:"model"`
	ThinkingLevel json.RawMessage   `json:"thinkingLevel,omitempty"`
	Messages      []json.RawMessage `json:"messages"`
	EntryIDs      []string          `json:"entryIds"` // the entry behind each message
	// EstimatedTokens is pi's estimateContextTokens of the messages.
	EstimatedTokens int        `json:"estimatedTokens"`
	Unpaired        []Unpaired `json:"unpaired"` // rule-6 problems
}

// View returns the context as a JSON document.
func (c *Context) View() *ContextView {
	v := &ContextView{
		Leaf:            idOf(c.Leaf),
		Model:           c.Model,
		ThinkingLevel:   c.ThinkingLevel,
		Messages:        c.Messages,
		EntryIDs:        c.EntryIDs(),
		EstimatedTokens: ContextTokens(c.Messages),
		Unpaired:        c.Unpaired,
	}
	if v.Messages == nil {
		v.Messages = []json.RawMessage{}
	}
	if v.Unpaired == nil {
		v.Unpaired = []Unpaired{}
	}
	return v
}

// TreeView is `pisess tree --format json`:
// {"leaf":ID,"roots":[{"id","type","label","children":[…]}…]} where each node
// also has parentId, timestamp, line, summary and onPath. Entries no root
// reaches (a parentId cycle) are listed flat under "detached". It marshals
// without recursion, so a 100,000-deep chain is fine.
type TreeView struct {
	Tree   *Tree
	Leaf   *Entry
	OnPath map[*Entry]bool
}

// TreeView returns the tree with leaf's path marked. A leaf whose parent
// links form a cycle marks nothing (its entries are detached).
func (s *Session) TreeView(leaf *Entry) *TreeView {
	v := &TreeView{Tree: s.Tree(), Leaf: leaf, OnPath: map[*Entry]bool{}}
	if path, err := s.Path(leaf); err == nil {
		for _, e := range path {
			v.OnPath[e] = true
		}
	}
	return v
}

// WriteTo writes the JSON document (no trailing newline). Use it rather than
// json.Marshal for deep trees: encoding/json re-scans what MarshalJSON
// returns and refuses nesting deeper than 10,000 levels (a chain of about
// 5,000 entries).
func (v *TreeView) WriteTo(w io.Writer) (int64, error) {
	b := v.bytes()
	n, err := w.Write(b)
	return int64(n), err
}

// MarshalJSON returns the JSON document (see WriteTo for deep trees).
func (v *TreeView) MarshalJSON() ([]byte, error) { return v.bytes(), nil }

// bytes writes the nested tree with an explicit stack.
func (v *TreeView) bytes() []byte {
	var b bytes.Buffer
	b.WriteString(`{"leaf":`)
	writeJSON(&b, idOf(v.Leaf))
	b.WriteString(`,"roots":[`)
	type frame struct {
		n    *Node
		next int // next child to write; -1 before the node's own fields
	}
	for r, root := range v.Tree.Roots {
		if r > 0 {
			b.WriteByte(',')
		}
		stack := []frame{{root, -1}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			switch {
			case f.next < 0:
				v.writeNodeHead(&b, f.n)
				b.WriteString(`,"children":[`)
				f.next = 0
			case f.next < len(f.n.Children):
				if f.next > 0 {
					b.WriteByte(',')
				}
				child := f.n.Children[f.next]
				f.next++
				stack = append(stack, frame{child, -1})
			default:
				b.WriteString("]}")
				stack = stack[:len(stack)-1]
			}
		}
	}
	b.WriteByte(']')
	if len(v.Tree.Detached) > 0 {
		b.WriteString(`,"detached":[`)
		for i, e := range v.Tree.Detached {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(&b, PathEntry{ID: e.ID, Type: e.Type, ParentID: optional(e.ParentID),
				Timestamp: e.Timestamp, Line: e.Line, Summary: Summary(e)})
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

// writeNodeHead writes a node's opening brace and fields, up to (not
// including) its children.
func (v *TreeView) writeNodeHead(b *bytes.Buffer, n *Node) {
	var label *string
	if n.HasLabel {
		label = &n.Label
	}
	head := struct {
		ID        string  `json:"id"`
		Type      string  `json:"type"`
		ParentID  *string `json:"parentId"`
		Timestamp string  `json:"timestamp"`
		Line      int     `json:"line"`
		Label     *string `json:"label"`
		Summary   string  `json:"summary"`
		OnPath    bool    `json:"onPath"`
	}{n.Entry.ID, n.Entry.Type, optional(n.Entry.ParentID), n.Entry.Timestamp, n.Entry.Line, label, Summary(n.Entry), v.OnPath[n.Entry]}
	var obj bytes.Buffer
	writeJSON(&obj, head)
	b.Write(bytes.TrimSuffix(obj.Bytes(), []byte{'}'}))
}

// writeJSON encodes a value without HTML escaping and without a newline.
func writeJSON(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the values written here always encode
	b.Truncate(b.Len() - 1)
}

func (s *Session) labelOf(e *Entry) *string {
	if l, ok := s.Label(e.ID); ok && e.ID != "" {
		return &l
	}
	return nil
}

func idOf(e *Entry) *string {
	if e == nil {
		return nil
	}
	return &e.ID
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
