package migrate

import (
	"errors"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

func TestLocateMembers(t *testing.T) {
	tests := []struct {
		name string
		in   string
		span [2]int
		want []string // key=value, raw bytes
	}{
		{"empty", `{}`, [2]int{0, 2}, nil},
		{"empty with space", `{ }`, [2]int{0, 3}, nil},
		{"flat", `{"a":1,"b":"x"}`, [2]int{0, 15}, []string{`"a"=1`, `"b"="x"`}},
		{"spaces everywhere", ` { "a" : 1 , "b" : [ 1 , 2 ] } `, [2]int{1, 30}, []string{`"a"=1`, `"b"=[ 1 , 2 ]`}},
		{"nested and strings with braces", `{"m":{"x":"}{","y":[{"z":"]"}]},"n":null}`, [2]int{0, 41},
			[]string{`"m"={"x":"}{","y":[{"z":"]"}]}`, `"n"=null`}},
		{"escaped quotes", `{"a\"b":"c\"}","d":true}`, [2]int{0, 24}, []string{`"a\"b"="c\"}"`, `"d"=true`}},
		{"escaped backslash before quote", `{"a":"x\\","b":-1.5e+3}`, [2]int{0, 23}, []string{`"a"="x\\"`, `"b"=-1.5e+3`}},
		{"second object on a line", `{"a":1}{"b":2}`, [2]int{7, 14}, []string{`"b"=2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(tt.in)
			var tape session.Tape
			if err := locate(&tape, b, tt.span); err != nil {
				t.Fatal(err)
			}
			off := tt.span[0] // the tape's spans are in the object's bytes
			var got []string
			for k, v := range tape.Members(0) {
				ks, ke := tape.Span(k)
				vs, ve := tape.Span(v)
				got = append(got, string(b[off+ks:off+ke])+"="+string(b[off+vs:off+ve]))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			open, end := tape.Span(0)
			open, end = off+open, off+end-1
			if b[open] != '{' || b[end] != '}' || open != tt.span[0] || end != tt.span[1]-1 {
				t.Errorf("braces at %d and %d, want %d and %d", open, end, tt.span[0], tt.span[1]-1)
			}
		})
	}
}

func TestLocateMalformedIsAnErrorNotAPanic(t *testing.T) {
	for _, in := range []string{``, `[]`, `{`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,}`, `{a:1}`, `{"a" 1}`, `{"a":"x}`, `{"a":{"b":1}`, `{"a":1 "b":2}`} {
		var tape session.Tape
		if err := locate(&tape, []byte(in), [2]int{0, len(in)}); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestLocateTooDeepIsAnError(t *testing.T) {
	const depth = session.MaxDepth + 1
	in := `{"a":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `,"b":1}`
	var tape session.Tape
	err := locate(&tape, []byte(in), [2]int{0, len(in)})
	if !errors.Is(err, session.ErrTooDeep) {
		t.Fatalf("err %v, want parse.ErrTooDeep", err)
	}
	var e *safefile.Error
	if !errors.As(unreadable(1, err), &e) || e.Finding == nil || e.Finding.Code != "too_deep" {
		t.Errorf("unreadable: %v, want a too_deep refusal", unreadable(1, err))
	}
}

func TestIndexDecodesEscapedKeysAndRefusesDuplicates(t *testing.T) {
	b := []byte(`{"\u0069d":"x","type":"a","type":"b"}`)
	var tape session.Tape
	if err := locate(&tape, b, [2]int{0, len(b)}); err != nil {
		t.Fatal(err)
	}
	if v, err := unique(&tape, 0, "id"); v != 2 || err != nil {
		t.Errorf(`escaped "id": v=%d err=%v`, v, err)
	}
	if _, err := unique(&tape, 0, "type"); err == nil {
		t.Error("duplicate key: no error")
	}
	if v, err := unique(&tape, 0, "missing"); v != -1 || err != nil {
		t.Errorf("missing: v=%d err=%v", v, err)
	}
}

func TestValuesReadAsJSONParseReadsThem(t *testing.T) {
	b := []byte(`{"s":"a\"b","n":1e400,"f":-2.5,"z":null,"o":{}}`)
	var tape session.Tape
	if err := locate(&tape, b, [2]int{0, len(b)}); err != nil {
		t.Fatal(err)
	}
	if s, ok := tape.Str(tape.Get(0, "s")); !ok || s != `a"b` {
		t.Errorf("string: %q %v", s, ok)
	}
	if _, ok := numberValue(&tape, tape.Get(0, "n")); ok {
		t.Error("1e400 is a finite number")
	}
	if f, ok := numberValue(&tape, tape.Get(0, "f")); !ok || f != -2.5 {
		t.Errorf("number: %v %v", f, ok)
	}
	if !isNull(&tape, tape.Get(0, "z")) || isNull(&tape, tape.Get(0, "o")) {
		t.Error("null")
	}
}

// locate builds the tape of the object at line[span[0]:span[1]], as
// migration does for the objects of a line (Tape.Build of Line.Object).
func locate(t *session.Tape, line []byte, span [2]int) error {
	return t.Build(line[span[0]:span[1]])
}
