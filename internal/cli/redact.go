package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/secrets"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

// redactBackupSuffix names the backup of --in-place --backup: it still
// holds the secrets.
const redactBackupSuffix = ".unredacted.bak"

// redactFlags are redact's flags.
type redactFlags struct {
	limits          limitFlags
	output          string
	inPlace, backup bool
	rules           rulesFlag
}

func (c *CLI) redactCommand() *cli.Command {
	var f redactFlags
	return c.command("redact", "replace every secret scan finds with [REDACTED:<kind>]", "FILE",
		append(f.limits.flags(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the redacted copy to `FILE` (which must not exist; - is standard output)", Destination: &f.output},
			&cli.BoolFlag{Name: "in-place", Usage: "rewrite FILE itself, with the safe rewrite protocol", Destination: &f.inPlace},
			&cli.BoolFlag{Name: "backup", Usage: "with --in-place: keep the original as FILE" + redactBackupSuffix + " (it still holds the secrets)", Destination: &f.backup},
			f.rules.flag(),
		), func(ctx *cli.Context) error { return c.runRedact(ctx, &f) })
}

// redaction is one redact invocation.
type redaction struct {
	fsys  safefile.FS     // where it writes (safefile.OS(); tests inject faults)
	temps *safefile.Temps // --in-place: the temp files a signal removes
	file  string
	opts  secrets.Options
	vopts validate.Options
}

func (c *CLI) runRedact(ctx *cli.Context, f *redactFlags) error {
	file, err := oneFile(ctx)
	if err != nil {
		return err
	}
	switch {
	case f.output != "" && f.inPlace:
		return usageErrorf("--output and --in-place exclude each other")
	case f.backup && !f.inPlace:
		return usageErrorf("--backup goes with --in-place")
	case f.inPlace && file == "-":
		return usageErrorf("--in-place cannot rewrite standard input")
	}
	vopts, err := validateOptions(&f.limits, true)
	if err != nil {
		return err
	}
	rules, err := f.rules.load()
	if err != nil {
		return err
	}
	r := &redaction{fsys: safefile.OS(), file: file, opts: secrets.Options{Rules: rules, Limits: vopts.Limits}, vopts: vopts}
	if f.inPlace {
		return c.redactInPlace(r, f.backup)
	}
	return c.redactCopy(r, f.output)
}

// maxRedactRounds bounds how many times redact --in-place goes over the
// file: again each time the rewrite carried over bytes another program
// (pi) appended during the rename, as they were.
const maxRedactRounds = 4

// redactInPlace rewrites the file with the safe rewrite protocol. Lines pi
// appended during the rename are carried over into the new file as they
// are, so the file is redacted again (without a new backup) until a round
// carries nothing; success is never reported with carried bytes left
// unredacted.
func (c *CLI) redactInPlace(r *redaction, backup bool) error {
	r.temps = &safefile.Temps{}
	defer r.temps.RemoveOnSignal(safefile.OS(), c.Exit)() // Ctrl-C removes the temp file (and a partial backup copy)
	total := secrets.RedactResult{ByKind: map[string]int{}}
	var bak string
	var carried int64 // left unredacted by the round before
	var err error
	for round := 1; ; round++ {
		var out safefile.Outcome
		var res secrets.RedactResult
		out, res, err = r.rewriteOnce(backup && round == 1)
		if round == 1 && err != nil && !out.Written {
			return rewriteExit(err)
		}
		if err != nil && carried > 0 {
			err = unredacted(err, carried)
		}
		total.Count += res.Count
		for k, n := range res.ByKind {
			total.ByKind[k] += n
		}
		bak = cmp.Or(bak, out.Backup)
		if carried = out.Carried; err != nil || carried == 0 {
			break
		}
		if round == maxRedactRounds {
			err = &safefile.Error{Code: safefile.ChangedDuringRewrite, Path: r.file, Err: fmt.Errorf(
				"another program (pi) appended to the file during each of %d renames; the last %d bytes of the file, carried over from the last, are not redacted: run redact --in-place again when the session is idle", round, carried)}
			break
		}
	}
	dest := r.file
	if bak != "" {
		dest += " (the original, secrets and all, is in " + bak + ")"
	}
	c.redactSummary(r, total, dest)
	if err != nil {
		return rewriteExit(err)
	}
	return nil
}

// rewriteOnce redacts the file in place once, checked against the file
// as it is now.
func (r *redaction) rewriteOnce(backup bool) (safefile.Outcome, secrets.RedactResult, error) {
	var res secrets.RedactResult
	base, err := r.baseline(func() (io.ReadCloser, error) { return session.OpenFile(r.file) })
	if err != nil {
		return safefile.Outcome{}, res, err
	}
	ropts := safefile.RewriteOptions{Verify: r.verifier(base), Temps: r.temps}
	if backup {
		ropts.BackupSuffix = redactBackupSuffix
	}
	out, err := safefile.Rewrite(r.fsys, r.file, ropts, func(in io.ReadSeeker, w io.Writer) error {
		var err error
		res, err = secrets.Redact(in, w, r.opts)
		return refusal(err)
	})
	return out, res, err
}

// unredacted adds to err, the failure of a later round, that the bytes
// the round before carried over are still in the file as pi wrote them.
func unredacted(err error, carried int64) error {
	note := fmt.Errorf("the %d bytes another program (pi) appended during the previous rename, carried over into the file, are not redacted", carried)
	var me *safefile.Error
	var ee *ExitError
	switch {
	case errors.As(err, &me):
		cp := *me
		cp.Err = errors.Join(me.Err, note)
		if me.Err != nil {
			cp.Err = fmt.Errorf("%w; %w", me.Err, note)
		}
		return &cp
	case errors.As(err, &ee):
		return &ExitError{Code: ee.Code, Err: fmt.Errorf("%w; %w", ee.Err, note)}
	}
	return fmt.Errorf("%w; %w", err, note)
}

// rewriteExit maps a rewrite failure to its exit code (an *ExitError,
// the original's check failing, keeps its own).
func rewriteExit(err error) error {
	if ee := (*ExitError)(nil); errors.As(err, &ee) {
		return err
	}
	_, exit := failure(err)
	return &ExitError{Code: exit, Err: err}
}

// redactCopy writes the redacted copy to output, or to stdout when output
// is "". Nothing is written unless the copy passes the check.
func (c *CLI) redactCopy(r *redaction, output string) error {
	open := func() (io.ReadCloser, error) { return session.OpenFile(r.file) }
	switch {
	case r.file == "-":
		data, err := io.ReadAll(c.Stdin)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("reading standard input: %w", err)}
		}
		r.file = stdinName
		open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	case !regularFile(r.file):
		// A pipe (a FIFO, /dev/stdin, <(…)) can be read once only: the
		// check and the redaction read the same copy.
		data, err := readOnce(open)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	}
	base, err := r.baseline(open)
	if err != nil {
		return err
	}
	in, err := open()
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer in.Close()
	var sp safefile.Spool // a copy of a huge session costs no memory
	defer sp.Close()
	res, err := secrets.Redact(in, &sp, r.opts)
	if err != nil {
		return redactError(r.file, err)
	}
	copied, err := sp.Reader()
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("reading the redacted copy back: %w", err)}
	}
	if err := r.verifier(base)(r.file, copied); err != nil {
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s: the redacted copy would not validate as the original does: %v", r.file, err)}
	}
	if err := c.deliver(r.fsys, output, &sp); err != nil {
		return err
	}
	if output == "" {
		output = "standard output"
	}
	c.redactSummary(r, res, output)
	return nil
}

// regularFile reports whether name is a regular file (one that can be
// read twice); true when it cannot be looked at (opening it then says
// why).
func regularFile(name string) bool {
	info, err := os.Stat(name)
	return err != nil || info.Mode().IsRegular()
}

// readOnce reads the whole of what open opens.
func readOnce(open func() (io.ReadCloser, error)) ([]byte, error) {
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// deliver writes what sp holds to output, a new file (safefile.Create: it
// appears whole, never over an existing file; Ctrl-C removes what is
// partial), or to standard output when output is "" or "-".
func (c *CLI) deliver(fsys safefile.FS, output string, sp *safefile.Spool) error {
	if output == "" || output == "-" {
		if err := copySpool(c.Stdout, sp); err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the output: %w", err)}
		}
		return nil
	}
	temps := &safefile.Temps{}
	defer temps.RemoveOnSignal(safefile.OS(), c.Exit)()
	err := safefile.Create(fsys, output, 0o600, temps, func(w io.Writer, _ string) error { return copySpool(w, sp) })
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return nil
}

// refusal maps what Redact cannot search whole (a line over
// --max-line-bytes, a file over --max-file-bytes) to a refusal of the
// rewrite (exit 1), as repair refuses such a file; other errors stay.
func refusal(err error) error {
	var le *secrets.LineError
	var f finding.Finding
	switch {
	case errors.As(err, &le):
		f = finding.Errorf(le.Code, le.Line, "%s", le.Msg)
	case errors.Is(err, session.ErrFileTooLarge):
		f = finding.Errorf(finding.FileTooLarge, 0, "%v", err)
	default:
		return err
	}
	return &safefile.Error{Code: safefile.RefusedCorrupt, Line: f.Line, Finding: &f}
}

// redactError is the failure of reading the original: exit 1 for what
// cannot be searched whole (as refusal), else exit 2.
func redactError(file string, err error) error {
	var le *secrets.LineError
	code := ExitUsage
	switch {
	case errors.As(err, &le):
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%d: error %s: %s", file, le.Line, le.Code, le.Msg)}
	case errors.Is(err, session.ErrFileTooLarge):
		code = ExitInvalid
	}
	return &ExitError{Code: code, Err: fileError(file, err)}
}

// errorKey identifies an error finding of the original.
type errorKey struct {
	code finding.Code
	line int
}

// baseline validates the original and returns its errors.
func (r *redaction) baseline(open func() (io.ReadCloser, error)) (map[errorKey]bool, error) {
	f, err := open()
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	defer f.Close()
	rep, err := validate.Stream(r.file, f, r.vopts)
	if err != nil {
		return nil, redactError(r.file, err)
	}
	base := map[errorKey]bool{}
	for _, f := range rep.Findings {
		if f.Severity == finding.Error {
			base[errorKey{f.Code, f.Line}] = true
		}
	}
	return base, nil
}

// verifier accepts a redacted copy that has no validation error the
// original does not have.
func (r *redaction) verifier(base map[errorKey]bool) safefile.VerifyFunc {
	return verifyNone(r.vopts, func(f finding.Finding) bool {
		return f.Severity == finding.Error && !base[errorKey{f.Code, f.Line}]
	})
}

// redactSummary says on stderr what was redacted and where it went.
func (c *CLI) redactSummary(r *redaction, res secrets.RedactResult, dest string) {
	if !c.quiet() {
		render.RedactSummary(c.Stderr, r.file, dest, res)
	}
}
