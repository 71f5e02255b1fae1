package session

import (
	"bytes"
	"slices"
)

// Dialect names the program family whose session files a file follows:
// pi itself, or oh-my-pi (omp, npm @oh-my-pi/pi-coding-agent), the pi fork
// that adds a title slot on line 1 and entry types of its own (docs/omp.md).
type Dialect string

// The dialects.
const (
	Pi  Dialect = "pi"
	Omp Dialect = "omp"
)

// TitleSlotBytes is the size of omp's title slot: line 1, exactly 256
// bytes of UTF-8 including its "\n" (omp's SESSION_TITLE_SLOT_BYTES).
const TitleSlotBytes = 256

// SniffBytes is how much of the start of a file SniffDialect looks at.
const SniffBytes = 64 << 10

// sniffLines bounds the lines SniffDialect reads: the header and the first
// entries of a session, where omp writes its model_change.
const sniffLines = 16

// IsTitleSlot reports whether line (one physical line, without its line
// terminator) is omp's title slot: an object with "type":"title" and
// "v":1, as omp's parseTitleSlotLine accepts it (its other keys are the
// schema's business, omp-title.json).
func IsTitleSlot(line []byte) bool {
	if !bytes.Contains(line, []byte(`"title"`)) {
		return false // the common case, a pi header, decided without a tape
	}
	var t Tape
	if t.Build(line) != nil || t.Kind(0) != KindObject {
		return false
	}
	typ, _ := t.Str(t.Get(0, "type"))
	v, err := t.Int(t.Get(0, "v"))
	return typ == "title" && err == nil && v == 1
}

// SniffDialect tells the dialect of a session from the start of its file
// (prefix: up to SniffBytes of it). A file is omp's when line 1 is the
// title slot, or, for files of older omp that have no slot, when the header
// or one of the first entries has something only omp writes: an omp entry
// type (model_usage, mode_change, ...), model_change in omp's form (model
// "provider/id" instead of provider and modelId), thinking_level_change with
// configured, omp's compaction fields, or omp's header fields. Anything
// else is pi's. Lines that do not parse are skipped: damage is the
// validator's business, not the sniffer's.
func SniffDialect(prefix []byte) Dialect {
	var t Tape
	for n := 0; n < sniffLines && len(prefix) > 0; n++ {
		line, rest, complete := bytes.Cut(prefix, []byte("\n"))
		prefix = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		if n == 0 {
			line = bytes.TrimPrefix(line, []byte(byteOrderMark))
			if IsTitleSlot(line) {
				return Omp
			}
		}
		if !complete || t.Build(line) != nil || t.Kind(0) != KindObject {
			continue
		}
		if d, ok := recordDialect(&t); ok {
			return d
		}
	}
	return Pi
}

// EntryType is an entry type and the dialects that write it.
type EntryType struct {
	Name    string
	Pi, Omp bool
}

// entryTypes is the one list of entry types: pi's eleven in
// session-format.md section 3's order, then the eight only omp 18 writes
// (its SessionEntry union in session-entries.ts has sixteen). session
// takes its vocabulary from here: the reader needs it to sniff a dialect.
var entryTypes = [...]EntryType{
	{"message", true, true}, {"model_change", true, true}, {"thinking_level_change", true, true},
	{"usage", true, false}, {"compaction", true, true}, {"branch_summary", true, true},
	{"custom", true, true}, {"custom_message", true, true}, {"context_edit", true, false},
	{"label", true, true}, {"session_info", true, false},
	{"model_usage", false, true}, {"service_tier_change", false, true}, {"title_change", false, true},
	{"ttsr_injection", false, true}, {"session_init", false, true}, {"mode_change", false, true},
	{"credential_pin", false, true}, {"reset_boundary", false, true},
}

// EntryTypes returns every entry type of either dialect, pi's first in
// the spec's order.
func EntryTypes() []EntryType { return slices.Clone(entryTypes[:]) }

// entryType looks up the entry type named typ.
func entryType(typ string) (EntryType, bool) {
	if c := int(TypeCode(typ)); c > 0 && c <= len(entryTypes) {
		return entryTypes[c-1], true
	}
	return EntryType{}, false
}

// OmpEntryTypes returns omp's sixteen entry types, sorted.
func OmpEntryTypes() []string {
	var out []string
	for _, e := range entryTypes {
		if e.Omp {
			out = append(out, e.Name)
		}
	}
	slices.Sort(out)
	return out
}

// IsOmpEntryType reports whether t is one of omp's entry types.
func IsOmpEntryType(t string) bool {
	e, ok := entryType(t)
	return ok && e.Omp
}

// recordDialect tells the dialect from one record on t, when it tells.
func recordDialect(t *Tape) (Dialect, bool) {
	typ, _ := t.Str(t.Get(0, "type"))
	has := func(key string) bool { return t.Get(0, key) >= 0 }
	et, known := entryType(typ)
	switch {
	case known && !et.Pi:
		return Omp, true
	case known && !et.Omp:
		return Pi, true
	case typ == "session":
		if has("titleSource") || has("additionalDirectories") || has("previousSessionFiles") || has("providerPromptCacheKey") {
			return Omp, true
		}
	case typ == "model_change":
		if has("model") && !has("modelId") {
			return Omp, true
		}
		return Pi, true
	case typ == "thinking_level_change":
		if has("configured") {
			return Omp, true
		}
	case typ == "compaction":
		if has("shortSummary") || has("method") || has("tokensAfter") || has("providerReplayThroughEntryId") || has("preserveData") {
			return Omp, true
		}
		if has("retainedTail") {
			return Pi, true
		}
	}
	return "", false
}
