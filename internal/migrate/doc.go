// Package migrate upgrades version-1 and version-2 session files to version
// 3 by editing raw lines (keys, order and number formatting are kept), and
// repairs the corruptions that need no guessing.
//
// The pieces:
//
//   - Migrate and Repair transform a stream (io.ReadSeeker / io.Reader to
//     io.Writer) and refuse what they must not touch with a
//     *safefile.Error that carries the finding.
//   - MigrateFile and RepairFile apply them to one path with
//     safefile.Rewrite, the way the CLI runs them, and return a Report
//     whose Action is the `action` field of `--format json`.
//
// docs/migration.md describes the protocol, what each failure leaves
// behind and how to restore a backup.
package migrate
