// Package validate checks one session file in a single streaming pass: the
// strict parse of internal/session's reader, the header and record structure, the JSON
// Schema of every entry, and the linkage rules between entries (ids,
// parents, tool calls, references). Its memory grows with the number of
// entries, never with the size of their content.
package validate
