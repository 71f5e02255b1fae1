// Package session is the one model of a pi session file that the checker
// (validate), the views (project) and the rewriters (migrate, fix) share:
// the header and its version, the list of entry types, a typed view of one
// entry read off a parse.Tape, the deterministic ids pisess gives
// version-1 entries, and rule 6, the pairing of tool calls and results in
// a projected context. It reads records only through parse.Tape and
// imports nothing of pisess but parse, so that validate and project both
// stand on it without importing each other or the file rewriter.
package session
