package migrate

import (
	"strings"
	"testing"
)

func TestLocateMembers(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		start int
		want  []string // key=value, raw bytes
	}{
		{"empty", `{}`, 0, nil},
		{"empty with space", `{ }`, 0, nil},
		{"flat", `{"a":1,"b":"x"}`, 0, []string{`"a"=1`, `"b"="x"`}},
		{"spaces everywhere", ` { "a" : 1 , "b" : [ 1 , 2 ] } `, 1, []string{`"a"=1`, `"b"=[ 1 , 2 ]`}},
		{"nested and strings with braces", `{"m":{"x":"}{","y":[{"z":"]"}]},"n":null}`, 0,
			[]string{`"m"={"x":"}{","y":[{"z":"]"}]}`, `"n"=null`}},
		{"escaped quotes", `{"a\"b":"c\"}","d":true}`, 0, []string{`"a\"b"="c\"}"`, `"d"=true`}},
		{"escaped backslash before quote", `{"a":"x\\","b":-1.5e+3}`, 0, []string{`"a"="x\\"`, `"b"=-1.5e+3`}},
		{"second object on a line", `{"a":1}{"b":2}`, 7, []string{`"b"=2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(tt.in)
			obj, err := locate(b, tt.start, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range obj.members {
				got = append(got, string(b[m.keyStart:m.keyEnd])+"="+string(b[m.valStart:m.valEnd]))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if b[obj.close] != '}' {
				t.Errorf("close at %d is %q", obj.close, b[obj.close])
			}
		})
	}
}

func TestLocateMalformedIsAnErrorNotAPanic(t *testing.T) {
	for _, in := range []string{``, `[]`, `{`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,}`, `{a:1}`, `{"a" 1}`, `{"a":"x}`, `{"a":{"b":1}`, `{"a":1 "b":2}`} {
		if _, err := locate([]byte(in), 0, nil); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestLocateDeepNestingUsesNoStack(t *testing.T) {
	const depth = 1 << 20
	in := `{"a":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `,"b":1}`
	obj, err := locate([]byte(in), 0, nil)
	if err != nil || len(obj.members) != 2 {
		t.Fatalf("got %d members, err %v", len(obj.members), err)
	}
}

func TestIndexDecodesEscapedKeysAndRefusesDuplicates(t *testing.T) {
	b := []byte(`{"\u0069d":"x","type":"a","type":"b"}`)
	obj, err := locate(b, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := obj.index(b, "id"); k != 0 || err != nil {
		t.Errorf(`escaped "id": k=%d err=%v`, k, err)
	}
	if _, err := obj.index(b, "type"); err == nil {
		t.Error("duplicate key: no error")
	}
	if k, err := obj.index(b, "missing"); k != -1 || err != nil {
		t.Errorf("missing: k=%d err=%v", k, err)
	}
}
