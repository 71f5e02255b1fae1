package validate

import (
	"io/fs"
	"testing"

	"github.com/pisess/pisess/schema"
)

// TestQuickSwitch: the content blocks' allOf is read as a switch, and the
// switch gives the verdict the allOf gives, member by member: on the
// shapes an if can trip on (a duplicate or escaped key, a key that is no
// string, none at all, a value that is no object).
func TestQuickSwitch(t *testing.T) {
	c := newQuickCompiler()
	for _, name := range schema.Names() {
		src, err := fs.ReadFile(schema.FS(), name+".json")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.add(name+".json", src); err != nil {
			t.Fatal(err)
		}
	}
	var blocks []*quickSchema
	for _, def := range []string{"userBlock", "assistantBlock", "anyBlock", "agentMessage"} {
		s, err := c.compile("defs.json", "/$defs/"+def)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, s)
	}
	c.number(nil) // the key tables by number, as CompileSchemas makes them
	for i, def := range []string{"userBlock", "assistantBlock", "anyBlock", "agentMessage"} {
		s := blocks[i]
		if s.cases == nil || len(s.cases.cases) != len(s.allOf) {
			t.Fatalf("%s: allOf not read as a switch", def)
		}
		// The allOf alone: the rest of the schema must not hide a difference.
		sw := &quickSchema{minLength: -1, allOf: s.allOf, cases: s.cases}
		plain := &quickSchema{minLength: -1, allOf: s.allOf}
		for _, line := range []string{
			`{"type":"text","text":"hi"}`,
			`{"type":"text"}`,
			`{"type":"text","text":1}`,
			`{"type":"toolCall","id":"c","name":"read","arguments":{}}`,
			`{"type":"toolCall","id":"c","name":"read"}`,
			`{"type":"thinking","thinking":"hm"}`,
			`{"type":"image","data":"aGk=","mimeType":"image/png"}`,
			`{"type":"image"}`,
			`{"type":"text","type":"toolCall","text":"hi"}`,
			`{"type":"toolCall","type":"text","text":"hi"}`,
			`{"\u0074ype":"toolCall","text":"hi"}`,
			`{"type":"\u0074ext"}`,
			`{"type":1,"text":"hi"}`,
			`{"type":null}`,
			`{"text":"hi"}`,
			`{}`,
			`{"role":"user","content":"hi","timestamp":1}`,
			`{"role":"user"}`,
			`{"role":"assistant","role":"user","content":"hi","timestamp":1}`,
			`"text"`, `1`, `null`, `[]`,
		} {
			tp := tapeOf(t, `{"v":`+line+`}`) // the value is node 2
			if got, want := sw.validAt(tp, 2), plain.validAt(tp, 2); got != want {
				t.Errorf("%s: %s: switch says %v, allOf %v", def, line, got, want)
			}
		}
	}
}
