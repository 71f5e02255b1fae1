package session

// PiEntryTypes returns the eleven entry types of a pi session file
// (session-format.md section 3), in the spec's order: those of
// EntryTypes, the one list, that pi writes.
func PiEntryTypes() []string {
	var out []string
	for _, e := range EntryTypes() {
		if e.Pi {
			out = append(out, e.Name)
		}
	}
	return out
}

// IsEntryType reports whether t is one of the eleven entry types.
func IsEntryType(t string) bool {
	e, ok := entryType(t)
	return ok && e.Pi
}

// MessageRoles returns the roles of the messages pi 1.6.0 writes
// (session-format.md section 4, AgentMessage), in the spec's order: the one
// list validate's schemas, project's index and audit's counts read.
func MessageRoles() [8]string { return [8]string(messageRoles[:8]) }

// messageRoles are the roles with a code: MessageRoles, LegacyCustomRole.
var messageRoles = [...]string{"user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary", "system", LegacyCustomRole}

// LegacyCustomRole is the version-1/2 name of the "custom" role, which
// migration renames and a version-3 file may not hold.
const LegacyCustomRole = "hookMessage"
