package render

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"

	"github.com/pisess/pisess/internal/text"
)

// This file is the one describer of an entry: the kind, detail and first
// words every view shows of it (tree and path lines, the "summary" of
// their JSON documents, the messages of the context view).

// summaryRunes is how much text a JSON summary quotes.
const summaryRunes = 60

// entryView is what the tree and path views show of an entry: a short kind
// (the role of a message), a detail (tools called, a result's size, a
// model, a customType…) and the first words of its text.
type entryView struct {
	kind, detail, text string
	lazy               *lazyWords // the text, at --width 0, when it is written with the line
	failed             bool       // an errored tool result or turn, a failed command
	cut                bool       // text was cut (cutRunes): the line ends with "…"
}

// line is the tree's form: "kind detail: text".
func (d entryView) line() string { return string(d.appendLine(nil)) }

// appendLine appends line's form of d to b: a view of many entries
// writes each line into one buffer instead of making a string of it.
func (d entryView) appendLine(b []byte) []byte {
	b = append(b, d.kind...)
	if d.detail != "" {
		b = append(append(b, ' '), d.detail...)
	}
	if text := d.words(); text != "" || d.cut {
		b = append(append(b, ": "...), text...)
		if d.cut {
			b = append(b, "…"...)
		}
	}
	return b
}

// paint colours the kind: user turns stand out, failures are red, and the
// entries that stand for rewritten history (summaries) are yellow.
func (d entryView) paint() paintFunc {
	switch {
	case d.failed:
		return text.Style.Error
	case d.kind == "user":
		return text.Style.Bold
	case d.kind == "compaction" || d.kind == "branch summary":
		return text.Style.Warn
	}
	return nil
}

// Summary describes an entry in one line of at most about 80 characters,
// as the JSON documents of tree and path give it: the tree line with its
// text cut to summaryRunes runes.
func Summary(r *project.Record) string {
	d := describe(r, summaryRunes+1)
	d.text, d.cut = cutRunes(d.text, summaryRunes)
	return d.line()
}

// cutRunes cuts s (white space already collapsed) to n runes with the
// "…" left to the caller: s itself when it has at most n runes, else
// (cut) its first n-1 runes, less the white space they end with, which
// "…" is to follow.
func cutRunes(s string, n int) (kept string, cut bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // a U+FFFD for each byte that is not UTF-8, as []rune reads it
	}
	return strings.TrimRightFunc(firstRunes(s, n-1), unicode.IsSpace), true
}

// describe reads an entry for the views. Texts have their white space
// collapsed and are cut after limit runes (0: whole), which the caller
// sets beyond what a line can show: the line width decides how much is
// shown. The strings may share the record's buffer (see clone).
func describe(r *project.Record, limit int) entryView {
	t, e := &r.Tape, r.Entry
	str := func(key string) string { return t.StrOf(0, key) }
	words := func(s string) string { return wordsUpTo(s, limit) }
	d := entryView{kind: entryKind(e)}
	switch e.Type() {
	case "message":
		msg := r.Member("message")
		if t.Kind(msg) != session.KindObject {
			return entryView{kind: "message", text: "(unreadable)"}
		}
		m := viewMessage(t, msg, limit, false)
		if m.role == "custom" {
			m.detail = join(m.customType, " ", m.detail)
		}
		d.detail, d.text, d.lazy, d.failed = m.detail, m.text, m.lazy, m.failed
	case "model_change":
		if model, ok := ompModel(r); ok {
			d.detail = model
		} else {
			d.detail = "→ " + str("provider") + "/" + str("modelId")
		}
	case "thinking_level_change":
		d.detail = "→ " + str("thinkingLevel")
	case "compaction":
		d.detail, d.text = compactionDetail(r), words(str("summary"))
	case "branch_summary":
		d.detail, d.text = "(from "+shortID(str("fromId"))+")", words(str("summary"))
	case "custom_message":
		text, lazy, _ := contentText(t, r.Member("content"), limit)
		d.detail, d.text, d.lazy = str("customType"), text, lazy
		if t.Kind(r.Member("display")) == session.KindFalse {
			d.detail = join(d.detail, " ", "(hidden)")
		}
	case "custom":
		d.detail = str("customType")
	case "label":
		d.detail = "cleared on " + shortID(str("targetId"))
		if l := str("label"); l != "" {
			d.detail = strconv.Quote(l) + " → " + shortID(str("targetId"))
		}
	case "session_info":
		d.text = words(str("name"))
	case "context_edit":
		d.detail = "replace content of " + shortID(str("targetId"))
		if t.Kind(r.Member("replacement")) == session.KindNull {
			d.detail = "omit " + shortID(str("targetId"))
		}
	case "usage":
		d.detail, d.text = usage(r)
	default:
		return describeOmp(r, d, limit)
	}
	return d
}

// typeKinds are the kinds the views give the entry types whose kind is
// not their type (a message's is its role), oh-my-pi's own last
// (docs/omp.md).
var typeKinds = map[string]string{
	"model_change":          "model",
	"thinking_level_change": "thinking",
	"branch_summary":        "branch summary",
	"custom_message":        "custom message",
	"session_info":          "session name",
	"context_edit":          "context edit",
	"":                      "(no type)",
	"model_usage":           "model usage",
	"service_tier_change":   "service tier",
	"title_change":          "title",
	"ttsr_injection":        "rules injected",
	"session_init":          "session init",
	"mode_change":           "mode",
	"credential_pin":        "credential pin",
	"reset_boundary":        "reset (/clear)",
}

// entryKind is the kind the views show for an entry, from the index
// alone: the role of a message, a short name for the other types.
func entryKind(e *project.Entry) string {
	if e.Type() == "message" {
		switch role := e.Role(); role {
		case "bashExecution":
			return "bash"
		case "":
			return "message"
		default:
			return role
		}
	}
	if kind, ok := typeKinds[e.Type()]; ok {
		return kind
	}
	return e.Type()
}

// compactionDetail is what the views show of a compaction before its
// summary: the tokens it replaced and what it keeps.
func compactionDetail(r *project.Record) string {
	t := &r.Tape
	var meta []string
	if n, err := strconv.ParseInt(string(t.Raw(r.Member("tokensBefore"))), 10, 64); err == nil {
		meta = append(meta, text.Count(n)+" tokens before")
	}
	if tail := r.Member("retainedTail"); t.Kind(tail) == session.KindArray {
		n := 0
		for range t.Elements(tail) {
			n++
		}
		meta = append(meta, "retains "+text.Plural(n, "message", "messages"))
	} else if kept := t.StrOf(0, "firstKeptEntryId"); kept != "" {
		meta = append(meta, "keeps from "+shortID(kept))
	}
	if len(meta) == 0 {
		return ""
	}
	return "(" + strings.Join(meta, ", ") + ")"
}

// usage is the detail (kind and model) and text (tokens) of a usage
// record.
func usage(r *project.Record) (detail, words string) {
	t, u := &r.Tape, r.Member("usage")
	total := 0.0
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
		f, _ := t.Float(t.Get(u, k))
		total += f
	}
	if f, ok := t.Float(t.Get(u, "totalTokens")); ok {
		total = f
	}
	model := t.StrOf(0, "provider") + "/" + t.StrOf(0, "model")
	return join(t.StrOf(0, "kind"), " ", model), text.Count(int64(total)) + " tokens"
}

// join joins a and b with sep, or gives the one that is not "".
func join(a, sep, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}

// messageView is what the views show of one AgentMessage.
type messageView struct {
	role       string
	customType string
	failed     bool // an errored tool result or turn, a failed command
	usage      bool // an assistant message whose usage counts (pi's getAssistantUsage)
	chars      int  // characters of what the token estimate counts (images count none)
	tokens     int  // pi's estimate
	// detail is what to know before the text: tools called, a tool result's
	// name and size, an error, an exit code; text is the first words.
	detail, text string
	lazy         *lazyWords // the text, at --width 0, when it is written with the line
}

// viewMessage reads the message at node m of t for the views, its text cut
// after limit runes as describe does; with tokens, pi's estimate too.
func viewMessage(t *session.Tape, m int, limit int, tokens bool) messageView {
	mm := messageMembersOf(t, m)
	str := func(n int) string { s, _ := t.Str(n); return s }
	v := messageView{role: str(mm.role), customType: str(mm.customType)}
	if tokens {
		v.tokens = project.EstimateTokens(t.Raw(m))
	}
	worded := false // v.text is words already (contentText)
	switch v.role {
	case "assistant":
		stop := str(mm.stopReason)
		v.usage = stop != "aborted" && stop != "error" && session.JSTruthy(t.Raw(mm.usage))
		v.assistant(t, mm, stop)
	case "toolResult":
		var size textStats
		v.text, v.lazy, size = contentText(t, mm.content, limit)
		v.chars, worded = size.chars, true
		v.detail = str(mm.toolName) + " (" + size.String() + ")"
		if t.Kind(mm.isError) == session.KindTrue {
			v.detail += " ✗ error"
			v.failed = true
		}
	case "bashExecution":
		v.chars = utf8.RuneCountInString(str(mm.command)) + utf8.RuneCountInString(str(mm.output))
		v.text = "$ " + str(mm.command)
		if code := string(t.Raw(mm.exitCode)); code != "" && code != "0" && code != "null" {
			v.detail = "✗ exit " + code
			v.failed = true
		}
	case "compactionSummary":
		v.chars, v.text = utf8.RuneCountInString(str(mm.summary)), str(mm.summary)
		if n, err := strconv.ParseInt(string(t.Raw(mm.tokensBefore)), 10, 64); err == nil {
			v.detail = "(" + text.Count(n) + " tokens before)"
		}
	case "branchSummary":
		v.chars, v.text = utf8.RuneCountInString(str(mm.summary)), str(mm.summary)
		if from := str(mm.fromID); from != "" {
			v.detail = "(from " + shortID(from) + ")"
		}
	default:
		var size textStats
		v.text, v.lazy, size = contentText(t, mm.content, limit)
		v.chars, worded = size.chars, true
	}
	if !worded {
		v.text = wordsUpTo(v.text, limit)
	}
	return v
}

// messageMembers are the value nodes of the members of a message object
// that viewMessage reads, -1 for one it lacks.
type messageMembers struct {
	role, customType, content, stopReason, usage, errorMessage, toolName, isError,
	command, output, exitCode, summary, tokensBefore, fromID int
}

// messageMembersOf finds them in one walk over the members of object m
// (a lookup each walked them all again each), the last of a duplicate key
// counting, as in JSON.parse and Tape.Get.
func messageMembersOf(t *session.Tape, m int) messageMembers {
	mm := messageMembers{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	for k, v := range t.Members(m) {
		switch key, _ := t.Str(k); key {
		case "role":
			mm.role = v
		case "customType":
			mm.customType = v
		case "content":
			mm.content = v
		case "stopReason":
			mm.stopReason = v
		case "usage":
			mm.usage = v
		case "errorMessage":
			mm.errorMessage = v
		case "toolName":
			mm.toolName = v
		case "isError":
			mm.isError = v
		case "command":
			mm.command = v
		case "output":
			mm.output = v
		case "exitCode":
			mm.exitCode = v
		case "summary":
			mm.summary = v
		case "tokensBefore":
			mm.tokensBefore = v
		case "fromId":
			mm.fromID = v
		}
	}
	return mm
}

// assistant reads an assistant turn: its text (or thinking) and the tools
// it called; an error or abort is part of the detail.
func (v *messageView) assistant(t *session.Tape, mm messageMembers, stop string) {
	var text, thinking, tools []string
	for b := range t.Elements(mm.content) {
		bm := blockMembersOf(t, b)
		switch typ, _ := t.Str(bm.typ); typ {
		case "text":
			s, _ := t.Str(bm.text)
			text = append(text, s)
			v.chars += utf8.RuneCountInString(s)
		case "thinking":
			s, _ := t.Str(bm.thinking)
			thinking = append(thinking, s)
			v.chars += utf8.RuneCountInString(s)
		case "toolCall":
			name, _ := t.Str(bm.name)
			tools = append(tools, name)
			v.chars += utf8.RuneCountInString(name) + utf8.RuneCount(t.Raw(bm.arguments))
		}
	}
	v.text = strings.Join(text, " ")
	if strings.TrimSpace(v.text) == "" && len(thinking) > 0 {
		v.text = "(thinking) " + strings.Join(thinking, " ")
	}
	var detail []string
	if len(tools) > 0 {
		detail = append(detail, "→ "+strings.Join(tools, ", "))
	}
	switch stop {
	case "error":
		detail = append(detail, "✗ error")
		v.failed = true
		if msg, _ := t.Str(mm.errorMessage); msg != "" && strings.TrimSpace(v.text) == "" {
			v.text = msg
		}
	case "aborted", "length":
		detail = append(detail, "("+stop+")")
	}
	v.detail = strings.Join(detail, " ")
}

// blockMembers are the value nodes of the members of a content block that
// the views read, -1 for one it lacks.
type blockMembers struct{ typ, text, thinking, name, arguments int }

// blockMembersOf finds them in one walk over the members of block b (none
// when it is not an object), as messageMembersOf does.
func blockMembersOf(t *session.Tape, b int) blockMembers {
	bm := blockMembers{-1, -1, -1, -1, -1}
	for k, v := range t.Members(b) {
		switch key, _ := t.Str(k); key {
		case "type":
			bm.typ = v
		case "text":
			bm.text = v
		case "thinking":
			bm.thinking = v
		case "name":
			bm.name = v
		case "arguments":
			bm.arguments = v
		}
	}
	return bm
}

// firstRunes returns the first n runes of s (all of it when it is shorter).
func firstRunes(s string, n int) string {
	k := 0
	for i := range s {
		if k == n {
			return s[:i]
		}
		k++
	}
	return s
}

// wordsUpTo collapses white space and stops after limit runes (0: none).
// Invalid UTF-8 comes out as U+FFFD, a byte at a time, as ranging over
// the string gives it. A start of s that is already plain words (printable
// ASCII, single spaces) is taken as it is, without copying.
func wordsUpTo(s string, limit int) string {
	n, i, w := 0, 0, 0 // runes out, bytes read; s[:w] is what is out so far
	space := false
	for ; i < len(s) && (limit <= 0 || n < limit); i++ {
		c := s[i]
		if c == ' ' && !space && w == i && w > 0 {
			space = true
			continue
		}
		if c <= ' ' || c >= utf8.RuneSelf-1 { // white space, a control, DEL or beyond ASCII
			return collapseWords(s, i, limit, n, space, w)
		}
		if space {
			n, space = n+1, false
		}
		n++
		w = i + 1
	}
	return s[:w]
}

// collapseWords is wordsUpTo from byte i of s on, with s[:w] out so far
// (n runes) and a space pending or not.
func collapseWords(s string, i, limit, n int, space bool, w int) string {
	var b strings.Builder
	if limit > 0 {
		b.Grow(min(len(s), limit+8)) // the words of a line of plain text in one allocation
	}
	b.WriteString(s[:w])
	for i < len(s) && (limit <= 0 || n < limit) {
		r, size := rune(s[i]), 1 // ASCII, most text, without decoding
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if isSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		if r < utf8.RuneSelf {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}

// isSpace is unicode.IsSpace, ASCII first.
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ':
		return true
	}
	return r >= utf8.RuneSelf && unicode.IsSpace(r)
}

// kind is the message column of the context view: the role, with the
// extension's type for a custom message and plain words for the summaries.
func (v messageView) kind() string {
	switch v.role {
	case "compactionSummary":
		return "compaction summary"
	case "branchSummary":
		return "branch summary"
	case "custom":
		if v.customType != "" {
			return "custom " + v.customType
		}
	case "bashExecution":
		return "bash"
	case "":
		return "(no role)"
	}
	return v.role
}

func (v messageView) kindPaint() paintFunc {
	switch v.role {
	case "user":
		return text.Style.Bold
	case "compactionSummary", "branchSummary", "custom":
		return text.Style.Label
	}
	if v.failed {
		return text.Style.Error
	}
	return nil
}
