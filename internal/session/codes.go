package session

// Entry types and message roles have fixed one-byte codes, which indexes
// keep instead of strings; 0 is no name, or an unknown one. A lookup
// compares strings, most often only the first ("message", "user").

// headerTypeCode is the code of the header's type, "session".
const headerTypeCode = uint8(len(entryTypes) + 1)

// TypeCode returns the code of an entry type: 1 + its index in
// EntryTypes, or headerTypeCode for "session"; 0 for any other name.
func TypeCode(typ string) uint8 {
	for i := range entryTypes {
		if entryTypes[i].Name == typ {
			return uint8(i + 1)
		}
	}
	if typ == "session" {
		return headerTypeCode
	}
	return 0
}

// TypeName returns the entry type of code c, "" for 0 or no code.
func TypeName(c uint8) string {
	if c == headerTypeCode {
		return "session"
	}
	if c == 0 || int(c) > len(entryTypes) {
		return ""
	}
	return entryTypes[c-1].Name
}

// RoleCode returns the code of a message role: 1 + its index in
// MessageRoles, then LegacyCustomRole's; 0 for any other name.
func RoleCode(role string) uint8 {
	for i, r := range messageRoles {
		if r == role {
			return uint8(i + 1)
		}
	}
	return 0
}

// RoleName returns the message role of code c, "" for 0 or no code.
func RoleName(c uint8) string {
	if c == 0 || int(c) > len(messageRoles) {
		return ""
	}
	return messageRoles[c-1]
}
