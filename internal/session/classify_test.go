package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/finding"
)

func TestClassify(t *testing.T) {
	var c Classifier
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			got := c.Classify([]byte(v.line), v.atEOF)
			if got.Class != v.class || got.Code != v.code {
				t.Errorf("Classify(%q, atEOF=%v) = %s/%s, want %s/%s", v.line, v.atEOF, got.Class, got.Code, v.class, v.code)
			}
			checkLineFastPath(t, []byte(v.line), got)
		})
	}
}

func TestDeepNestingDoesNotRecurse(t *testing.T) {
	var c Classifier
	deep := strings.Repeat("[", 100000)
	if got := c.Classify([]byte(`{"a":`+deep), true); got.Class != PartialTail {
		t.Errorf("deep open prefix = %s, want partial tail", got.Class)
	}
	full := `{"a":` + deep + strings.Repeat("]", 100000) + `}`
	if got := c.Classify([]byte(full), false); got.Class != Object {
		t.Errorf("deep complete object = %s/%s, want object", got.Class, got.Code)
	}
}

// TestCrashTailSpans: a crash's leftover at the end of the file says
// where the complete objects are and where the leftover starts.
func TestCrashTailSpans(t *testing.T) {
	var c Classifier
	tests := []struct {
		line    string
		objects [][2]int
		offset  int
	}{
		{`{"a":1}{"b":`, [][2]int{{0, 7}}, 7},
		{`{"a":1} {"b":2} {"c`, [][2]int{{0, 7}, {8, 15}}, 16},
		{"{\"a\":1}\x00\x00", [][2]int{{0, 7}}, 7},
		{"{\"a\":1} \x00\x00", [][2]int{{0, 7}}, 8},
		{"{\"a\":1}{\"b\x00\x00\x00", [][2]int{{0, 7}}, 10},
		{"{\"a\":\"x\x00", nil, 7},
		{"\x00\x00", nil, 0},
	}
	for _, tt := range tests {
		got := c.Classify([]byte(tt.line), true)
		if fmt.Sprint(got.Objects) != fmt.Sprint(tt.objects) || got.Offset != tt.offset {
			t.Errorf("Classify(%q) = %+v, want objects %v, offset %d", tt.line, got, tt.objects, tt.offset)
		}
	}
}

// TestEveryPrefixIsATail cuts real-looking objects at every byte: each
// strict prefix is a tolerated tail at the end of a file, and a torn line
// before a newline.
func TestEveryPrefixIsATail(t *testing.T) {
	var c Classifier
	objects := []string{
		`{"type":"message","id":"a1b2c3d4","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"héllo \"x\" \u00e9 😀"}],"timestamp":1730000000000}}`,
		`{"a":[-1.5e+10,true,false,null,{"b":{}}],"c":"\\\/"}`,
	}
	for _, obj := range objects {
		for i := 1; i < len(obj); i++ {
			got := c.Classify([]byte(obj[:i]), true)
			if got.Class != PartialTail {
				t.Errorf("prefix %q = %s/%s, want partial tail", obj[:i], got.Class, got.Code)
			}
			if got := c.Classify([]byte(obj[:i]), false); got.Class != TornLine {
				t.Errorf("prefix %q with a newline = %s/%s, want torn line", obj[:i], got.Class, got.Code)
			}
		}
	}
}

// checkLineFastPath holds Tape.Line to the Classifier: it accepts a line
// exactly when the verdict is Object (short of too deep a nesting), with
// the same span.
func checkLineFastPath(t *testing.T, line []byte, got Verdict) {
	t.Helper()
	var tape Tape
	span, ok := tape.Line(line)
	switch {
	case ok && (got.Class != Object || got.Objects[0] != span):
		t.Fatalf("Tape.Line(%q) accepted span %v, the classifier says %s/%s %v", line, span, got.Class, got.Code, got.Objects)
	case !ok && got.Class == Object:
		if _, err := Decode(line[got.Objects[0][0]:got.Objects[0][1]], true); !errors.Is(err, ErrTooDeep) {
			t.Fatalf("Tape.Line(%q) refused an object the classifier accepts (Decode: %v)", line, err)
		}
	}
}

// FuzzClassify checks the classifier against encoding/json on UTF-8 input:
// a complete valid object is never corrupt, every strict prefix of a valid
// object is a tolerated tail, and corruption always names a line that
// encoding/json rejects (or that is not a single object).
func FuzzClassify(f *testing.F) {
	for _, v := range vectors {
		f.Add([]byte(v.line), v.atEOF)
	}
	f.Fuzz(func(t *testing.T, line []byte, atEOF bool) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // lines never hold a newline
		}
		var c Classifier
		got := c.Classify(line, atEOF)
		if !utf8.Valid(line) {
			if got.Class == Object {
				t.Fatalf("invalid UTF-8 %q classified as an object", line)
			}
			return
		}
		trimmed := bytes.Trim(line, " \t\r\n") // JSON whitespace only (not \f, \v)
		isObject := json.Valid(trimmed) && len(trimmed) > 0 && trimmed[0] == '{'
		switch {
		case isObject && got.Class != Object:
			t.Fatalf("valid object %q classified %s/%s", line, got.Class, got.Code)
		case got.Class == Object && !isObject:
			t.Fatalf("%q classified as an object, encoding/json disagrees", line)
		case got.Class == Corrupt && got.Code != finding.ZeroFill && isObject:
			t.Fatalf("valid object %q reported corrupt (%s)", line, got.Code)
		}
		if isObject && len(trimmed) <= 512 {
			for i := 1; i < len(trimmed); i++ {
				if p := c.Classify(trimmed[:i], true); p.Class != PartialTail {
					t.Fatalf("strict prefix %q of a valid object = %s/%s, want partial tail", trimmed[:i], p.Class, p.Code)
				}
				if p := c.Classify(trimmed[:i], false); p.Class != TornLine {
					t.Fatalf("strict prefix %q of a valid object with a newline = %s/%s, want torn line", trimmed[:i], p.Class, p.Code)
				}
			}
		}
		checkLineFastPath(t, line, got)
		if got.Class == Concatenated {
			v := Verdict{Objects: got.Objects}
			for _, span := range v.Objects {
				if !json.Valid(line[span[0]:span[1]]) {
					t.Fatalf("concatenated part %q is not valid JSON", line[span[0]:span[1]])
				}
			}
		}
	})
}
