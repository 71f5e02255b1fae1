package project

import (
	"unsafe"

	"github.com/pisess/pisess/internal/session"
)

// The entry types (session.EntryTypes, and the header's "session") and the
// message roles pi writes (session.MessageRoles, and the legacy name of
// custom, which the index meets before a record is migrated). The index
// keeps these constants rather than a copy per entry.
var (
	entryTypes   = append(entryTypeNames(), "session")
	messageRoles = roleNames()
)

// roleNames lists session.MessageRoles and session.LegacyCustomRole.
func roleNames() []string {
	roles := session.MessageRoles()
	return append(roles[:], session.LegacyCustomRole)
}

// entryTypeNames lists the names of session.EntryTypes.
func entryTypeNames() []string {
	var names []string
	for _, e := range session.EntryTypes() {
		names = append(names, e.Name)
	}
	return names
}

// internType returns the constant for a known entry type, else a copy.
func internType(s string) string { return intern(entryTypes, s) }

// typeCode returns 1 + the index of a known entry type, else 0.
func typeCode(typ string) uint8 { return code(entryTypes, typ) }

// roleCode returns 1 + the index of a known message role, else 0.
func roleCode(role string) uint8 { return code(messageRoles, role) }

func code(known []string, s string) uint8 {
	for i, k := range known {
		if s == k {
			return uint8(i + 1)
		}
	}
	return 0
}

func intern(known []string, s string) string {
	for _, k := range known {
		if s == k {
			return k
		}
	}
	return string([]byte(s))
}

// unsafeString is a string that shares b, which must never change.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// internRole returns the constant for a known message role, else a copy.
func internRole(s string) string { return intern(messageRoles, s) }
