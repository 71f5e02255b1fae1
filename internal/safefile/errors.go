package safefile

import (
	"errors"
	"fmt"

	"github.com/pisess/pisess/internal/finding"
)

// Code is the stable, machine-readable reason a migration, repair or
// rewrite did not happen. Codes are never renamed, only added.
type Code string

// Refusals: the file is left untouched to protect data (exit code 1).
const (
	// RefusedCorrupt: the file holds corruption this operation does not
	// fix (Error.Finding says which line and why).
	RefusedCorrupt Code = "refused_corrupt"
	// RefusedInvalid: the file failed validation before migration.
	RefusedInvalid Code = "refused_invalid"
	// Unsupported: not a session, or a version pisess does not migrate.
	Unsupported Code = "unsupported"
	// BackupExists: a different file already has the backup's name.
	BackupExists Code = "backup_exists"
	// ChangedDuringRewrite: the original changed after it was read (pi may
	// be appending to it); run again when the session is idle.
	ChangedDuringRewrite Code = "changed_during_rewrite"
	// Symlink: the path is a symbolic link and FollowSymlinks is off.
	Symlink Code = "symlink"
	// VerifyFailed: the new generation did not re-parse and validate.
	VerifyFailed Code = "verify_failed"
)

// I/O failures: a file could not be read or written (exit code 2).
const (
	ReadFailed   Code = "read_failed"   // the original could not be read
	NotRegular   Code = "not_regular"   // the path is not a regular file
	CreateFailed Code = "create_failed" // the temp file could not be created
	WriteFailed  Code = "write_failed"  // writing (or closing) the temp file failed, e.g. disk full
	SyncFailed   Code = "sync_failed"   // fsync of the temp file, backup or directory failed
	ChmodFailed  Code = "chmod_failed"  // the original's mode or owner could not be given to the new file
	BackupFailed Code = "backup_failed" // neither a hard link nor a copy could make the backup
	RenameFailed Code = "rename_failed" // the temp file could not replace the original
)

// Error is a typed failure of a command that writes: of the protocol, or
// a refusal of what it was asked to write (migrate's, repair's, fix's).
type Error struct {
	Code    Code
	Path    string           // the file concerned (the original, or the backup for BackupExists)
	Line    int              // 1-based physical line, when the cause is one line
	Finding *finding.Finding // the finding behind a refusal, when there is one
	Err     error            // the underlying error, if any
}

// Error formats the failure as "path:line: code: detail".
func (e *Error) Error() string {
	loc := e.Path
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, e.Line)
	}
	if loc != "" {
		loc += ": "
	}
	detail := ""
	switch {
	case e.Finding != nil && e.Err != nil:
		detail = fmt.Sprintf(": %s %s: %s (%v)", e.Finding.Severity, e.Finding.Code, e.Finding.Message, e.Err)
	case e.Finding != nil:
		detail = fmt.Sprintf(": %s %s: %s", e.Finding.Severity, e.Finding.Code, e.Finding.Message)
	case e.Err != nil:
		detail = ": " + e.Err.Error()
	}
	return loc + string(e.Code) + detail
}

// FindingError is the error a VerifyFunc returns for the finding that
// failed its check; a refusal made of it names the file's line
// ("FILE:LINE: refused_invalid: error CODE: message").
type FindingError struct{ Finding finding.Finding }

// Error formats the finding as "line N: code: message".
func (e *FindingError) Error() string {
	return fmt.Sprintf("line %d: %s: %s", e.Finding.Line, e.Finding.Code, e.Finding.Message)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode maps the failure to the CLI exit code: 1 for a refusal that
// protects data, 2 for an I/O failure.
func (e *Error) ExitCode() int {
	switch e.Code {
	case RefusedCorrupt, RefusedInvalid, Unsupported, BackupExists,
		ChangedDuringRewrite, Symlink, VerifyFailed:
		return 1
	}
	return 2
}

// typed returns err when it is (or wraps) an *Error, else an *Error of
// code wrapping it.
func typed(err error, code Code) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: code, Err: err}
}

// WithPath sets the path of an *Error that has none, and returns err.
func WithPath(err error, path string) error {
	var e *Error
	if errors.As(err, &e) && e.Path == "" {
		e.Path = path
	}
	return err
}
