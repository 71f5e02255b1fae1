package secrets

import (
	"bytes"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// Finding is one secret found: where it is and what kind it is, never the
// secret itself.
type Finding struct {
	File      string `json:"file"`
	FileBytes []byte `json:"fileBytes,omitempty"` // the name's bytes when it is not UTF-8
	Line      int    `json:"line"`                // physical line
	// EntryID is the id of the entry on the line ("" when it has none).
	EntryID string `json:"entryId"`
	// Pointer is the JSON pointer of the string holding the secret in the
	// line's object ("" for a line that holds no object, searched as text).
	Pointer string `json:"pointer"`
	Kind    string `json:"kind"`
	// Masked is at most the first 4 characters of the secret (fewer for a
	// short one, a quarter of it at most) followed by "…".
	Masked string `json:"masked"`
	Length int    `json:"length"` // of the secret, in bytes
}

// Options configure a scan or a redaction.
type Options struct {
	Rules  *Rules
	Limits session.Limits
}

// Stats describe a scan.
type Stats struct {
	Lines int64 // physical lines read
	Bytes int64
	// TooLong are the lines over Limits.MaxLineBytes, which could not be
	// searched.
	TooLong []int
}

// hit is one secret on a line: its span in the line's raw bytes.
type hit struct {
	kind, entryID, pointer string
	start, end             int
	masked                 string
	length                 int
}

// lineScanner finds the secrets of one line at a time, reusing its buffers.
type lineScanner struct {
	rules   *Rules
	class   session.Classifier // for lines read with DeferClassify
	finder  finder
	names   memberNames // tells member names in the line
	w       walker
	text    []byte
	offs    offsetMap
	name    []byte // the decoded name of a member written with escapes
	matches []Match
	hits    []hit
	spans   []span      // of the keyword occurrences in the line, in order
	occs    occurrences // of the string being searched
	// everyString: look at every string of the line, not only those
	// holding a keyword occurrence (a rule without keywords, an escape
	// that may spell or split a keyword).
	everyString bool
}

// scanLine returns the secrets on l (valid until the next call).
func (ls *lineScanner) scanLine(l *session.Line) []hit {
	ls.hits = ls.hits[:0]
	raw := l.Raw
	spans, keyed := ls.rules.keywords.positions(raw, ls.spans[:0], &ls.names)
	ls.spans = spans
	ls.everyString = ls.rules.always || hasASCIIEscape(raw) || ls.rules.keywords.escapable
	if len(ls.spans) == 0 && !ls.everyString && !keyed {
		return nil
	}
	l.Classify(&ls.class) // only the lines that may hold a secret
	switch l.Class {
	case session.Object, session.Concatenated:
		for _, span := range l.Objects {
			n := len(ls.hits)
			if ls.scanObject(raw, span[0], span[1]) != nil {
				ls.hits = ls.hits[:n]
				ls.scanText(raw[span[0]:span[1]], span[0])
			}
		}
	default:
		ls.scanText(raw, 0)
	}
	return ls.hits
}

// scanObject finds the secrets in the string values of the object
// raw[from:to].
func (ls *lineScanner) scanObject(raw []byte, from, to int) error {
	obj := raw[from:to]
	id := ""
	idDone := false
	return ls.w.walk(obj, func(s, e int, escaped bool) {
		key := ls.keyName(obj)
		keyed := key != nil && ls.rules.secretKey(key) && e-s >= 8
		in := ls.spansIn(from+s, from+e)
		if !keyed && !ls.everyString && len(in) == 0 {
			return
		}
		text, offs := obj[s:e], offsetMap(nil)
		if escaped {
			ls.text, ls.offs = decodeString(text, ls.text, ls.offs)
			text, offs = ls.text, ls.offs
		}
		var ms []Match
		if ls.everyString {
			ms = ls.finder.find(ls.rules, text, ls.matches[:0])
		} else {
			// The keywords are where the line's search found them.
			ls.occs = occurrences{line: raw, spans: in, start: from + s, end: from + e, offs: offs}
			ms = ls.finder.findAt(ls.rules, text, &ls.occs, ls.matches[:0])
		}
		if keyed && ls.rules.keyedSecret(text) {
			ms = merge(append(ms, Match{Kind: assignmentRule, Start: 0, End: len(text)}))
		}
		ls.matches = ms
		if len(ms) == 0 {
			return
		}
		if !idDone {
			id, _ = session.PrefixString(obj, "id")
			id, idDone = ls.redactName(id), true
		}
		ptr := ls.w.pointerWith(ls.redactName)
		for _, m := range ms {
			start, end := offs.raw(m.Start), offs.raw(m.End) // (offs is nil without escapes)
			ls.hits = append(ls.hits, newHit(m, text, from+s+start, from+s+end, id, ptr))
		}
	})
}

// redactName returns name (a member name, an entry id) with each secret
// in it replaced by Redacted(kind): a finding never shows one.
func (ls *lineScanner) redactName(name string) string {
	if name == "" {
		return name
	}
	ms := ls.finder.find(ls.rules, []byte(name), nil)
	for i := len(ms) - 1; i >= 0; i-- {
		name = name[:ms[i].Start] + Redacted(ms[i].Kind) + name[ms[i].End:]
	}
	return name
}

// spansIn returns the spans of keyword occurrences that meet the line's
// bytes [start,end).
func (ls *lineScanner) spansIn(start, end int) []span {
	i, _ := slices.BinarySearchFunc(ls.spans, start, func(sp span, at int) int { return sp.to - at })
	j, _ := slices.BinarySearchFunc(ls.spans, end, func(sp span, at int) int { return sp.from - at })
	return ls.spans[i:max(i, j)]
}

// keyName returns the name of the member being visited, decoded, or nil
// in an array.
func (ls *lineScanner) keyName(obj []byte) []byte {
	if len(ls.w.stack) == 0 {
		return nil
	}
	top := ls.w.stack[len(ls.w.stack)-1]
	if !top.object || !top.keyValid {
		return nil
	}
	name := obj[top.key[0]:top.key[1]]
	if bytes.IndexByte(name, '\\') >= 0 {
		ls.name, _ = decodeString(name, ls.name, nil)
		return ls.name
	}
	return name
}

// scanText searches text, at offset off of the line, as plain text: a
// line that holds no object, or an object the walker could not follow. It
// is most often JSON cut short, so its escapes are decoded first, as a
// string's are (a key after a \n is at the start of a line of output),
// and a secret's span is mapped back to whole escapes.
func (ls *lineScanner) scanText(text []byte, off int) {
	id, _ := session.PrefixString(text, "id")
	id = ls.redactName(id)
	dec, offs := text, offsetMap(nil)
	if bytes.IndexByte(text, '\\') >= 0 {
		ls.text, ls.offs = decodeString(text, ls.text, ls.offs)
		dec, offs = ls.text, ls.offs
	}
	for _, m := range ls.finder.find(ls.rules, dec, ls.matches[:0]) {
		ls.hits = append(ls.hits, newHit(m, dec, off+offs.raw(m.Start), off+offs.raw(m.End), id, ""))
	}
}

func newHit(m Match, text []byte, start, end int, id, ptr string) hit {
	secret := text[m.Start:m.End]
	return hit{kind: m.Kind, entryID: id, pointer: ptr, start: start, end: end, masked: mask(secret), length: len(secret)}
}

// mask returns at most the first 4 characters of secret, no more than a
// quarter of it, followed by "…".
func mask(secret []byte) string {
	n := min(4, utf8.RuneCount(secret)/4)
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRune(secret[i:])
		i += size
	}
	return string(secret[:i]) + "…"
}

// hasASCIIEscape reports whether raw may hold a \u escape of a printable
// ASCII character (\u0020-\u007f), which could spell a keyword the raw
// bytes do not show. JSON.stringify never writes one.
func hasASCIIEscape(raw []byte) bool {
	for {
		i := bytes.Index(raw, []byte(`\u00`))
		if i < 0 || i+4 >= len(raw) {
			return false
		}
		if c := raw[i+4]; c >= '2' && c <= '7' {
			return true
		}
		raw = raw[i+4:]
	}
}

// Scan reads the session from r and calls found for every secret, in file
// order. name is the File of the findings. The error is an I/O error or
// session.ErrFileTooLarge.
func Scan(name string, r io.Reader, opts Options, found func(Finding)) (Stats, error) {
	var st Stats
	ls := &lineScanner{rules: opts.Rules}
	rd := session.NewReader(r, opts.Limits)
	rd.DeferClassify()
	for rd.Next() {
		l := rd.Line()
		st.Lines++
		if l.Raw == nil && l.Size > 0 {
			st.TooLong = append(st.TooLong, l.Num)
			continue
		}
		for _, h := range ls.scanLine(l) {
			found(Finding{File: name, FileBytes: finding.NameBytes(name), Line: l.Num, EntryID: h.entryID, Pointer: h.pointer, Kind: h.kind, Masked: h.masked, Length: h.length})
		}
	}
	st.Bytes = rd.BytesRead()
	return st, rd.Err()
}
