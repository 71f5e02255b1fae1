// Package finding defines the findings every pisess check reports: a stable
// code, a severity, and where in which file the problem is.
//
// Codes are part of the command-line contract (docs/spec/cli.md): they
// are never renamed, only added.
package finding

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Severity says whether a finding fails a file.
type Severity string

// The severities. Warnings fail a file only under --strict.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Code is a stable, machine-readable finding code.
type Code string

// Parse-level codes (internal/session's reader).
const (
	PartialTail         Code = "partial_tail"
	TornLine            Code = "torn_line" // a torn write that pi resumed after: mid-file
	BOM                 Code = "bom"       // the file starts with a UTF-8 byte order mark
	InvalidJSON         Code = "invalid_json"
	InvalidUTF8         Code = "invalid_utf8"
	TrailingData        Code = "trailing_data"
	ConcatenatedObjects Code = "concatenated_objects"
	NotObject           Code = "not_object"
	BlankLine           Code = "blank_line"
	MissingFinalNewline Code = "missing_final_newline"
	ZeroFill            Code = "zero_fill"
	LineTooLong         Code = "line_too_long"
	FileTooLarge        Code = "file_too_large"
	TooDeep             Code = "too_deep" // nesting deeper than session.MaxDepth
)

// Structure codes: the header and the record sequence.
const (
	MissingHeader      Code = "missing_header"
	MisplacedHeader    Code = "misplaced_header"
	UnsupportedVersion Code = "unsupported_version"
	NeedsMigration     Code = "needs_migration"
	NotASession        Code = "not_a_session"
	UnknownEntryType   Code = "unknown_entry_type"
)

// Schema and linkage codes (internal/validate).
const (
	Schema                Code = "schema"
	DuplicateID           Code = "duplicate_id"
	MissingParent         Code = "missing_parent"
	ForwardParent         Code = "forward_parent"
	SelfParent            Code = "self_parent"
	OrphanToolResult      Code = "orphan_tool_result"
	ToolNameMismatch      Code = "tool_name_mismatch"
	DanglingReference     Code = "dangling_reference"
	ContextEditTarget     Code = "context_edit_target"
	DanglingFirstKept     Code = "dangling_first_kept"
	UnpairedToolInContext Code = "unpaired_tool_in_context"
	UnansweredToolCall    Code = "unanswered_tool_call" // the default leaf's context ends in a call without its result
	ParentCycle           Code = "parent_cycle"         // path, context, export, fixes: the walk up from the leaf comes back to an entry
	InterleavedAppends    Code = "interleaved_appends"  // two branches grow by turns: two pi processes appended to one file
)

// I/O codes: the file itself could not be read (exit code 2).
const (
	IOError Code = "io_error"
)

// Finding is one problem found at one place.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	Line     int      `json:"line"`    // 1-based physical line; 0 = the whole file
	EntryID  *string  `json:"entryId"` // the entry's id when known
	Pointer  string   `json:"pointer"` // RFC 6901 pointer into the line's object
	Message  string   `json:"message"`
}

// Errorf returns an error finding for a whole line.
func Errorf(code Code, line int, format string, args ...any) Finding {
	return Finding{Severity: Error, Code: code, Line: line, Message: fmt.Sprintf(format, args...)}
}

// Warnf returns a warning finding for a whole line.
func Warnf(code Code, line int, format string, args ...any) Finding {
	return Finding{Severity: Warning, Code: code, Line: line, Message: fmt.Sprintf(format, args...)}
}

// WithEntry returns f naming the entry id (copied: the id may share a
// buffer that is about to be reused).
func (f Finding) WithEntry(id string) Finding {
	if id != "" {
		id = strings.Clone(id)
		f.EntryID = &id
	}
	return f
}

// WithPointer returns f pointing at a value inside the line's object.
func (f Finding) WithPointer(p string) Finding {
	f.Pointer = p
	return f
}

// String formats f as "line: severity code: message" (no file name).
func (f Finding) String() string {
	loc := ""
	if f.Line > 0 {
		loc = strconv.Itoa(f.Line) + ": "
	}
	ptr := ""
	if f.Pointer != "" {
		ptr = " (at " + f.Pointer + ")"
	}
	return fmt.Sprintf("%s%s %s: %s%s", loc, f.Severity, f.Code, f.Message, ptr)
}

// NameBytes is a file name's exact bytes when the name is not valid UTF-8,
// else nil. JSON output carries them as "fileBytes" (base64) beside "file",
// where invalid bytes read as U+FFFD: two such names stay apart.
func NameBytes(name string) []byte {
	if utf8.ValidString(name) {
		return nil
	}
	return []byte(name)
}
