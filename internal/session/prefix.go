package session

// PrefixString reads the top-level string member key from a torn line or
// partial tail: a viable prefix of an object, cut somewhere. It walks the
// object's members in order and stops at the first one the cut leaves
// incomplete; found is false when no complete member key with a string
// value came before it. Of duplicate keys the last complete one wins, as
// in JSON.parse. Escapes in keys and values are decoded.
func PrefixString(line []byte, key string) (value string, found bool) {
	i := skipSpace(line, 0)
	if i == len(line) || line[i] != '{' {
		return "", false
	}
	var s scanner
	for i++; ; i++ {
		name, next, ok := prefixKey(line, i)
		if !ok {
			return value, found
		}
		start := skipSpace(line, next)
		end, out, _ := s.value(line, start)
		if out != complete {
			return value, found
		}
		if name == key && line[start] == '"' {
			value, found = unquote(line[start:end]), true
		}
		i = skipSpace(line, end)
		if i == len(line) || line[i] != ',' {
			return value, found
		}
	}
}

// prefixKey reads a member key and its colon at b[i] (after optional
// whitespace); next is the index after the colon.
func prefixKey(b []byte, i int) (name string, next int, ok bool) {
	i = skipSpace(b, i)
	if i == len(b) || b[i] != '"' {
		return "", 0, false
	}
	end, out := scanString(b, i+1)
	if out != complete {
		return "", 0, false
	}
	name = unquote(b[i:end])
	next = skipSpace(b, end)
	if next == len(b) || b[next] != ':' {
		return "", 0, false
	}
	return name, next + 1, true
}

// unquote decodes one complete JSON string token (quotes included) that
// scanString accepted.
func unquote(quoted []byte) string {
	body := quoted[1 : len(quoted)-1]
	return string(unescapeBody(body, len(body)))
}
