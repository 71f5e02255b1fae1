package project

import (
	"strconv"

	"github.com/pisess/pisess/internal/session"
)

// contentBlock is one block of a message's content array, read from a
// tape (strings share the tape's input). A member that is not a string
// reads as nil (Text, Thinking, Name) or "" (Type, ID).
type contentBlock struct {
	Type, ID             string
	Text, Thinking, Name *string
	Arguments            []byte // raw JSON; nil when absent
}

// blocksOf reads a content value that is an array of blocks; a string or
// anything else gives no blocks. Elements that are not objects give empty
// blocks.
func blocksOf(t *session.Tape, content int) []contentBlock {
	var blocks []contentBlock
	for el := range t.Elements(content) {
		str := func(key string) *string {
			if s, ok := t.Str(t.Get(el, key)); ok {
				return &s
			}
			return nil
		}
		blocks = append(blocks, contentBlock{
			Type: t.StrOf(el, "type"), ID: t.StrOf(el, "id"),
			Text: str("text"), Thinking: str("thinking"), Name: str("name"),
			Arguments: t.Raw(t.Get(el, "arguments")),
		})
	}
	return blocks
}

// jsNumberValue reads a raw JSON number as JavaScript does; ok is false
// for anything that is not a number literal.
func jsNumberValue(raw []byte) (float64, bool) {
	if c := firstByte(raw); c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}
