package parse

import (
	"bytes"
	"maps"
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

// ompEntryTypes are the sixteen entry types of omp 18 (its SessionEntry
// union in session-entries.ts); true marks the ones only omp writes (pi
// does not).
var ompEntryTypes = map[string]bool{
	"message": false, "thinking_level_change": false, "model_change": false,
	"compaction": false, "branch_summary": false, "custom": false,
	"custom_message": false, "label": false,
	"model_usage": true, "service_tier_change": true, "title_change": true,
	"ttsr_injection": true, "session_init": true, "mode_change": true,
	"credential_pin": true, "reset_boundary": true,
}

// piEntryTypes are the entry types pi writes and omp does not.
var piEntryTypes = map[string]bool{"session_info": true, "usage": true, "context_edit": true}

// OmpEntryTypes returns omp's sixteen entry types, sorted.
func OmpEntryTypes() []string { return slices.Sorted(maps.Keys(ompEntryTypes)) }

// IsOmpEntryType reports whether t is one of omp's entry types.
func IsOmpEntryType(t string) bool {
	_, ok := ompEntryTypes[t]
	return ok
}

// recordDialect tells the dialect from one record on t, when it tells.
func recordDialect(t *Tape) (Dialect, bool) {
	typ, _ := t.Str(t.Get(0, "type"))
	has := func(key string) bool { return t.Get(0, key) >= 0 }
	switch {
	case ompEntryTypes[typ]:
		return Omp, true
	case piEntryTypes[typ]:
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
