// Package safefile is pisess's one writer: every command that creates,
// replaces or appends to a file does it here, so that fault injection and
// interrupt clean-up cover all of them. It knows nothing of sessions.
//
// The pieces:
//
//   - FS is the file-system seam; OS() is the real one. Every step of the
//     protocol goes through it, so tests can inject a failure at each.
//   - Rewrite replaces a file with a new generation (session-format.md
//     section 9: exclusive temp file, fsync, verify, backup, lock, re-check,
//     rename, directory fsync, mtime kept, lines appended during the rename
//     carried over; full clean-up on failure). Append adds complete lines
//     and keeps every old byte as a prefix. Create makes a new file that
//     appears whole and never overwrites one.
//   - Temps records the temp files under way, so a signal (Ctrl-C,
//     SIGTERM) removes them (Temps.RemoveOnSignal); CleanTemps removes a
//     killed run's leftovers.
//   - Spool holds output until it is complete (memory, past 4 MiB an
//     unlinked temporary file).
//   - Scratch makes a file of the system's temporary directory, recorded
//     in Temps, removed on Close (or at once: Unlink).
//   - Move gives a file a new name (link, fsync, remove, fsync; never over
//     other bytes), MkdirAll makes its directory, Delete removes one.
//   - Error is the typed failure of a command that writes: a stable Code
//     and ExitCode() (1: refused to protect data, 2: I/O failure).
//
// docs/migration.md describes the protocol, what each failure leaves
// behind and how to restore a backup.
package safefile
