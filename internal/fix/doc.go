// Package fix has one job: append-only repairs and new sessions built from
// old ones (issue 14). Unstick pairs a leaf's tool calls and results again,
// Slim hides a leaf's large messages behind placeholders (both with
// context_edit entries), Fork writes a leaf's path as a new session as pi's
// /fork does, and RecoverHeader rebuilds a lost header line.
// SlimRewriteFile (slim --rewrite, issue 26) removes the large content
// blocks (session.Blocks) from the file itself, each replaced by a placeholder
// that says what it held, and drops superseded custom entries.
//
// Unstick and Slim only append complete lines (migrate.Append): the
// original bytes stay a prefix. RecoverHeader goes through the safe rewrite
// protocol (migrate.Rewrite), and so does SlimRewriteFile (or it writes a
// new file, as Fork does). Fork creates a new file exclusively and never
// touches its source. Each works from the file's index (project.Open:
// memory per entry, not per byte) and checks its own result by projecting
// it again before anything is written (fork: before the new file is
// synced; a failure removes it). SlimRewriteFile instead streams the file
// a line at a time and validates what it writes.
package fix
