package session

// Unquote decodes one JSON string token, quotes included, as JSON.parse
// reads it (a lone surrogate escape becomes U+FFFD, as in encoding/json);
// ok is false when quoted is not exactly one string token. quoted must be
// valid UTF-8.
func Unquote(quoted []byte) (s string, ok bool) {
	if len(quoted) < 2 || quoted[0] != '"' {
		return "", false
	}
	if end, out := scanString(quoted, 1); out != complete || end != len(quoted) {
		return "", false
	}
	return unquote(quoted), true
}
