package session

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"

	"github.com/pisess/pisess/internal/text"
)

// BlockKind is what a content block holds.
type BlockKind string

// The kinds of block slim --rewrite removes.
const (
	BlockText  BlockKind = "text"  // a text block, or a message's content given as one string
	BlockImage BlockKind = "image" // an image block (base64 data)
)

// Block is one content block of an entry that pi 1.6.0 sends the model:
// a text or image block of the content of a user, assistant, toolResult or
// custom message (in a message entry or a compaction's retainedTail), or
// of a custom_message entry; a content given as one string is one text
// block. Thinking blocks, tool calls, a bash execution's output, summaries
// and a tool result's details are not blocks.
type Block struct {
	Kind BlockKind
	MIME string // an image's mimeType (at most 64 bytes of it; "" for text)
	// Node is the value slim --rewrite replaces: the block object, or the
	// string of a content given as one string.
	Node int
	// Data is the string node holding the bulk: the text, or the image's
	// base64 data.
	Data int
	// Bytes is Node's size as written in the line.
	Bytes int64
	// Placeholder reports that the block is already slim --rewrite's
	// placeholder (it is never selected again).
	Placeholder bool
}

// Blocks yields the content blocks of the entry laid on t, in document
// order. It is the selection of slim --rewrite (which replaces the blocks
// over --max-bytes that are not placeholders) and what a size report
// counts by kind.
func Blocks(t *Tape) iter.Seq[Block] {
	return func(yield func(Block) bool) {
		switch t.StrOf(0, "type") {
		case "message":
			messageBlocks(t, t.Get(0, "message"), yield)
		case "custom_message":
			contentBlocks(t, t.Get(0, "content"), yield)
		case "compaction":
			for m := range t.Elements(t.Get(0, "retainedTail")) {
				if !messageBlocks(t, m, yield) {
					return
				}
			}
		}
	}
}

// messageBlocks yields the blocks of message m when pi sends its content
// (roles user, assistant, toolResult and custom); false when yield stopped.
func messageBlocks(t *Tape, m int, yield func(Block) bool) bool {
	switch t.StrOf(m, "role") {
	case "user", "assistant", "toolResult", "custom":
		return contentBlocks(t, t.Get(m, "content"), yield)
	}
	return true
}

// contentBlocks yields the blocks of a content value (a string, or an array
// of blocks); false when yield stopped.
func contentBlocks(t *Tape, c int, yield func(Block) bool) bool {
	if c < 0 {
		return true
	}
	if t.Kind(c) == KindString {
		return yield(block(t, BlockText, c, c, ""))
	}
	for e := range t.Elements(c) {
		var b Block
		switch t.StrOf(e, "type") {
		case "text":
			d := t.Get(e, "text")
			if t.Kind(d) != KindString {
				continue
			}
			b = block(t, BlockText, e, d, "")
		case "image":
			d := t.Get(e, "data")
			if t.Kind(d) != KindString {
				continue
			}
			b = block(t, BlockImage, e, d, t.StrPrefix(t.Get(e, "mimeType"), 64))
		default:
			continue
		}
		if !yield(b) {
			return false
		}
	}
	return true
}

func block(t *Tape, kind BlockKind, node, data int, mime string) Block {
	start, end := t.Span(node)
	return Block{Kind: kind, MIME: mime, Node: node, Data: data, Bytes: int64(end - start),
		Placeholder: kind == BlockText && IsPlaceholder(t.Text(data))}
}

// MinSlimBytes is the smallest --max-bytes of slim and du: a placeholder
// must fit.
const MinSlimBytes = 1024

// PlaceholderMark starts the text of every placeholder slim --rewrite
// writes.
const PlaceholderMark = "[pisess: removed "

// IsPlaceholder reports whether the raw body of a text is one slim
// --rewrite could have written: the mark, a closing bracket, and shorter
// than MinSlimBytes (a placeholder must fit under the smallest
// --max-bytes). A person's long text that only starts like one is not.
func IsPlaceholder(body []byte) bool {
	return len(body) < MinSlimBytes && bytes.HasPrefix(body, []byte(PlaceholderMark)) && bytes.HasSuffix(body, []byte("]"))
}

// Digest is the size and sha256 of the string a block held: its text, or
// an image's base64 data; the bytes `jq -j` prints of it (JSON escapes
// decoded), so that a copy of the original can be matched with sha256sum.
type Digest struct {
	Size int64
	Sum  [sha256.Size]byte
}

// DigestOf reads block b's string off its tape in pieces (Chunks): a
// 300 MB text or image is hashed without a decoded copy of it, and an image
// is not decoded (its data need not be valid base64).
func DigestOf(t *Tape, b Block) Digest {
	h := sha256.New()
	var d Digest
	for piece := range t.Chunks(b.Data) {
		h.Write(piece)
		d.Size += int64(len(piece))
	}
	h.Sum(d.Sum[:0])
	return d
}

// PlaceholderText is what a removed block becomes: what it was, the size
// and sha256 of its string, and the entry it was removed from, e.g.
//
//	[pisess: removed image/png, 5.5 MiB of base64 (5767168 bytes, sha256:9f2c…), from entry 3fc31a98]
//	[pisess: removed text, 1.2 MiB (1258291 bytes, sha256:…), from entry 5e1f0c2d]
func PlaceholderText(b Block, d Digest, entryID string) string {
	what, of := "text", ""
	if b.Kind == BlockImage {
		what, of = cmp.Or(b.MIME, "image"), " of base64"
	}
	if len(entryID) > 64 {
		entryID = entryID[:64] + "…"
	}
	return fmt.Sprintf("%s%s, %s%s (%d bytes, sha256:%s), from entry %s]",
		PlaceholderMark, what, text.Bytes(d.Size), of, d.Size, hex.EncodeToString(d.Sum[:]), entryID)
}

// PlaceholderValue is the JSON that replaces block b: a text block, or a
// string where the content was one string.
func PlaceholderValue(b Block, text string) []byte {
	q := Quote(text)
	if b.Node == b.Data {
		return q
	}
	return append(append([]byte(`{"type":"text","text":`), q...), '}')
}
