package project

import "unsafe"

// kept returns name, the constant a code names, or when there is none (the
// code is 0) a copy of s, which may share a line buffer.
func kept(name, s string) string {
	if name != "" {
		return name
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
