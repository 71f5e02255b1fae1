package fix

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// FuzzPlaceholders: whatever an entry holds, replacing every block session.Blocks
// finds by its placeholder writes one valid JSON object whose blocks are
// then all placeholders, and nothing outside the blocks changes size.
func FuzzPlaceholders(f *testing.F) {
	for _, seed := range []string{
		msgEntry("a", "", userMsg(`[{"type":"text","text":"x\n\u00e9\ud83d\ude00"},{"type":"image","data":"QQ==","mimeType":"image/png"}]`)),
		msgEntry("a", "", userMsg(`"just a string \"quoted\""`)),
		msgEntry("a", "", `{"role":"user","content":[{"type":"text","text":"a","text":"b"}],"content":"last"}`),
		`{"type":"custom_message","id":"a","parentId":null,"timestamp":"t","customType":"x","content":[{"type":"image","data":"\/\/"}],"display":true}`,
		`{"type":"compaction","id":"a","parentId":null,"timestamp":"t","summary":"s","firstKeptEntryId":"a","tokensBefore":1,"retainedTail":[{"role":"toolResult","content":[{"type":"text","text":"x"}]},{"role":"custom","content":"y"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var tp session.Tape
		if _, ok := tp.Line(line); !ok {
			return
		}
		var ed session.Editor
		ed.Reset(&tp)
		n := 0
		for b := range session.Blocks(&tp) {
			ed.Replace(b.Node, session.PlaceholderValue(b, session.PlaceholderText(b, session.DigestOf(&tp, b), tp.StrOf(0, "id"))))
			n++
		}
		var out bytes.Buffer
		if _, err := ed.WriteTo(&out); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if !json.Valid(out.Bytes()) {
			t.Fatalf("not JSON: %s", out.Bytes())
		}
		var again session.Tape
		if err := again.Build(out.Bytes()); err != nil {
			t.Fatal(err)
		}
		m := 0
		for b := range session.Blocks(&again) {
			if !b.Placeholder {
				t.Errorf("a block is not a placeholder after: %s", again.Raw(b.Node))
			}
			m++
		}
		if m != n {
			t.Errorf("%d blocks before, %d after", n, m)
		}
	})
}
