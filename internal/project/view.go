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
		id := c.Leaf.ID()
		v.Leaf = &id
	}
	if v.Messages == nil {
		v.Messages = []json.RawMessage{}
	}
	if v.Unpaired == nil {
		v.Unpaired = []Unpaired{}
	}
	return v
}
