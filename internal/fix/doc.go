// Package fix has one job: append-only repairs and new sessions built from
// old ones (issue 14).
//
//   - Unstick makes the context of a leaf well-formed for pi 1.6.0 again: a
//     toolResult (isError) for each call the context ends waiting for, a
//     context_edit that drops a result whose call was summarised away, and
//     one that turns a call left without its result mid-context into text.
//   - Slim hides, with context_edit entries, each message of a leaf's
//     context whose content is larger than a limit, behind a placeholder
//     that says what was elided.
//   - Fork writes the path of a leaf as a new session file, as pi 1.6.0's
//     SessionManager.createBranchedSession builds it.
//   - RecoverHeader rebuilds a lost header line from the file and directory
//     names.
//
// Unstick and Slim only append complete lines to the file (migrate.Append):
// the original bytes stay a prefix. RecoverHeader goes through the safe
// rewrite protocol (migrate.Rewrite). Fork creates a new file exclusively
// and never touches its source. Each works from the file's index
// (project.Open: memory per entry, not per byte), reads entries back one
// at a time, and checks its own result by projecting it again: unstick and
// slim before anything is written, fork before the new file is synced (a
// failure removes it).
package fix
