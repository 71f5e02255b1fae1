package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func stdDecode(t testing.TB, raw []byte) map[string]any {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return v
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, v := range vectors {
		if v.class != Object {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			for _, alias := range []bool{false, true} {
				got, err := Decode([]byte(v.line), alias)
				if err != nil {
					t.Fatal(err)
				}
				if want := stdDecode(t, []byte(v.line)); !reflect.DeepEqual(got, want) {
					t.Errorf("alias=%v: got %#v, want %#v", alias, got, want)
				}
			}
		})
	}
}

func TestDecodeTooDeep(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + `}`
	if _, err := Decode([]byte(deep), false); !errors.Is(err, ErrTooDeep) {
		t.Errorf("want ErrTooDeep, got %v", err)
	}
	ok := `{"a":` + strings.Repeat("[", MaxDepth-2) + strings.Repeat("]", MaxDepth-2) + `}`
	if _, err := Decode([]byte(ok), false); err != nil {
		t.Errorf("depth %d: %v", MaxDepth-1, err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, v := range vectors {
		f.Add([]byte(v.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var c Classifier
		if c.Classify(line, false).Class != Object {
			return
		}
		got, err := Decode(line, true)
		if err != nil {
			if errors.Is(err, ErrTooDeep) {
				return
			}
			t.Fatalf("Decode(%q): %v", line, err)
		}
		if !json.Valid(line) {
			return // invalid UTF-8 is the classifier's business
		}
		want := stdDecode(t, line)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q) = %#v, encoding/json %#v", line, got, want)
		}
		checkTape(t, line, want)
	})
}
