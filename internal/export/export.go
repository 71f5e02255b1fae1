// Package export renders a session as a page to read or share: one
// self-contained HTML file (the whole tree, and the conversation of every
// branch, the path to a leaf shown and any other a click away) or a
// Markdown transcript of that path (or of every branch, each entry once).
//
// Both are written as they are made: the entries are read back from the
// session's file one at a time and let go, so that a page costs about the
// index and the largest entry, not the file.
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/secrets"
	"github.com/pisess/pisess/internal/session"

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
	// Summary is the line an entry gets in the page's tree and headings:
	// the views' describer (render.Summary), which cli passes in. It must
	// be set.
	Summary func(*project.Record) string
	// MaxBlock is how many bytes of a tool call's arguments or a tool
	// result the Markdown transcript keeps (0: DefaultMaxBlock).
	MaxBlock int
}

// DefaultMaxBlock is how much of a tool block the Markdown transcript keeps.
const DefaultMaxBlock = 2000

// exported is what both renderers need: the path to the leaf, the totals
// of that path, and the writer of the output. Entries are read back and
// decoded one at a time, as they are written, so the page costs the
// largest entry, not the file.
type exported struct {
	w      *bufio.Writer
	s      *project.Session
	leaf   *project.Entry
	path   []*project.Entry
	onPath []bool // by entry index
	total  usage
	models []string // along the path, in order of first use
	name   string
	opts   Options
	err    error // the first record that could not be read back
	// records reads the entries back; a record it returns (and the
	// strings of a turn decoded from it) lasts until the next read.
	records *project.RecordReader
	// lastRead is the size of the record read last.
	lastRead int
}

// turn is one entry, decoded for display.
type turn struct {
	entry *project.Entry
	rec   *project.Record // nil when it could not be read
	kind  string          // "user", "assistant", "toolResult", … or the entry type
	msg   message
	leaf  bool
}

// message is an AgentMessage, or the fields of a non-message entry that
// are shown, read leniently: a field of an unexpected type is left empty
// and the raw JSON is shown instead where it matters. Each field is
// decoded from the record's tape on its own; the content stays there
// (content: its node, -1 when absent) until it is written.
type message struct {
	Role         string
	content      int
	Provider     string
	Model        string
	Usage        *usage
	StopReason   string
	ErrorMessage string
	ToolName     string
	IsError      bool
	Command      string
	Output       string
	ExitCode     *float64
	CustomType   string
	Summary      string
	FromID       string
	TokensBefore float64
}

// decodeMessage reads the members of the object at node obj of t that are
// shown (the strings may share the record's memory): of a message entry's
// message (inMessage) all the fields of message, of another entry only
// customType, summary, fromId, tokensBefore, usage and provider. A member
// of another type than its field's is left empty; a usage or exitCode
// that is not null is there, empty when it is not what it should be.
func decodeMessage(t *session.Tape, obj int, inMessage bool) message {
	str := func(name string) string { return t.StrOf(obj, name) } // off the tape: a long output or summary is decoded once, or shared
	m := message{content: t.Get(obj, "content"), CustomType: str("customType"), Summary: str("summary"), FromID: str("fromId"), Provider: str("provider")}
	readNumber(&m.TokensBefore, t, t.Get(obj, "tokensBefore"))
	if n := t.Get(obj, "usage"); n >= 0 {
		m.Usage = usageAt(t, n)
	}
	if !inMessage {
		return m
	}
	m.Role, m.Model, m.StopReason, m.ErrorMessage = str("role"), str("model"), str("stopReason"), str("errorMessage")
	m.ToolName, m.Command, m.Output = str("toolName"), str("command"), str("output")
	m.IsError = t.Kind(t.Get(obj, "isError")) == session.KindTrue
	if n := t.Get(obj, "exitCode"); n >= 0 && t.Kind(n) != session.KindNull {
		m.ExitCode = new(float64)
		readNumber(m.ExitCode, t, n)
	}
	return m
}

// readNumber sets *dst to number node n of t, unless n is no number or
// one out of a float64's range.
func readNumber(dst *float64, t *session.Tape, n int) {
	if t.Kind(n) != session.KindNumber {
		return
	}
	if f, err := strconv.ParseFloat(string(t.Text(n)), 64); err == nil {
		*dst = f
	}
}

// usageAt reads the usage at node n of t, its members by their exact
// names, as pi reads them: null is none, any other value a usage, empty
// unless an object.
func usageAt(t *session.Tape, n int) *usage {
	if t.Kind(n) == session.KindNull {
		return nil
	}
	u := &usage{}
	readNumber(&u.Input, t, t.Get(n, "input"))
	readNumber(&u.Output, t, t.Get(n, "output"))
	readNumber(&u.CacheRead, t, t.Get(n, "cacheRead"))
	readNumber(&u.CacheWrite, t, t.Get(n, "cacheWrite"))
	readNumber(&u.TotalTokens, t, t.Get(n, "totalTokens"))
	readNumber(&u.Cost.Total, t, t.Get(t.Get(n, "cost"), "total"))
	return u
}

// usage is a provider's token and cost report.
type usage struct {
	Input, Output, CacheRead, CacheWrite, TotalTokens float64
	Cost                                              struct{ Total float64 }
}

func (u *usage) add(v *usage) {
	u.Input += v.Input
	u.Output += v.Output
	u.CacheRead += v.CacheRead
	u.CacheWrite += v.CacheWrite
	u.Cost.Total += v.Cost.Total
	if v.TotalTokens > 0 {
		u.TotalTokens += v.TotalTokens
	} else { // missing: the sum of the parts
		u.TotalTokens += v.Input + v.Output + v.CacheRead + v.CacheWrite
	}
}

// block is one content block.
type block struct {
	Type, Text, Thinking, Data, MimeType, ID, Name string
	Arguments                                      json.RawMessage
}

// write decodes the path to leaf and has render write it to w, buffered.
// The error is a *project.CycleError, a record that could not be read
// back, or a write error.
func write(w io.Writer, s *project.Session, leaf *project.Entry, opts Options, render func(*exported)) error {
	d, err := newSession(s, leaf, opts)
	if err != nil {
		return err
	}
	d.w = bufio.NewWriterSize(w, 64<<10)
	render(d)
	if err := d.w.Flush(); err != nil {
		return err
	}
	return d.err
}

// newSession finds the path to leaf and adds up its usage. The error is
// a *project.CycleError or a record that could not be read back.
func newSession(s *project.Session, leaf *project.Entry, opts Options) (*exported, error) {
	path, err := s.Path(leaf)
	if err != nil {
		return nil, err
	}
	d := &exported{s: s, leaf: leaf, path: path, onPath: make([]bool, len(s.Entries)), opts: opts, name: opts.Name, records: s.Records()}
	for _, e := range s.Entries {
		if e.Type() == "session_info" { // the latest, trimmed; a blank name clears it (pi's getSessionName)
			d.name = cmp.Or(session.JSTrim(e.StringField("name")), opts.Name)
		}
	}
	for _, e := range path {
		d.onPath[e.Index] = true
		if e.Role() != "assistant" && e.Type() != "model_change" {
			continue
		}
		t := d.turn(e)
		if m := t.model(); m != "" && !slices.Contains(d.models, m) {
			d.models = append(d.models, m)
		}
		if t.kind == "assistant" && t.msg.Usage != nil {
			d.total.add(t.msg.Usage)
		}
	}
	return d, d.err
}

// turn reads e back and decodes it. A record that cannot be read is
// shown as unreadable, and the export fails at its end (d.err).
func (d *exported) turn(e *project.Entry) *turn {
	t := &turn{entry: e, kind: e.Type(), leaf: e == d.leaf, msg: message{content: -1}}
	rec, err := d.read(e)
	if err != nil {
		return t
	}
	t.rec = rec
	if t.kind == "message" {
		t.msg = decodeMessage(&rec.Tape, rec.Member("message"), true)
		t.kind = cmp.Or(t.msg.Role, "message")
	} else {
		t.msg = decodeMessage(&rec.Tape, 0, false)
	}
	return t
}

// collectBefore is the size of a record after whose reading the
// collector runs before the next: a long record's memory is reused, not
// added to.
const collectBefore = 16 << 20

// str is the top-level member name of the entry when it is a string.
func (t *turn) str(name string) string {
	if t.rec == nil {
		return ""
	}
	return t.rec.Str(name)
}

// raw is the top-level member name of the entry, nil when absent.
func (t *turn) raw(name string) []byte {
	if t.rec == nil {
		return nil
	}
	return t.rec.Raw(name)
}

// content is the turn's content blocks.
func (t *turn) content() []block {
	if t.rec == nil {
		return nil
	}
	return blocks(&t.rec.Tape, t.msg.content)
}

// blocks decodes content (node n of t, -1: none): a string is one text
// block; anything else that is not an array of blocks is shown as its JSON.
// The texts are read off the tape: one without escapes shares the record's
// memory, one with escapes is decoded once (a message may be many
// megabytes).
func blocks(t *session.Tape, n int) []block {
	if n < 0 || t.Kind(n) == session.KindNull {
		return nil
	}
	if s, ok := t.Str(n); ok {
		return []block{{Type: "text", Text: s}}
	}
	if t.Kind(n) != session.KindArray {
		return []block{{Type: "json", Text: string(t.Raw(n))}}
	}
	var out []block
	for el := range t.Elements(n) {
		out = append(out, decodeBlock(t, el))
	}
	return out
}

// decodeBlock decodes the content block at node n; one that is not an
// object, has no type, or has a member of another type than a block's
// (text, thinking, data, mimeType, id and name are strings or null), is
// shown as its JSON.
func decodeBlock(t *session.Tape, n int) block {
	asJSON := func() block { return block{Type: "json", Text: string(t.Raw(n))} }
	if t.Kind(n) != session.KindObject {
		return asJSON()
	}
	var b block
	for _, f := range []struct {
		name string
		dst  *string
	}{{"type", &b.Type}, {"text", &b.Text}, {"thinking", &b.Thinking}, {"data", &b.Data}, {"mimeType", &b.MimeType}, {"id", &b.ID}, {"name", &b.Name}} {
		v := t.Get(n, f.name)
		if v < 0 || t.Kind(v) == session.KindNull {
			continue
		}
		s, ok := t.Str(v)
		if !ok {
			return asJSON()
		}
		*f.dst = s
	}
	if b.Type == "" {
		return asJSON()
	}
	b.Arguments = t.Raw(t.Get(n, "arguments"))
	return b
}

// heading is the session's name, or "pi session <id>" when it has none.
func (d *exported) heading() string { return cmp.Or(d.name, "pi session "+d.s.Header.ID) }

// clean applies the redaction, if asked.
func (d *exported) clean(s string) string {
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

// read reads e back, valid until the next read; after a long record it
// lets the collector free it first, so that its memory holds the next.
func (d *exported) read(e *project.Entry) (*project.Record, error) {
	if d.lastRead >= collectBefore {
		runtime.GC()
	}
	rec, err := d.records.Read(e)
	if err != nil {
		d.err = cmp.Or(d.err, err)
		return nil, err
	}
	d.lastRead = len(rec.Tape.Input())
	return rec, nil
}

// summary is opts.Summary of e (the line the views give it), redacted
// if asked (see summaryOf).
func (d *exported) summary(e *project.Entry) string {
	rec, err := d.read(e)
	if err != nil {
		return "(unreadable)"
	}
	return strings.Clone(d.summaryOf(rec)) // it may share the record's bytes, which the next read reuses
}

// summaryOf is opts.Summary of a record, redacted if asked. A summary
// is cut short, so it may hold only the start of a secret, which the
// rules no longer recognise: every start (4 bytes or more) of a secret
// the entry holds is taken out too.
func (d *exported) summaryOf(rec *project.Record) string {
	if rec == nil {
		return "(unreadable)"
	}
	s := d.opts.Summary(rec)
	if d.opts.Redact == nil {
		return s
	}
	var raw []byte
	if rec.Entry.Type() == "message" {
		raw = rec.Raw("message")
	}
	if raw == nil {
		raw, _ = json.Marshal(rec.Str("summary") + " " + rec.Str("name") + " " + rec.Str("label"))
		raw = append(raw, rec.Raw("content")...)
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
	decoded, ok := session.Unquote([]byte(`"` + secret + `"`))
	if !ok {
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
