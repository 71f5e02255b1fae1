// Package grep finds text in pi session files as a person reads it: the
// decoded strings of messages (text, thinking, tool-call arguments, tool
// results, shell commands and their output), summaries and custom
// messages, in every branch, never the JSON around them (keys, ids,
// escapes). A line that cannot hold a match is skipped on its raw bytes,
// without laying it on a Tape, when that is sound (prefilter.go).
package grep

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pisess/pisess/internal/session"
)

// Options say what to look for and where.
type Options struct {
	Pattern    string   // an RE2 pattern (Go's regexp), or a fixed string with Fixed
	Fixed      bool     // Pattern is a literal string
	IgnoreCase bool     // letters match in either case (Unicode simple folding)
	Thinking   bool     // search assistants' thinking too
	Roles      []string // only these roles (Match.Role); empty: every role
	// Since and Until bound the entries' timestamps (Until excluded); an
	// entry without a readable timestamp is left out when either is set.
	Since, Until time.Time
	Limits       session.Limits
}

// A Match is one text of an entry that holds the pattern: the first
// occurrence in it is shown.
type Match struct {
	Line      int    // 1-based physical line of the entry
	EntryID   string // the entry's id, "" when it has none (version 1)
	Role      string // the message's role, else the entry's type (compaction, branch_summary, custom_message)
	Timestamp string // the entry's timestamp as written
	// Snippet is the text around the first occurrence, white space
	// runs made single spaces, cut to about SnippetRunes runes with "…"
	// where it was cut; At is the occurrence's byte span in it.
	Snippet string
	At      [2]int
}

// SnippetRunes bound the text shown before and after an occurrence.
const (
	beforeRunes = 40
	afterRunes  = 80
	matchRunes  = 120
)

// Stats are what a search of one file saw.
type Stats struct {
	Lines   int
	Skipped int   // lines the prefilter skipped without reading them
	TooLong []int // lines over Limits.MaxLineBytes: not searched
}

// Matcher is a compiled search. It is safe for use by many goroutines;
// each file is searched with its own scanner.
type Matcher struct {
	opts   Options
	re     *regexp.Regexp
	filter prefilter
	roles  map[string]bool
}

// Compile checks the pattern and makes a Matcher.
func Compile(opts Options) (*Matcher, error) {
	expr := opts.Pattern
	if opts.Fixed {
		expr = regexp.QuoteMeta(expr)
	}
	if opts.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("the pattern %q: %w", opts.Pattern, err)
	}
	m := &Matcher{opts: opts, re: re, filter: newPrefilter(expr)}
	if len(opts.Roles) > 0 {
		m.roles = map[string]bool{}
		for _, r := range opts.Roles {
			m.roles[r] = true
		}
	}
	return m, nil
}

// Roles are the roles a Match can have, for --role's help and checks.
var roles = []string{"user", "assistant", "toolResult", "bashExecution", "custom", "system",
	"branchSummary", "compactionSummary", "compaction", "branch_summary", "custom_message"}

// Roles returns the roles a Match can have.
func Roles() []string { return slices.Clone(roles) }

// File searches one session file read from r and calls found for each
// match, in file order.
func (m *Matcher) File(r io.Reader, found func(Match)) (Stats, error) {
	var st Stats
	sc := &scanner{m: m, found: found}
	rd := session.NewReader(r, m.opts.Limits)
	rd.DeferClassify()
	for rd.Next() {
		l := rd.Line()
		st.Lines++
		if l.Raw == nil && l.Size > 0 {
			st.TooLong = append(st.TooLong, l.Num)
			continue
		}
		if !m.filter.mayMatch(l.Raw) {
			st.Skipped++
			continue
		}
		sc.line(l)
	}
	return st, rd.Err()
}

// scanner searches the lines of one file.
type scanner struct {
	m     *Matcher
	found func(Match)
	tape  session.Tape
	class session.Classifier
	entry entryFacts
}

// entryFacts are the facts of the entry being searched.
type entryFacts struct {
	line      int
	id, role  string
	timestamp string
}

func (sc *scanner) line(l *session.Line) {
	if span, ok := sc.tape.Line(l.Raw); ok {
		sc.object(l.Num, l.Raw[span[0]:span[1]])
		return
	}
	l.Classify(&sc.class)
	if l.Class != session.Object && l.Class != session.Concatenated {
		return // torn or corrupt: no entry a person reads
	}
	for k := range l.Objects {
		if sc.tape.Build(l.Object(k)) == nil {
			sc.object(l.Num, l.Object(k))
		}
	}
}

// object searches the entry on sc.tape (raw is its bytes, for Tape.Line's
// fast path the tape is already built on).
func (sc *scanner) object(line int, _ []byte) {
	t := &sc.tape
	typ := t.StrOf(0, "type")
	f := entryFacts{line: line, id: t.StrOf(0, "id"), timestamp: t.StrOf(0, "timestamp")}
	switch typ {
	case "message":
		msg := t.Get(0, "message")
		f.role = t.StrOf(msg, "role")
		sc.entry = f
		if sc.wanted() {
			sc.message(msg, f.role)
		}
	case "compaction", "branch_summary":
		f.role = typ
		sc.entry = f
		if sc.wanted() {
			sc.text(t.Get(0, "summary"))
		}
	case "custom_message":
		f.role = typ
		sc.entry = f
		if sc.wanted() {
			sc.content(t.Get(0, "content"))
		}
	}
}

// wanted reports whether the current entry passes --role, --since and
// --until.
func (sc *scanner) wanted() bool {
	o := &sc.m.opts
	if sc.m.roles != nil && !sc.m.roles[sc.entry.role] {
		return false
	}
	if o.Since.IsZero() && o.Until.IsZero() {
		return true
	}
	at, err := time.Parse(time.RFC3339Nano, sc.entry.timestamp)
	if err != nil {
		return false
	}
	return (o.Since.IsZero() || !at.Before(o.Since)) && (o.Until.IsZero() || at.Before(o.Until))
}

// message searches what a person reads of a message of the given role.
func (sc *scanner) message(msg int, role string) {
	t := &sc.tape
	switch role {
	case "bashExecution":
		sc.text(t.Get(msg, "command"))
		sc.text(t.Get(msg, "output"))
	case "branchSummary", "compactionSummary":
		sc.text(t.Get(msg, "summary"))
	default:
		sc.content(t.Get(msg, "content"))
	}
}

// content searches a message's content: a string, or blocks of text,
// thinking (with Options.Thinking) and tool calls (their arguments).
func (sc *scanner) content(n int) {
	t := &sc.tape
	if t.Kind(n) == session.KindString {
		sc.text(n)
		return
	}
	for b := range t.Elements(n) {
		switch t.StrOf(b, "type") {
		case "text":
			sc.text(t.Get(b, "text"))
		case "thinking":
			if sc.m.opts.Thinking {
				sc.text(t.Get(b, "thinking"))
			}
		case "toolCall":
			sc.values(t.Get(b, "arguments"))
		}
	}
}

// values searches every string value inside node n (not the keys).
func (sc *scanner) values(n int) {
	t := &sc.tape
	switch t.Kind(n) {
	case session.KindString:
		sc.text(n)
	case session.KindObject:
		for _, v := range t.Members(n) {
			sc.values(v)
		}
	case session.KindArray:
		for e := range t.Elements(n) {
			sc.values(e)
		}
	}
}

// text searches string node n (nothing for any other node).
func (sc *scanner) text(n int) {
	s, ok := sc.tape.Str(n)
	if !ok || s == "" || !sc.m.filter.mayHold(s) {
		return
	}
	at := sc.m.filter.find(sc.m.re, s)
	if at == nil {
		return
	}
	snippet, span := cut(s, at[0], at[1])
	e := sc.entry
	sc.found(Match{Line: e.line, EntryID: strings.Clone(e.id), Role: strings.Clone(e.role),
		Timestamp: strings.Clone(e.timestamp), Snippet: snippet, At: span})
}
