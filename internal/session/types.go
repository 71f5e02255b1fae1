package session

import "slices"

// entryTypes are the eleven entry types of a session file
// (session-format.md section 3), in the spec's order.
var entryTypes = [...]string{
	"message", "model_change", "thinking_level_change", "usage", "compaction",
	"branch_summary", "custom", "custom_message", "context_edit", "label", "session_info",
}

// EntryTypes returns the eleven entry types, in the spec's order.
func EntryTypes() []string { return append([]string(nil), entryTypes[:]...) }

// IsEntryType reports whether t is one of the eleven entry types.
func IsEntryType(t string) bool { return slices.Contains(entryTypes[:], t) }
