// Package fix has one job: append-only repairs and new sessions built from
// old ones (issue 14). Unstick pairs a leaf's tool calls and results again,
// Slim hides a leaf's large messages behind placeholders (both with
// context_edit entries), Fork writes a leaf's path as a new session as pi's
// /fork does, and RecoverHeader rebuilds a lost header line.
//
// Unstick and Slim only append complete lines (migrate.Append): the
// original bytes stay a prefix. RecoverHeader goes through the safe rewrite
// protocol (migrate.Rewrite). Fork creates a new file exclusively and never
// touches its source. Each works from the file's index (project.Open:
// memory per entry, not per byte) and checks its own result by projecting
// it again before anything is written (fork: before the new file is
// synced; a failure removes it).
package fix
