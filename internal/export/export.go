// Package export renders a session as a page to read or share: one
// self-contained HTML file (the whole tree, and the conversation along the
// path to a leaf) or a Markdown transcript of that path.
//
// Everything that comes from the file is data: HTML escapes every string,
// and Markdown in messages goes through goldmark with raw HTML off and every
// link and image turned into text, so no content can add markup, script or a
// reference to anything outside the page. With Options.Redact, every string
// shown passes through the secret rules first.
package export

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/secrets"
	vocab "github.com/pisess/pisess/internal/session" // session is this package's type
	"github.com/pisess/pisess/internal/text"
)

// Options configure an export.
type Options struct {
	// Name is how the session is called when it has no name of its own
	// (the file name).
	Name string
	// Redact, when set, replaces every secret the rules find in what is
	// rendered with [REDACTED:<kind>].
	Redact *secrets.Rules
	// MaxBlock is how many bytes of a tool call's arguments or a tool
	// result the Markdown transcript keeps (0: DefaultMaxBlock).
	MaxBlock int
}

// DefaultMaxBlock is how much of a tool block the Markdown transcript keeps.
const DefaultMaxBlock = 2000

// session is what both renderers need: the path to the leaf, decoded, and
// the writer of the output.
type session struct {
	w      *bufio.Writer
	s      *project.Session
	leaf   *project.Entry
	path   []*project.Entry
	onPath map[*project.Entry]bool
	turns  []turn
	total  usage
	name   string
	opts   Options
}

// turn is one entry of the path, decoded for display.
type turn struct {
	entry *project.Entry
	kind  string // "user", "assistant", "toolResult", … or the entry type
	msg   message
	leaf  bool
}

// message is an AgentMessage, or the fields of a non-message entry that
// are shown, read leniently: a field of an unexpected type is left empty
// and the raw JSON is shown instead where it matters.
type message struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	Provider     string          `json:"provider"`
	Model        string          `json:"model"`
	Usage        *usage          `json:"usage"`
	StopReason   string          `json:"stopReason"`
	ErrorMessage string          `json:"errorMessage"`
	ToolName     string          `json:"toolName"`
	IsError      bool            `json:"isError"`
	Command      string          `json:"command"`
	Output       string          `json:"output"`
	ExitCode     *float64        `json:"exitCode"`
	CustomType   string          `json:"customType"`
	Summary      string          `json:"summary"`
	FromID       string          `json:"fromId"`
	TokensBefore float64         `json:"tokensBefore"`
}

// usage is a provider's token and cost report.
type usage struct {
	Input       float64 `json:"input"`
	Output      float64 `json:"output"`
	CacheRead   float64 `json:"cacheRead"`
	CacheWrite  float64 `json:"cacheWrite"`
	TotalTokens float64 `json:"totalTokens"`
	Cost        struct {
		Total float64 `json:"total"`
	} `json:"cost"`
}

func (u *usage) add(v *usage) {
	u.Input += v.Input
	u.Output += v.Output
	u.CacheRead += v.CacheRead
	u.CacheWrite += v.CacheWrite
	u.TotalTokens += v.tokens()
	u.Cost.Total += v.Cost.Total
}

// tokens is totalTokens, or the sum of the parts when it is missing.
func (u *usage) tokens() float64 {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// block is one content block.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Data      string          `json:"data"`
	MimeType  string          `json:"mimeType"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// write decodes the path to leaf and has render write it to w, buffered.
// The error is a *project.CycleError or a write error.
func write(w io.Writer, s *project.Session, leaf *project.Entry, opts Options, render func(*session)) error {
	d, err := newSession(s, leaf, opts)
	if err != nil {
		return err
	}
	d.w = bufio.NewWriterSize(w, 64<<10)
	render(d)
	return d.w.Flush()
}

// newSession decodes the path to leaf. The error is a *project.CycleError.
func newSession(s *project.Session, leaf *project.Entry, opts Options) (*session, error) {
	path, err := s.Path(leaf)
	if err != nil {
		return nil, err
	}
	d := &session{s: s, leaf: leaf, path: path, onPath: map[*project.Entry]bool{}, opts: opts, name: opts.Name}
	for _, e := range s.Entries {
		if e.Type() == "session_info" { // the latest, trimmed; a blank name clears it (pi's getSessionName)
			d.name = cmp.Or(vocab.JSTrim(e.StringField("name")), opts.Name)
		}
	}
	for _, e := range path {
		d.onPath[e] = true
		t := turn{entry: e, kind: e.Type(), leaf: e == leaf}
		if e.Type() == "message" {
			json.Unmarshal(e.Message(), &t.msg)
			t.kind = cmp.Or(t.msg.Role, "message")
		} else if raw, ok := entryJSON(e); ok {
			json.Unmarshal(raw, &t.msg)
		}
		if t.kind == "assistant" && t.msg.Usage != nil {
			d.total.add(t.msg.Usage)
		}
		d.turns = append(d.turns, t)
	}
	return d, nil
}

// entryJSON rebuilds the JSON of the fields a non-message entry shows.
func entryJSON(e *project.Entry) (json.RawMessage, bool) {
	fields := map[string]json.RawMessage{}
	for _, name := range []string{"content", "customType", "summary", "fromId", "tokensBefore", "usage", "provider"} {
		if v, ok := e.Field(name); ok {
			fields[name] = v
		}
	}
	raw, err := json.Marshal(fields)
	return raw, err == nil
}

// blocks decodes content: a string is one text block; anything else that is
// not an array of blocks is shown as its JSON.
func blocks(content json.RawMessage) []block {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var raws []json.RawMessage
	if json.Unmarshal(content, &raws) != nil {
		return []block{{Type: "json", Text: string(content)}}
	}
	out := make([]block, 0, len(raws))
	for _, r := range raws {
		var b block
		if json.Unmarshal(r, &b) != nil || b.Type == "" {
			b = block{Type: "json", Text: string(r)}
		}
		out = append(out, b)
	}
	return out
}

// heading is the session's name, or "pi session <id>" when it has none.
func (d *session) heading() string { return cmp.Or(d.name, "pi session "+d.s.Header.ID) }

// clean applies the redaction, if asked.
func (d *session) clean(s string) string {
	s = visible(s)
	if d.opts.Redact == nil || s == "" {
		return s
	}
	ms := d.opts.Redact.Find(s)
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.Start])
		b.WriteString(secrets.Redacted(m.Kind))
		last = m.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// summary is render.Summary of e (the line the views give it), redacted
// if asked. A summary is cut
// short, so it may hold only the start of a secret, which the rules no
// longer recognise: every start (4 bytes or more) of a secret the entry
// holds is taken out too.
func (d *session) summary(e *project.Entry) string {
	rec, err := e.Record()
	if err != nil {
		return "(unreadable)"
	}
	s := render.Summary(rec)
	if d.opts.Redact == nil {
		return s
	}
	raw := e.Message()
	if raw == nil {
		raw, _ = json.Marshal(e.StringField("summary") + " " + e.StringField("name") + " " + e.StringField("label"))
		if c, ok := e.Field("content"); ok {
			raw = append(raw, c...)
		}
	}
	text := string(raw)
	for _, m := range d.opts.Redact.Find(text) {
		if words := shownAs(text[m.Start:m.End]); words != "" {
			s = redactStart(s, words, m.Kind) // first: the raw form's start may be shorter
		}
		s = redactStart(s, text[m.Start:m.End], m.Kind)
	}
	return d.clean(s)
}

// redactStart replaces in s the longest start (4 bytes or more) of secret
// that s holds.
func redactStart(s, secret, kind string) string {
	for k := len(secret); k >= 4; k-- {
		if strings.Contains(s, secret[:k]) {
			return strings.ReplaceAll(s, secret[:k], secrets.Redacted(kind))
		}
	}
	return s
}

// shownAs is a secret found in JSON as a summary shows it: its escapes
// decoded and its white space collapsed (a private key's line breaks become
// spaces); "" when that is how it is found.
func shownAs(secret string) string {
	var decoded string
	if json.Unmarshal([]byte(`"`+secret+`"`), &decoded) != nil {
		decoded = secret
	}
	if words := strings.Join(strings.Fields(decoded), " "); words != secret {
		return words
	}
	return ""
}

// prettyJSON indents raw JSON for display (as it is when it is not JSON).
func prettyJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// when formats an entry's ISO timestamp as "2006-01-02 15:04:05 UTC".
func when(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

// count formats a token count: 1234 → "1,234", 1234567 → "1.23M".
func count(n float64) string {
	switch {
	case n < 0:
		return "-" + count(-n)
	case n >= 1e6:
		return fmt.Sprintf("%.2fM", n/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1fk", n/1e3)
	}
	s := fmt.Sprintf("%.0f", n)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}

// usageLine describes one usage: "in 1,234 · out 56 · cache 12.0k read, 0 written · $0.0123".
func usageLine(u *usage) string {
	parts := []string{"in " + count(u.Input), "out " + count(u.Output)}
	if u.CacheRead > 0 || u.CacheWrite > 0 {
		parts = append(parts, "cache "+count(u.CacheRead)+" read, "+count(u.CacheWrite)+" written")
	}
	parts = append(parts, text.Money(u.Cost.Total))
	return strings.Join(parts, " · ")
}

// shortID is the first 8 characters of an id, as the views show it.
func shortID(id string) string { return id[:min(len(id), 8)] }

// resultText joins the text blocks of a tool result.
func resultText(bs []block) string {
	var parts []string
	for _, b := range bs {
		if b.Type == "text" || b.Type == "json" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// imageMIME reports whether an image block can be shown inline: a raster
// image/* type and base64 data.
func imageMIME(b block) bool {
	raster := []string{"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"}
	return slices.Contains(raster, b.MimeType) && b.Data != "" && strings.Trim(b.Data, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") == ""
}

// visible makes the control characters of s visible and harmless: CRLF
// becomes LF, C0 controls but tab and newline become their Unicode control
// pictures (ESC shows as ␛), DEL and the C1 controls U+FFFD; invalid UTF-8
// becomes U+FFFD.
func visible(s string) string {
	clean := utf8.ValidString(s)
	for i := 0; clean && i < len(s); i++ {
		c := s[i]
		clean = !(c < 0x20 && c != '\t' && c != '\n' || c == 0x7f || c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f)
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 && r != '\t' && r != '\n':
			return 0x2400 + r
		case r == 0x7f || r >= 0x80 && r <= 0x9f:
			return utf8.RuneError
		}
		return r
	}, strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\r\n", "\n"))
}
