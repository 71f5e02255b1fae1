package fix

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"iter"

	"github.com/pisess/pisess/internal/parse"
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
func Blocks(t *parse.Tape) iter.Seq[Block] {
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
func messageBlocks(t *parse.Tape, m int, yield func(Block) bool) bool {
	switch t.StrOf(m, "role") {
	case "user", "assistant", "toolResult", "custom":
		return contentBlocks(t, t.Get(m, "content"), yield)
	}
	return true
}

// contentBlocks yields the blocks of a content value (a string, or an array
// of blocks); false when yield stopped.
func contentBlocks(t *parse.Tape, c int, yield func(Block) bool) bool {
	if c < 0 {
		return true
	}
	if t.Kind(c) == parse.KindString {
		return yield(block(t, BlockText, c, c, ""))
	}
	for e := range t.Elements(c) {
		var b Block
		switch t.StrOf(e, "type") {
		case "text":
			d := t.Get(e, "text")
			if t.Kind(d) != parse.KindString {
				continue
			}
			b = block(t, BlockText, e, d, "")
		case "image":
			d := t.Get(e, "data")
			if t.Kind(d) != parse.KindString {
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

func block(t *parse.Tape, kind BlockKind, node, data int, mime string) Block {
	start, end := t.Span(node)
	return Block{Kind: kind, MIME: mime, Node: node, Data: data, Bytes: int64(end - start),
		Placeholder: kind == BlockText && bytes.HasPrefix(t.Text(data), []byte(placeholderMark))}
}

// placeholderMark starts the text of every placeholder slim --rewrite
// writes.
const placeholderMark = "[pisess: removed "

// Digest is the size and sha256 of what a block held: an image's bytes
// (its base64 data decoded), a text's UTF-8 bytes. AsWritten: the data is
// not valid base64 (or has JSON escapes), so the figures are of the data
// as written in the file.
type Digest struct {
	Size      int64
	Sum       [sha256.Size]byte
	AsWritten bool
}

// DigestOf reads block b's content off its tape as it lies in the line,
// streaming: a 300 MB text or image is hashed without a copy.
func DigestOf(t *parse.Tape, b Block) Digest {
	body := t.Text(b.Data)
	h := sha256.New()
	var d Digest
	switch {
	case b.Kind == BlockImage && !t.Escaped(b.Data):
		n, err := io.Copy(h, base64.NewDecoder(base64.StdEncoding, bytes.NewReader(body)))
		if err == nil {
			d.Size = n
			break
		}
		h.Reset()
		fallthrough
	case b.Kind == BlockImage:
		h.Write(body)
		d.Size, d.AsWritten = int64(len(body)), true
	case t.Escaped(b.Data):
		d.Size = unescapeInto(h, body)
	default:
		h.Write(body)
		d.Size = int64(len(body))
	}
	h.Sum(d.Sum[:0])
	return d
}

// unescapeChunk is how much of an escaped string body is decoded at once.
const unescapeChunk = 64 << 10

// unescapeInto writes the decoded body of a JSON string with escapes to h,
// a chunk at a time (each cut between escape sequences, never inside a
// surrogate pair), and returns the decoded size.
func unescapeInto(h hash.Hash, body []byte) int64 {
	var n int64
	var quoted []byte
	var s string
	for pos := 0; pos < len(body); {
		end := cutAfter(body, pos, pos+unescapeChunk)
		quoted = append(append(append(quoted[:0], '"'), body[pos:end]...), '"')
		s = ""
		_ = json.Unmarshal(quoted, &s) // the Tape accepted the string: its pieces decode
		h.Write([]byte(s))
		n += int64(len(s))
		pos = end
	}
	return n
}

// cutAfter returns the first place at or after want (or len(body)) where
// body, a string body from pos, can be cut: not inside an escape sequence,
// nor between the halves of a surrogate pair.
func cutAfter(body []byte, pos, want int) int {
	i := pos
	for i < len(body) {
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 || i+j >= want {
			return runeStart(body, min(max(want, i), len(body)))
		}
		i += j
		if body[i+1] != 'u' {
			i += 2
			continue
		}
		high := i+6 <= len(body) && isHighSurrogate(body[i+2:i+6])
		i += 6
		if high && i+1 < len(body) && body[i] == '\\' && body[i+1] == 'u' {
			i += 6
		}
		if i >= want {
			return min(i, len(body))
		}
	}
	return len(body)
}

// runeStart moves i forward to the start of a UTF-8 character (a cut must
// not split one: each piece is decoded on its own).
func runeStart(body []byte, i int) int {
	for i < len(body) && body[i]&0xc0 == 0x80 {
		i++
	}
	return i
}

func isHighSurrogate(hex4 []byte) bool {
	var v [2]byte
	if _, err := hex.Decode(v[:], hex4); err != nil {
		return false
	}
	return v[0] >= 0xd8 && v[0] <= 0xdb
}

// PlaceholderText is what a removed block becomes: what it was, its size
// and sha256, and the entry it was removed from, e.g.
//
//	[pisess: removed image/png, 4.1 MiB (4299161 bytes, sha256:9f2c…), from entry 3fc31a98]
func PlaceholderText(b Block, d Digest, entryID string) string {
	what := string(b.Kind)
	if b.Kind == BlockImage {
		what = "image"
		if b.MIME != "" {
			what = b.MIME
		}
	}
	of := ""
	if d.AsWritten {
		of = " of data that is not valid base64, as written"
	}
	if len(entryID) > 64 {
		entryID = entryID[:64] + "…"
	}
	return fmt.Sprintf("%s%s, %s%s (%d bytes, sha256:%s), from entry %s]",
		placeholderMark, what, byteSize(int(d.Size)), of, d.Size, hex.EncodeToString(d.Sum[:]), entryID)
}

// placeholderValue is the JSON that replaces block b: a text block, or a
// string where the content was one string.
func placeholderValue(b Block, text string) []byte {
	q := jsonString(text)
	if b.Node == b.Data {
		return q
	}
	return append(append([]byte(`{"type":"text","text":`), q...), '}')
}
