package project

import (
	"bytes"
	"encoding/json"
)

// Fast splitting of JSON that is already known to be valid (every object
// Load sees passed parse's strict classifier, and every value below it is a
// slice of such an object). encoding/json would scan each byte several
// times; these functions find value boundaries in one pass and leave the
// values raw. On anything unexpected they report !ok and the callers fall
// back to encoding/json.

// splitMembers returns the members of a raw object in order; the values
// are subslices of obj.
func splitMembers(obj []byte) ([]member, bool) {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	i = skipWS(obj, i+1)
	var out []member
	if i < len(obj) && obj[i] == '}' {
		return out, skipWS(obj, i+1) == len(obj)
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return nil, false
		}
		end, ok := skipString(obj, i)
		if !ok {
			return nil, false
		}
		key, ok := rawString(obj[i:end])
		if !ok {
			return nil, false
		}
		i = skipWS(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		i = skipWS(obj, i+1)
		vend, ok := skipValue(obj, i)
		if !ok {
			return nil, false
		}
		out = append(out, member{key, obj[i:vend:vend]})
		i = skipWS(obj, vend)
		if i >= len(obj) {
			return nil, false
		}
		switch obj[i] {
		case ',':
			i = skipWS(obj, i+1)
		case '}':
			return out, skipWS(obj, i+1) == len(obj)
		default:
			return nil, false
		}
	}
	return nil, false
}

// splitElements returns the elements of a raw array as subslices.
func splitElements(arr []byte) ([]json.RawMessage, bool) {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return nil, false
	}
	i = skipWS(arr, i+1)
	var out []json.RawMessage
	if i < len(arr) && arr[i] == ']' {
		return out, skipWS(arr, i+1) == len(arr)
	}
	for i < len(arr) {
		end, ok := skipValue(arr, i)
		if !ok {
			return nil, false
		}
		out = append(out, arr[i:end:end])
		i = skipWS(arr, end)
		if i >= len(arr) {
			return nil, false
		}
		switch arr[i] {
		case ',':
			i = skipWS(arr, i+1)
		case ']':
			return out, skipWS(arr, i+1) == len(arr)
		default:
			return nil, false
		}
	}
	return nil, false
}

// fieldsOf decodes a raw object into its top-level members (last duplicate
// wins, as in JSON.parse). The values share one copy of obj.
func fieldsOf(obj []byte) (map[string]json.RawMessage, bool) {
	own := bytes.Clone(obj)
	members, ok := splitMembers(own)
	if !ok {
		var fields map[string]json.RawMessage
		if json.Unmarshal(own, &fields) != nil {
			return nil, false
		}
		return fields, true
	}
	fields := make(map[string]json.RawMessage, len(members))
	for _, m := range members {
		fields[m.key] = m.value
	}
	return fields, true
}

// memberValue returns the last member named key of a raw object.
func memberValue(obj []byte, key string) json.RawMessage {
	members, ok := splitMembers(obj)
	if !ok {
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(obj, &fields)
		return fields[key]
	}
	var v json.RawMessage
	for _, m := range members {
		if m.key == key {
			v = m.value
		}
	}
	return v
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i]: the
// next quote not escaped by an odd run of backslashes.
func skipString(b []byte, i int) (int, bool) {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, false
		}
		i += j
		backslashes := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			backslashes++
		}
		i++
		if backslashes%2 == 0 {
			return i, true
		}
	}
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, ok := skipString(b, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i, i > start
}
