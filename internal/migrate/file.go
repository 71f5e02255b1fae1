package migrate

import (
	"errors"
	"fmt"
	"io"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// Action is what happened to one file; the values are the `action` field
// of `pisess migrate|repair --format json` (cli.md).
type Action string

// The actions.
const (
	Migrated     Action = "migrated"
	Repaired     Action = "repaired"
	Unchanged    Action = "unchanged"
	Refused      Action = "refused"
	WouldMigrate Action = "would-migrate"
	WouldRepair  Action = "would-repair"
)

// Options are the command-line choices of `pisess migrate` and `pisess
// repair` for one file.
type Options struct {
	Backup         bool // --backup: keep <file>.v<N>.bak (migrate) or <file>.bak (repair)
	DryRun         bool // --dry-run
	Diff           bool // --diff (with --dry-run)
	FollowSymlinks bool // --follow-symlinks
	ZeroTail       bool // --zero-tail (repair)
	Limits         session.Limits
	// Verify validates a whole session (strict parse, schemas, linkage) and
	// fails on any error finding. MigrateFile applies it to the original
	// first (an invalid file is refused untouched) and to the new
	// generation; RepairFile to the new generation. nil skips validation.
	Verify safefile.VerifyFunc
	// Check, when set, is what MigrateFile asks of a version-1/2 original
	// in place of Verify: the findings it returns are reported with the
	// migration (Report.Notes) and do not block it, its error refuses the
	// file untouched, and the VerifyFunc it returns (nil: Verify) checks
	// the new generation. A version-3 file is then left alone unchecked:
	// there is nothing to migrate.
	Check CheckFunc
	// Temps, when set, records the temp file of each rewrite while it
	// exists (see safefile.Temps.RemoveOnSignal).
	Temps *safefile.Temps
}

// CheckFunc validates the original of a migration: the findings the
// migration reports of it, the check its new generation must pass, or an
// error (a *safefile.FindingError names the line) that refuses the file.
type CheckFunc func(name string, r io.Reader) ([]finding.Finding, safefile.VerifyFunc, error)

// Report is the result for one file.
type Report struct {
	File     string
	Action   Action
	From, To int               // migrate: header versions
	Backup   string            // backup kept beside the file, "" if none
	Fixes    []Fix             // repair: what was (or would be) repaired
	Notes    []finding.Finding // migrate: decisions worth knowing
	Diff     string            // dry run with Diff
	ReadOnly bool              // the file had no write permission and was replaced anyway
	Carried  int64             // bytes appended by another program during the rename, carried over
	Rescued  string            // file keeping the old generation as another program left it
}

// BackupSuffixMigrate is the backup suffix for a migration from version n.
func BackupSuffixMigrate(n int) string { return fmt.Sprintf(".v%d.bak", n) }

// BackupSuffixRepair is the backup suffix for a repair.
const BackupSuffixRepair = ".bak"

// MigrateFile migrates the session at path to version 3 in place with the
// safe rewrite protocol. A version-3 file is left byte-identical
// (Unchanged); a file that is invalid, corrupt, not a session or of an
// unknown version is refused untouched. On error the report's Action is
// Refused and the error is a *safefile.Error, except after the rename: then the
// report says what was written and the error what went wrong afterwards.
func MigrateFile(fsys safefile.FS, path string, opts Options) (Report, error) {
	return again(fsys, path, opts, func(rep *Report, target string) error {
		version, warnings, verify, err := checkOriginal(fsys, target, opts)
		rep.From = version
		if err != nil {
			return err
		}
		if version == CurrentVersion {
			rep.Action, rep.To = Unchanged, version
			return nil
		}
		o := opts
		o.Verify = verify
		var res Result
		err = rep.rewrite(fsys, path, o, BackupSuffixMigrate(version), Migrated, WouldMigrate, func(in io.ReadSeeker, out io.Writer) error {
			var err error
			if res, err = Migrate(in, out, opts.Limits); err == nil && res.From != version {
				err = &safefile.Error{Code: safefile.ChangedDuringRewrite, Err: errors.New("the header changed while the file was being migrated")}
			}
			return err
		})
		if rep.Action != Refused {
			rep.To, rep.Notes = res.To, append(warnings, res.Notes...)
		}
		return err
	})
}

// again runs op on path's report and target (safefile.Resolve), again if
// another run replaced the file while this one waited for its lock (the
// second run sees the new file); an error that names no file gets path.
func again(fsys safefile.FS, path string, opts Options, op func(rep *Report, target string) error) (Report, error) {
	run := func() (Report, error) {
		rep := Report{File: path, Action: Refused}
		target, err := safefile.Resolve(fsys, path, opts.FollowSymlinks)
		if err == nil {
			err = op(&rep, target)
		}
		return rep, safefile.WithPath(err, path)
	}
	rep, err := run()
	if errors.Is(err, safefile.ErrReplacedWhileWaiting) {
		rep, err = run()
	}
	return rep, err
}

// RepairFile repairs the session file at path in place with the safe
// rewrite protocol (see Repair for what is repaired). A file that needs no
// repair is left byte-identical (Unchanged); one with corruption Repair
// does not fix is refused untouched. On error the report's Action is
// Refused and the error is a *safefile.Error, except after the rename (see
// MigrateFile).
func RepairFile(fsys safefile.FS, path string, opts Options) (Report, error) {
	return again(fsys, path, opts, func(rep *Report, target string) error {
		ropts := RepairOptions{ZeroTail: opts.ZeroTail, Limits: opts.Limits}
		needed, err := repairNeeded(fsys, target, ropts)
		if err != nil {
			return err
		}
		if !needed {
			rep.Action = Unchanged
			return nil
		}
		var res RepairResult
		err = rep.rewrite(fsys, path, opts, BackupSuffixRepair, Repaired, WouldRepair, func(in io.ReadSeeker, out io.Writer) error {
			var err error
			res, err = Repair(in, out, ropts)
			return err
		})
		if rep.Action != Refused {
			rep.Fixes = res.Fixes
		}
		return err
	})
}

// rewrite rewrites the file at path with gen (safefile.Rewrite) and
// records the outcome: done, would (a dry run) or Unchanged; the Action
// stays Refused on an error before the rename.
func (rep *Report) rewrite(fsys safefile.FS, path string, opts Options, suffix string, done, would Action, gen safefile.Generator) error {
	ro := safefile.RewriteOptions{DryRun: opts.DryRun, Diff: opts.Diff,
		FollowSymlinks: opts.FollowSymlinks, Verify: opts.Verify, Temps: opts.Temps}
	if opts.Backup {
		ro.BackupSuffix = suffix
	}
	out, err := safefile.Rewrite(fsys, path, ro, gen)
	if err != nil && !out.Written {
		return err
	}
	rep.Backup, rep.Diff, rep.ReadOnly = out.Backup, out.Diff, out.ReadOnly
	rep.Carried, rep.Rescued = out.Carried, out.Rescued
	switch {
	case !out.Changed:
		rep.Action = Unchanged
	case out.Written:
		rep.Action = done
	default:
		rep.Action = would
	}
	return err
}

// checkOriginal runs Migrate's first pass (before any temp file: refuse a
// corrupt file, leave a current one) and checks the original: with Check a
// version-1/2 one (its findings are warnings, and it says how the new
// generation is verified), else with Verify any one. version is 0 when the
// first pass refused it.
func checkOriginal(fsys safefile.FS, path string, opts Options) (version int, warnings []finding.Finding, verify safefile.VerifyFunc, err error) {
	f, err := fsys.Open(path)
	if err != nil {
		return 0, nil, nil, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	defer f.Close()
	s, err := scanSession(f, opts.Limits, false)
	if err != nil {
		return 0, nil, nil, err
	}
	verify = opts.Verify
	if opts.Check != nil && s.version == CurrentVersion || opts.Check == nil && verify == nil { // nothing to migrate, or to check
		return s.version, nil, verify, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return s.version, nil, nil, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	if opts.Check != nil {
		var next safefile.VerifyFunc
		warnings, next, err = opts.Check(path, f)
		if next != nil {
			verify = next
		}
	} else {
		err = verify(path, f)
	}
	var fe *safefile.FindingError
	switch {
	case errors.As(err, &fe):
		return s.version, nil, nil, refuse(safefile.RefusedInvalid, fe.Finding)
	case err != nil:
		return s.version, nil, nil, &safefile.Error{Code: safefile.RefusedInvalid, Err: err}
	}
	return s.version, warnings, verify, nil
}

// repairNeeded runs Repair without writing, to leave clean files alone
// without creating a temp file, and to refuse what cannot be repaired.
func repairNeeded(fsys safefile.FS, path string, opts RepairOptions) (bool, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return false, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	defer f.Close()
	res, err := Repair(f, io.Discard, opts)
	return res.Changed, err
}

// refuse returns a RefusedCorrupt (or other code) error for a finding.
func refuse(code safefile.Code, f finding.Finding) *safefile.Error {
	return &safefile.Error{Code: code, Line: f.Line, Finding: &f}
}
