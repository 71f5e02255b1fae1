package migrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// This file locates the members of a JSON object in its raw bytes, so that
// migration can edit exactly the bytes of one key or value and copy all the
// others unchanged. It never recurses: a nested value is skipped with a depth
// counter, so nesting depth costs no stack.

// member is one key/value pair of an object, as byte offsets into the
// object's line: [keyStart,keyEnd) is the key with its quotes,
// [valStart,valEnd) the value.
type member struct {
	keyStart, keyEnd int
	valStart, valEnd int
}

// object is the layout of one JSON object: the offsets of its braces and its
// members in order.
type object struct {
	open, close int // offsets of '{' and '}'
	members     []member
}

var errMalformed = errors.New("malformed JSON object")

// locate finds the members of the object starting at b[start] (which must
// be '{'). It expects input the classifier already accepted and reports
// errMalformed instead of panicking if it is not.
func locate(b []byte, start int, members []member) (object, error) {
	obj := object{open: start, members: members[:0]}
	if start >= len(b) || b[start] != '{' {
		return obj, errMalformed
	}
	i := skipWS(b, start+1)
	if i < len(b) && b[i] == '}' {
		obj.close = i
		return obj, nil
	}
	for {
		var m member
		if i >= len(b) || b[i] != '"' {
			return obj, errMalformed
		}
		m.keyStart = i
		end, err := skipString(b, i)
		if err != nil {
			return obj, err
		}
		m.keyEnd = end
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return obj, errMalformed
		}
		i = skipWS(b, i+1)
		m.valStart = i
		if m.valEnd, err = skipValue(b, i); err != nil {
			return obj, err
		}
		obj.members = append(obj.members, m)
		i = skipWS(b, m.valEnd)
		if i >= len(b) {
			return obj, errMalformed
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			obj.close = i
			return obj, nil
		default:
			return obj, errMalformed
		}
	}
}

// skipWS returns the first offset at or after i that is not JSON whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset just past the string starting at b[i]. It
// jumps from quote to quote (bytes.IndexByte is vectorised): a quote ends
// the string unless an odd number of backslashes precedes it.
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			break
		}
		j += q
		backslashes := 0
		for k := j - 1; k > i && b[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1, nil
		}
		j++
	}
	return 0, errMalformed
}

// skipValue returns the offset just past the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errMalformed
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipContainer(b, i)
	}
	j := i
	for j < len(b) && !endsLiteral(b[j]) {
		j++
	}
	if j == i {
		return 0, errMalformed
	}
	return j, nil
}

// endsLiteral reports whether c ends a number or a literal (true, false,
// null).
func endsLiteral(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// skipContainer returns the offset just past the object or array starting
// at b[i], counting depth instead of recursing.
func skipContainer(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, err := skipString(b, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, errMalformed
}

// keyIs reports whether the key of m (in line b) decodes to name. Keys
// without escapes are compared as raw bytes; an escaped key ("\u0069d") is
// decoded, as JSON.parse would.
func keyIs(b []byte, m member, name string) bool {
	raw := b[m.keyStart+1 : m.keyEnd-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	var key string
	return json.Unmarshal(b[m.keyStart:m.keyEnd], &key) == nil && key == name
}

// index returns the position in o.members of the member named name, or -1.
// A key that occurs more than once is an error: which occurrence counts
// differs between JSON parsers, so an edit could not be made safely.
func (o *object) index(b []byte, name string) (int, error) {
	found := -1
	for k, m := range o.members {
		if keyIs(b, m, name) {
			if found >= 0 {
				return -1, fmt.Errorf("key %q occurs more than once", name)
			}
			found = k
		}
	}
	return found, nil
}

// stringValue decodes the value of m when it is a JSON string.
func stringValue(b []byte, m member) (string, bool) {
	if b[m.valStart] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(b[m.valStart:m.valEnd], &s) != nil {
		return "", false
	}
	return s, true
}

// numberValue decodes the value of m when it is a JSON number.
func numberValue(b []byte, m member) (float64, bool) {
	c := b[m.valStart]
	if c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	var f float64
	if json.Unmarshal(b[m.valStart:m.valEnd], &f) != nil {
		return 0, false
	}
	return f, true
}
