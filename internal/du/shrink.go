package du

import (
	"github.com/pisess/pisess/internal/session"
)

// What slim --rewrite --max-bytes would take off (Options.MaxBytes): the
// blocks it selects (session.Blocks: larger than the limit, not placeholders
// already) less the placeholders it would write in their place, charged
// to the rows of the entry's line and, for an image, to its image row.

// rowsOf names the rows an entry's line was charged to.
type rowsOf struct {
	typ, role, custom, tool     string
	hasRole, hasCustom, hasTool bool
}

// shrink counts what slim --rewrite would remove from the entry on the
// tape.
func (c *counter) shrink() {
	t := &c.tape
	var total int64
	id := ""
	for b := range session.Blocks(t) {
		if b.Placeholder || b.Bytes <= c.maxBytes {
			continue
		}
		if id == "" {
			id = t.StrOf(0, "id")
		}
		saved := b.Bytes - placeholderBytes(t, b, id)
		total += saved
		if b.Kind == session.BlockImage {
			c.tally.shrink(KindImage, c.name(t.Get(b.Node, "mimeType")), saved)
		}
	}
	if total == 0 {
		return
	}
	c.tally.shrink(KindFile, "", total)
	c.tally.shrink(KindType, c.rows.typ, total)
	if c.rows.hasRole {
		c.tally.shrink(KindRole, c.rows.role, total)
	}
	if c.rows.hasCustom {
		c.tally.shrink(KindCustomType, c.rows.custom, total)
	}
	if c.rows.hasTool {
		c.tally.shrink(KindTool, c.rows.tool, total)
	}
}

// placeholderBytes is the size of the JSON slim --rewrite writes in place
// of block b of entry id: its placeholder text, whose length depends on
// the removed string's size, not on its sha256.
func placeholderBytes(t *session.Tape, b session.Block, id string) int64 {
	var size int64
	for piece := range t.StrChunks(b.Data) {
		size += int64(len(piece))
	}
	return int64(len(session.PlaceholderValue(b, session.PlaceholderText(b, session.Digest{Size: size}, id))))
}
