package session

// entryTypes are the eleven entry types of a session file
// (session-format.md section 3), in the spec's order.
var entryTypes = [...]string{
	"message", "model_change", "thinking_level_change", "usage", "compaction",
	"branch_summary", "custom", "custom_message", "context_edit", "label", "session_info",
}

// EntryTypes returns the eleven entry types, in the spec's order.
func EntryTypes() []string { return append([]string(nil), entryTypes[:]...) }

// IsEntryType reports whether t is one of the eleven entry types. The
// switch repeats entryTypes because validate asks for every entry, and a
// switch is four times faster than a scan (TestEntryTypes holds the two
// together).
func IsEntryType(t string) bool {
	switch t {
	case "message", "model_change", "thinking_level_change", "usage", "compaction",
		"branch_summary", "custom", "custom_message", "context_edit", "label", "session_info":
		return true
	}
	return false
}
