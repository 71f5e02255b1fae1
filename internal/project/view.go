package project

import "encoding/json"

// ContextView is the data of `pisess context --format json` (cli.md), for
// callers that marshal it themselves; the command writes it with
// render.ContextJSON.
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
		Model:           c.Model,
		ThinkingLevel:   c.ThinkingLevel,
		Messages:        c.Messages,
		EntryIDs:        c.EntryIDs(),
		EstimatedTokens: ContextTokens(c.Messages),
		Unpaired:        c.Unpaired,
	}
	if c.Leaf != nil {
		v.Leaf = &c.Leaf.ID
	}
	if v.Messages == nil {
		v.Messages = []json.RawMessage{}
	}
	if v.Unpaired == nil {
		v.Unpaired = []Unpaired{}
	}
	return v
}

// TreeView is the tree with the leaf's path marked.
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
