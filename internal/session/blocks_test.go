package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestDigestOfDecodes: the digest of an escaped text is that of the string
// JSON.parse reads, whichever escapes it uses.
func TestDigestOfDecodes(t *testing.T) {
	type tc struct {
		raw  []byte // the JSON string
		want string
	}
	var cases []tc
	for _, s := range []string{
		strings.Repeat("😀", 50000),
		strings.Repeat("é\n", 70000),
		strings.Repeat("a", 65535) + "😀" + "\\\"" + "b/",
		strings.Repeat("\x01\b\f\r\t", 3000),
	} {
		raw, _ := json.Marshal(s)
		cases = append(cases, tc{raw, s}, tc{asciiJSON(s), s})
	}
	cases = append(cases,
		tc{[]byte(`"\/\ud800x\udc00\ud83d\ude00\u00e9"`), "/\uFFFDx\uFFFD😀é"}, // lone surrogates, as the UTF-8 of JSON.parse's string
		tc{[]byte(`"\ud83d\u0041"`), "\uFFFDA"})
	for i, c := range cases {
		var tp Tape
		if err := tp.Build([]byte(`{"text":` + string(c.raw) + `}`)); err != nil {
			t.Fatal(err)
		}
		d := DigestOf(&tp, Block{Data: tp.Get(0, "text")})
		if d.Size != int64(len(c.want)) || d.Sum != sha256.Sum256([]byte(c.want)) {
			t.Errorf("case %d: %d bytes decoded of %d, or the sum differs", i, d.Size, len(c.want))
		}
	}
}

// asciiJSON encodes s as JSON with every non-ASCII character escaped
// (\uXXXX, surrogate pairs), as some writers do.
func asciiJSON(s string) []byte {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || r > 0x7e && r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r >= 0x10000:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.Bytes()
}
