package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf16"

	"github.com/pisess/pisess/internal/session"
)

// imageChars is what pi counts for one image block.
const imageChars = 4800

// EstimateTokens is pi 1.6.0's fallback estimate for one message
// (compaction.estimateTokens): ceil(chars/4), where chars counts UTF-16 code
// units of text, thinking, tool-call names and JSON arguments, bash command
// and output, summaries, a system message's sections and its toolsAdded as
// JSON, and 4,800 per image in user, toolResult, custom and system content.
// Roles pi does not count give 0.
func EstimateTokens(msg json.RawMessage) int {
	t, ok := tapeOf(msg)
	if !ok {
		return 0
	}
	content := t.Get(0, "content")
	chars := 0
	switch t.StrOf(0, "role") {
	case "system":
		chars = contentChars(t, content)
		chars += sectionChars(t, t.Get(0, "sections"))
		if added := t.Get(0, "toolsAdded"); session.JSTruthy(t.Raw(added)) {
			chars += stringifyLen(t, added)
		}
	case "user", "custom", "toolResult":
		chars = contentChars(t, content)
	case "assistant":
		for b := range t.Elements(content) {
			chars += assistantBlockChars(t, b)
		}
	case "bashExecution":
		chars = strUTF16Len(t, t.Get(0, "command")) + strUTF16Len(t, t.Get(0, "output"))
	case "branchSummary", "compactionSummary":
		chars = strUTF16Len(t, t.Get(0, "summary"))
	}
	return (chars + 3) / 4
}

// sectionChars counts the string values of a system message's sections
// (null removes a section and counts nothing; of duplicate keys the last
// counts).
func sectionChars(t *session.Tape, sections int) int {
	chars := 0
	for k, v := range t.Members(sections) {
		key, _ := t.Str(k)
		if t.Get(sections, key) != v {
			continue // a later duplicate replaces it
		}
		chars += strUTF16Len(t, v)
	}
	return chars
}

// contentChars counts a string content, or the text and image blocks of an
// array content (pi's estimateTextAndImageContentChars).
func contentChars(t *session.Tape, content int) int {
	if t.Kind(content) == session.KindString {
		return strUTF16Len(t, content)
	}
	chars := 0
	for b := range t.Elements(content) {
		switch t.StrOf(b, "type") {
		case "text":
			chars += strUTF16Len(t, t.Get(b, "text"))
		case "image":
			chars += imageChars
		}
	}
	return chars
}

// assistantBlockChars counts one block of an assistant's content.
func assistantBlockChars(t *session.Tape, b int) int {
	switch t.StrOf(b, "type") {
	case "text":
		return strUTF16Len(t, t.Get(b, "text"))
	case "thinking":
		return strUTF16Len(t, t.Get(b, "thinking"))
	case "toolCall":
		return stringifyLen(t, t.Get(b, "arguments")) + strUTF16Len(t, t.Get(b, "name"))
	}
	return 0
}

// strUTF16Len is the JavaScript length of string node n (0 when n is no
// string), decoded a piece at a time: a text of hundreds of megabytes is
// measured without a decoded copy of it.
func strUTF16Len(t *session.Tape, n int) int {
	chars := 0
	for piece := range t.StrChunks(n) {
		chars += utf16Len(piece)
	}
	return chars
}

// ContextTokens is pi 1.6.0's estimateContextTokens: the usage of the last
// assistant message that has a usable one (see assistantUsage), plus the
// estimate of every later message; without such a usage, the estimate of
// all messages.
func ContextTokens(msgs []json.RawMessage) int {
	total := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if used, ok := assistantUsage(msgs[i]); ok {
			return used + total
		}
		total += EstimateTokens(msgs[i])
	}
	return total
}

// assistantUsage is pi 1.6.0's calculateContextTokens(getAssistantUsage(msg)):
// an assistant message not stopped by "aborted" or "error" whose usage gives
// a positive count: totalTokens, or when it is 0 or absent
// input+output+cacheRead+cacheWrite. A count that is not positive (an
// all-zero usage, as local models write; pi 0.73.1 used it anyway) or not
// a number (pi gets NaN, or concatenates numeric strings) is not usable.
func assistantUsage(msg json.RawMessage) (int, bool) {
	t, ok := tapeOf(msg)
	if !ok {
		return 0, false
	}
	stop, usage := t.StrOf(0, "stopReason"), t.Get(0, "usage")
	if t.StrOf(0, "role") != "assistant" || stop == "aborted" || stop == "error" || t.Kind(usage) != session.KindObject {
		return 0, false
	}
	var total float64
	if n := t.Get(usage, "totalTokens"); session.JSTruthy(t.Raw(n)) {
		v, ok := jsAddend(t.Raw(n))
		if !ok {
			return 0, false // a string or object: not a number
		}
		total = v
	} else {
		for _, key := range []string{"input", "output", "cacheRead", "cacheWrite"} {
			v, ok := jsAddend(t.Raw(t.Get(usage, key)))
			if !ok {
				return 0, false // NaN
			}
			total += v
		}
	}
	if !(total > 0) {
		return 0, false
	}
	return int(total), true
}

// jsAddend is the number a usage value adds in JavaScript: numbers as they
// are, null and false 0, true 1; anything else (undefined, strings,
// objects) is not a number.
func jsAddend(raw []byte) (float64, bool) {
	switch string(raw) {
	case "null", "false":
		return 0, true
	case "true":
		return 1, true
	}
	return jsNumberValue(raw)
}

// utf16Len is JavaScript's string length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// stringifyLen walks the value at node root iteratively (arguments can
// nest deeply) and adds up the length of its JSON.stringify text. Of
// duplicate keys only the last is written, as JSON.parse keeps it.
func stringifyLen(t *session.Tape, root int) int {
	n := 0
	stack := []int{root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch t.Kind(v) {
		case session.KindNull, session.KindTrue:
			n += 4
		case session.KindFalse:
			n += 5
		case session.KindNumber:
			n += len(jsNumber(string(t.Text(v))))
		case session.KindString:
			n += 2 // the quotes
			for piece := range t.StrChunks(v) {
				n += jsQuotedLen(piece) - 2
			}
		case session.KindArray:
			count := 0
			for el := range t.Elements(v) {
				stack = append(stack, el)
				count++
			}
			n += 2 + max(count-1, 0) // brackets and commas
		case session.KindObject:
			members := liveMembers(t, v)
			n += 2 + max(len(members)-1, 0) // braces and commas
			for _, k := range members {
				key, _ := t.Str(k)
				n += jsQuotedLen(key) + 1 // key and colon
				stack = append(stack, k+1)
			}
		}
	}
	return n
}

// liveMembers returns the key nodes of an object's members that JSON.parse
// keeps: the last of each key.
func liveMembers(t *session.Tape, obj int) []int {
	var keys []int
	seen := map[string]int{}
	for k := range t.Members(obj) {
		key, _ := t.Str(k)
		if i, dup := seen[key]; dup {
			keys[i] = k
			continue
		}
		seen[key] = len(keys)
		keys = append(keys, k)
	}
	return keys
}

// jsQuotedLen is the length of JSON.stringify(s).
func jsQuotedLen(s string) int {
	n := 2
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
			n += 2
		case r < 0x20:
			n += 6
		default:
			n += utf16.RuneLen(r)
		}
	}
	return n
}

// jsNumber formats a JSON number text the way JavaScript prints the double
// it parses to (Number.prototype.toString).
func jsNumber(text string) string {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Inf or 0, as in JavaScript
		return text
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits d1d2...dk and exponent: f = 0.d1...dk × 10^n.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := bytes.Cut([]byte(e), []byte{'e'})
	digits := string(bytes.ReplaceAll(mant, []byte{'.'}, nil))
	x, _ := strconv.Atoi(string(exp))
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + zeros(n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + zeros(-n) + digits
	}
	m := digits[:1]
	if k > 1 {
		m += "." + digits[1:]
	}
	es := strconv.Itoa(n - 1)
	if n-1 >= 0 {
		es = "+" + es
	}
	return sign + m + "e" + es
}

func zeros(n int) string {
	return string(bytes.Repeat([]byte{'0'}, n))
}
