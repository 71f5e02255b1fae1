package project

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"unicode/utf8"
)

var splitSeeds = []string{
	`{}`,
	` { "a" : 1 , "b":[1,{"c":"]}"}], "d":"x\"y\\", "e":null,"f":true,"g":-1.5e3 } `,
	`{"a\u0062":"\\","nested":{"k":[[],{}],"s":"{[\"]}"},"a\u0062":2}`,
	`{"u":"é😀\u2028","n":0,"arr":[ 1 , 2 ]}`,
	`{"k":"\\\\\"","l":"\\"}`,
}

// checkSplit compares fieldsOf with encoding/json on one valid object.
func checkSplit(t *testing.T, obj []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	if json.Unmarshal(obj, &want) != nil {
		return
	}
	got, ok := fieldsOf(obj)
	if !ok {
		t.Fatalf("fieldsOf failed on %s", obj)
	}
	if len(got) != len(want) {
		t.Fatalf("%d members, encoding/json %d: %s", len(got), len(want), obj)
	}
	for k, w := range want {
		if !reflect.DeepEqual(compactJSON(got[k]), compactJSON(w)) {
			t.Fatalf("member %q = %s, encoding/json %s", k, got[k], w)
		}
	}
}

func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "invalid:" + string(raw)
	}
	return b.String()
}

func TestSplitMatchesEncodingJSON(t *testing.T) {
	for _, s := range splitSeeds {
		checkSplit(t, []byte(s))
	}
	for _, path := range realFilesOrNone() {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			checkSplit(t, sc.Bytes())
		}
		f.Close()
	}
	if got, ok := splitElements([]byte(` [ 1, "a,]", {"b":[2]} ] `)); !ok || len(got) != 3 || string(got[1]) != `"a,]"` {
		t.Errorf("splitElements: %q %v", got, ok)
	}
}

func FuzzSplitMembers(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if json.Valid(data) && utf8.Valid(data) { // Load only sees UTF-8-checked lines
			checkSplit(t, data)
		}
	})
}
