package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf16"
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
	var m struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Command    string          `json:"command"`
		Output     string          `json:"output"`
		Summary    string          `json:"summary"`
		Sections   json.RawMessage `json:"sections"`
		ToolsAdded json.RawMessage `json:"toolsAdded"`
	}
	if !isObject(msg) || json.Unmarshal(msg, &m) != nil {
		return 0
	}
	chars := 0
	switch m.Role {
	case "system":
		chars = contentChars(m.Content)
		chars += sectionChars(m.Sections)
		if jsTruthy(m.ToolsAdded) {
			chars += jsStringifyLen(m.ToolsAdded)
		}
	case "user", "custom", "toolResult":
		chars = contentChars(m.Content)
	case "assistant":
		for _, b := range decodeBlocks(m.Content) {
			chars += assistantBlockChars(b)
		}
	case "bashExecution":
		chars = utf16Len(m.Command) + utf16Len(m.Output)
	case "branchSummary", "compactionSummary":
		chars = utf16Len(m.Summary)
	}
	return (chars + 3) / 4
}

// sectionChars counts the string values of a system message's sections
// (null removes a section and counts nothing).
func sectionChars(sections json.RawMessage) int {
	var values map[string]json.RawMessage
	if !isObject(sections) || json.Unmarshal(sections, &values) != nil {
		return 0
	}
	chars := 0
	for _, v := range values {
		if s, ok := rawString(v); ok {
			chars += utf16Len(s)
		}
	}
	return chars
}

// contentChars counts a string content, or the text and image blocks of an
// array content (pi's estimateTextAndImageContentChars).
func contentChars(content json.RawMessage) int {
	if s, ok := rawString(content); ok {
		return utf16Len(s)
	}
	chars := 0
	for _, b := range decodeBlocks(content) {
		if b.Type == "text" && b.Text != nil {
			chars += utf16Len(*b.Text)
		}
		if b.Type == "image" {
			chars += imageChars
		}
	}
	return chars
}

func assistantBlockChars(b contentBlock) int {
	switch b.Type {
	case "text":
		if b.Text != nil {
			return utf16Len(*b.Text)
		}
	case "thinking":
		if b.Thinking != nil {
			return utf16Len(*b.Thinking)
		}
	case "toolCall":
		n := jsStringifyLen(b.Arguments)
		if b.Name != nil {
			n += utf16Len(*b.Name)
		}
		return n
	}
	return 0
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
	var m struct {
		Role       string          `json:"role"`
		StopReason string          `json:"stopReason"`
		Usage      json.RawMessage `json:"usage"`
	}
	if !isObject(msg) || json.Unmarshal(msg, &m) != nil {
		return 0, false
	}
	if m.Role != "assistant" || m.StopReason == "aborted" || m.StopReason == "error" || !jsTruthy(m.Usage) || !isObject(m.Usage) {
		return 0, false
	}
	var u map[string]json.RawMessage
	if json.Unmarshal(m.Usage, &u) != nil {
		return 0, false
	}
	var total float64
	if t := u["totalTokens"]; jsTruthy(t) {
		n, ok := jsAddend(t)
		if !ok {
			return 0, false // a string or object: not a number
		}
		total = n
	} else {
		for _, key := range []string{"input", "output", "cacheRead", "cacheWrite"} {
			n, ok := jsAddend(u[key])
			if !ok {
				return 0, false // NaN
			}
			total += n
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
func jsAddend(raw json.RawMessage) (float64, bool) {
	switch string(raw) {
	case "null", "false":
		return 0, true
	case "true":
		return 1, true
	}
	var f float64
	if c := firstByte(raw); c != '-' && (c < '0' || c > '9') || json.Unmarshal(raw, &f) != nil {
		return 0, false
	}
	return f, true
}

// utf16Len is JavaScript's string length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// jsStringifyLen is JSON.stringify(v).length for a raw JSON value; an absent
// value (undefined) counts 0.
func jsStringifyLen(raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return 0
	}
	return stringifyLen(v)
}

// stringifyLen walks a decoded value iteratively (arguments can nest
// deeply) and adds up the length of its JSON.stringify text.
func stringifyLen(root any) int {
	n := 0
	stack := []any{root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := v.(type) {
		case nil:
			n += 4
		case bool:
			n += 4
			if !v {
				n++
			}
		case json.Number:
			n += len(jsNumber(string(v)))
		case string:
			n += jsQuotedLen(v)
		case []any:
			n += 2 + max(len(v)-1, 0) // brackets and commas
			stack = append(stack, v...)
		case map[string]any:
			n += 2 + max(len(v)-1, 0) // braces and commas
			for k, x := range v {
				n += jsQuotedLen(k) + 1 // key and colon
				stack = append(stack, x)
			}
		}
	}
	return n
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
