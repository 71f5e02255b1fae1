package session

import (
	"math"
	"unicode/utf8"
)

// CurrentVersion is the session format version pi writes today.
const CurrentVersion = 3

// Header is the typed view of a file's first record. Its strings share the
// Tape's input: clone what outlives it.
type Header struct {
	Type    string // "session" for a version 1-3 header
	Kind    string // pi's newer format has {"kind":"header"} and no type
	HasKind bool   // the record has a "kind" member, whatever its value
	ID      string
	// Version is the header's version: 1 when it is absent or null, as pi
	// reads `version ?? 1`; else the number, when it is a whole number
	// (0 for anything else). VersionOK says it is one pisess reads.
	Version   int
	VersionOK bool
	// VersionText is the version as written ("" when absent), for
	// messages: clipped (Clip).
	VersionText string

	ParentSession string // the session this one was forked from
	BranchedFrom  string // the older name of ParentSession
	Cwd           string
	Timestamp     string
	Provider      string // version 1: the model the session started with
	ModelID       string
	// Title is omp's session title: the header's title, or, when the file
	// has omp's title slot, the slot's, which validate sets as omp's
	// loader applies it (applyTitleSlot); TitleFromSlot says it did.
	Title         string
	TitleFromSlot bool
}

// ReadHeader reads the header on tape t (node 0). It is the one reader of
// a header's version: validate, project and migrate all take it from here.
func ReadHeader(t *Tape) Header {
	h := Header{
		Type:          t.StrOf(0, "type"),
		ID:            t.StrOf(0, "id"),
		ParentSession: t.StrOf(0, "parentSession"),
		BranchedFrom:  t.StrOf(0, "branchedFrom"),
		Cwd:           t.StrOf(0, "cwd"),
		Timestamp:     t.StrOf(0, "timestamp"),
		Provider:      t.StrOf(0, "provider"),
		ModelID:       t.StrOf(0, "modelId"),
		Title:         t.StrOf(0, "title"),
	}
	kind := t.Get(0, "kind")
	h.Kind, _ = t.Str(kind)
	h.HasKind = kind >= 0
	h.Version, h.VersionOK, h.VersionText = version(t, t.Get(0, "version"))
	return h
}

// version reads a header's version at node n: absent or null is 1; a
// number is read as JSON.parse reads it (3.0 is 3); 1, 2 and 3 are the
// versions pisess reads.
func version(t *Tape, n int) (v int, ok bool, text string) {
	switch t.Kind(n) {
	case KindNone:
		return 1, true, ""
	case KindNull:
		return 1, true, "null"
	}
	text = Clip(string(t.Raw(n)))
	f, isNum := t.Float(n)
	if !isNum || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, false, text
	}
	v = int(f)
	return v, v >= 1 && v <= CurrentVersion, text
}

// ClipBytes is the most bytes of a value Clip keeps.
const ClipBytes = 120

// Clip shortens a value quoted in a message to its first ClipBytes bytes
// (never cutting a character) and "…": a file may hold a value of
// megabytes where a short one belongs.
func Clip(s string) string {
	if len(s) <= ClipBytes {
		return s
	}
	n := ClipBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
