// Package migrate upgrades version-1 and version-2 session files to version
// 3 by editing raw lines (keys, order and number formatting are kept),
// repairs the corruptions that need no guessing, and rewrites files with
// the safe rewrite protocol used by `pisess migrate` and `pisess repair`.
//
// The pieces, from the bottom up:
//
//   - Migrate and Repair transform a stream (io.ReadSeeker / io.Reader to
//     io.Writer) and refuse what they must not touch with an *Error that
//     carries the finding.
//   - Rewrite replaces one file with a new generation following the
//     protocol of session-format.md section 9 (exclusive temp file, fsync,
//     verify, backup, re-check, rename, directory fsync; full cleanup on
//     failure). All disk access goes through the FS seam; OS() is the real
//     file system.
//   - MigrateFile and RepairFile combine the two for one path, the way the
//     CLI runs them, and return a Report whose Action is the `action` field
//     of `--format json`.
//
// docs/migration.md describes the protocol, what each failure leaves
// behind and how to restore a backup.
package migrate
