package fix

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"iter"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/parse"
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
		Placeholder: kind == BlockText && isPlaceholder(t.Text(data))}
}

// placeholderMark starts the text of every placeholder slim --rewrite
// writes.
const placeholderMark = "[pisess: removed "

// isPlaceholder reports whether the raw body of a text is one slim
// --rewrite could have written: the mark, a closing bracket, and shorter
// than MinSlimBytes (a placeholder must fit under the smallest
// --max-bytes). A person's long text that only starts like one is not.
func isPlaceholder(body []byte) bool {
	return len(body) < MinSlimBytes && bytes.HasPrefix(body, []byte(placeholderMark)) && bytes.HasSuffix(body, []byte("]"))
}

// Digest is the size and sha256 of the string a block held: its text, or
// an image's base64 data; the bytes `jq -j` prints of it (JSON escapes
// decoded), so that a copy of the original can be matched with sha256sum.
type Digest struct {
	Size int64
	Sum  [sha256.Size]byte
}

// DigestOf reads block b's string off its tape as it lies in the line,
// streaming: a 300 MB text or image is hashed without a copy, and an image
// is not decoded (its data need not be valid base64).
func DigestOf(t *parse.Tape, b Block) Digest {
	body := t.Text(b.Data)
	h := sha256.New()
	var d Digest
	if t.Escaped(b.Data) {
		d.Size = unescapeInto(h, body)
	} else {
		h.Write(body)
		d.Size = int64(len(body))
	}
	h.Sum(d.Sum[:0])
	return d
}

// unescapeInto writes the decoded body of a JSON string with escapes (one
// the Tape accepted) to h, the runs between escapes as they are, and
// returns the decoded size. A lone surrogate is U+FFFD, as the UTF-8 of the
// string JSON.parse returns has it.
func unescapeInto(h hash.Hash, body []byte) int64 {
	var n int64
	var buf [utf8.UTFMax]byte
	for len(body) > 0 {
		j := bytes.IndexByte(body, '\\')
		if j < 0 {
			j = len(body)
		}
		h.Write(body[:j])
		n += int64(j)
		if body = body[j:]; len(body) < 2 {
			break
		}
		r, w := unescape(body)
		k := utf8.EncodeRune(buf[:], r)
		h.Write(buf[:k])
		n += int64(k)
		body = body[w:]
	}
	return n
}

// unescape decodes the escape sequence at the start of b (a surrogate pair
// as one character) and returns it and its width.
func unescape(b []byte) (rune, int) {
	switch b[1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
	default: // \" \\ \/
		return rune(b[1]), 2
	}
	if len(b) < 6 {
		return utf8.RuneError, len(b)
	}
	r := hex4(b[2:6])
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if pair := utf16.DecodeRune(r, hex4(b[8:12])); pair != utf8.RuneError {
			return pair, 12
		}
	}
	return utf8.RuneError, 6
}

func hex4(b []byte) rune {
	v, _ := strconv.ParseUint(string(b), 16, 32)
	return rune(v)
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
		placeholderMark, what, text.Bytes(d.Size), of, d.Size, hex.EncodeToString(d.Sum[:]), entryID)
}

// EstimateSaved is about what removing block b of entry entryID saves:
// its bytes less its placeholder's (taking the string's size for the
// block's, so without reading it). A report of where the bytes are (du)
// can say what slim --rewrite would shrink with Blocks and this alone;
// slim --rewrite --dry-run reports the exact figure per kind (Removed).
func EstimateSaved(b Block, entryID string) int64 {
	return b.Bytes - int64(len(placeholderValue(b, PlaceholderText(b, Digest{Size: b.Bytes}, entryID))))
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
