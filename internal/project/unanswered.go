package project

import "github.com/pisess/pisess/internal/session"

// Unanswered returns the tool calls the context ends waiting for (see
// session.Unanswered).
func (c *Context) Unanswered() []Unpaired {
	return session.Unanswered(turnsOf(c.Messages, c.Sources))
}
