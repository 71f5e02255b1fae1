package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// values are the raw JSON texts the fuzzer sets and replaces with.
var fuzzValues = []string{`1`, `"x"`, `null`, `{"n":[1,2]}`, `[]`, `"\u00e9\n"`, `-0.5e3`, `{}`}

// fuzzKeys are keys the fuzzer sets beside the object's own.
var fuzzKeys = []string{"new", "a", "id", `q"\`, "é", ""}

// FuzzEditRoundTrip: parse, edit nothing: the same bytes. Parse, make
// random Sets, Deletes and Replaces of the object's members: the output is
// valid JSON that decodes (last duplicate wins, as JSON.parse) to the
// decoded input with the same edits made to it, or the edits overlap.
func FuzzEditRoundTrip(f *testing.F) {
	for _, seed := range []struct{ line, ops string }{
		{`{"a":1,"b":[1,2],"a":{"c":"\u0041"}}`, "\x00\x01\x02\x03\x04\x05"},
		{`{ "type" : "message", "id":"x", "message":{"role":"user","content":"hi"} }`, "\x10\x21\x32\x43"},
		{`{}`, "\x00\x00\x01"},
		{`{"a":1}`, "\x01\x00\x02\x00"},
		{`{"\u0061":1,"a":2,"b":3}`, "\x02\x01\x00\x05"},
	} {
		f.Add([]byte(seed.line), []byte(seed.ops))
	}
	f.Fuzz(func(t *testing.T, line, ops []byte) {
		var tape Tape
		span, ok := tape.Line(line)
		if !ok {
			return
		}
		object := line[span[0]:span[1]]
		var e Editor
		e.Reset(&tape)
		if b, err := e.Bytes(); err != nil || !bytes.Equal(b, object) {
			t.Fatalf("no edits: %q, %v; want %q", b, err, object)
		}
		var want map[string]any
		if json.Unmarshal(object, &want) != nil {
			return // deeper than encoding/json goes
		}
		var keys []string // the object's keys, decoded, duplicates included
		var values []int  // their value nodes
		for k, v := range tape.Members(0) {
			s, _ := tape.Str(k)
			keys, values = append(keys, s), append(values, v)
		}
		touched := map[string]bool{} // keys set or deleted
		replacedKeys := map[string]bool{}
		var replay []func(*Editor) // the edits, for another tape of the same line
		for i := 0; i+1 < len(ops); i += 2 {
			value := fuzzValues[int(ops[i+1])%len(fuzzValues)]
			key := fuzzKeys[int(ops[i+1])%len(fuzzKeys)]
			if len(keys) > 0 && ops[i]&4 != 0 {
				key = keys[int(ops[i]>>3)%len(keys)]
			}
			switch ops[i] % 4 {
			case 0, 1:
				e.Set(0, key, []byte(value))
				replay = append(replay, func(e *Editor) { e.Set(0, key, []byte(value)) })
				want[key] = decode(t, value)
				touched[key] = true
			case 2:
				e.Delete(0, key)
				replay = append(replay, func(e *Editor) { e.Delete(0, key) })
				delete(want, key)
				touched[key] = true
			case 3:
				if len(values) == 0 {
					continue
				}
				m := int(ops[i]>>3) % len(values)
				e.Replace(values[m], []byte(value))
				replay = append(replay, func(e *Editor) { e.Replace(values[m], []byte(value)) })
				replacedKeys[keys[m]] = true
				if tape.Get(0, keys[m]) == values[m] { // JSON.parse reads this one
					want[keys[m]] = decode(t, value)
				}
			}
		}
		out, err := e.Bytes()
		if errors.Is(err, ErrOverlap) {
			for k := range replacedKeys {
				if touched[k] {
					return // a replaced value whose key is also set or deleted
				}
			}
		}
		if err != nil {
			t.Fatalf("edits of %q: %v", object, err)
		}
		room := append(make([]byte, 0, len(line)+64), line...)
		var roomTape Tape
		roomTape.Line(room)
		e.Reset(&roomTape) // the same edits, in place: the same bytes, or refused
		for _, ed := range replay {
			ed(&e)
		}
		if inPlace, ok := e.InPlace(); ok && !bytes.Equal(inPlace, out) {
			t.Fatalf("edits of %q: in place %q, copied %q", object, inPlace, out)
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("edits of %q wrote invalid JSON %q: %v", object, out, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("edits of %q wrote %q:\ngot  %v\nwant %v", object, out, got, want)
		}
	})
}

func decode(t *testing.T, value string) any {
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		t.Fatal(err)
	}
	return v
}
