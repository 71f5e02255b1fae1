package fix

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/parse"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

// Options configure one command on one file.
type Options struct {
	Leaf        string                                                      // --leaf as given ("" = the last entry)
	ResolveLeaf func(s *project.Session, id string) (*project.Entry, error) // nil: Session.Leaf
	Now         time.Time
	Random      io.Reader        // new ids (fork); nil: crypto/rand
	Validate    validate.Options // how the input is checked (limits, schemas)
	Backup      bool
	DryRun      bool
	MaxBytes    int64  // slim
	Output      string // fork: the new file ("" = pi's name beside the source)
	ID, Cwd     string // recover-header overrides
}

// BackupSuffix is the backup unstick, slim and recover-header keep.
const BackupSuffix = ".bak"

// Report is what one command did to one file: the `--format json` object.
type Report struct {
	File      string   `json:"file"`
	FileBytes []byte   `json:"fileBytes,omitempty"` // the name's bytes when it is not UTF-8
	Action    string   `json:"action"`
	Leaf      string   `json:"leaf,omitempty"`
	NewLeaf   string   `json:"newLeaf,omitempty"`
	Added     []Added  `json:"added,omitempty"`
	Backup    *string  `json:"backup"`
	Output    string   `json:"output,omitempty"`    // fork
	Session   string   `json:"sessionId,omitempty"` // fork: the new session's id
	Entries   int      `json:"entries,omitempty"`   // fork: entries written
	Elided    []Elided `json:"elided,omitempty"`    // slim
	Over      []Over   `json:"over,omitempty"`      // slim: over the limit, not editable
	// slim: the context's estimated tokens before and after
	TokensBefore *int         `json:"tokensBefore,omitempty"`
	TokensAfter  *int         `json:"tokensAfter,omitempty"`
	Header       *HeaderGuess `json:"header,omitempty"` // recover-header
}

// LeafError is a --leaf that names no entry, or several (a usage error).
type LeafError struct{ Err error }

func (e *LeafError) Error() string { return e.Err.Error() }
func (e *LeafError) Unwrap() error { return e.Err }

// action is the word a command reports: done, would (dry run) or unchanged
// (nothing to do).
func action(command string, done, dryRun bool) string {
	var a [3]string // done, dry run, nothing to do
	switch command {
	case "unstick":
		a = [3]string{"unstuck", "would-unstick", "unchanged"}
	case "slim":
		a = [3]string{"slimmed", "would-slim", "unchanged"}
	case "fork":
		a = [3]string{"forked", "would-fork", "unchanged"}
	case "recover-header":
		a = [3]string{"recovered", "would-recover", "unchanged"}
	}
	switch {
	case !done:
		return a[2]
	case dryRun:
		return a[1]
	}
	return a[0]
}

// loaded is a session read from the bytes a command planned from.
type loaded struct {
	data []byte
	s    *project.Session
	leaf *project.Entry
}

// load reads a session for an append-only repair: valid (no error
// finding), no torn last line, version 3, and the leaf resolved.
func load(in io.Reader, name string, opts Options) (*loaded, error) {
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	rep, err := validate.Stream(name, bytes.NewReader(data), opts.Validate)
	if err != nil {
		return nil, err
	}
	if err := usable(rep); err != nil {
		return nil, err
	}
	if rep.Version < project.CurrentVersion {
		return nil, &migrate.Error{Code: migrate.Unsupported, Err: fmt.Errorf("version %d: bring it to version 3 first (pisess migrate --backup)", rep.Version)}
	}
	s, err := project.Load(bytes.NewReader(data), opts.Validate.Limits)
	if err != nil {
		return nil, &migrate.Error{Code: migrate.Unsupported, Err: err}
	}
	leaf, err := resolve(s, opts)
	if err != nil {
		return nil, err
	}
	return &loaded{data: data, s: s, leaf: leaf}, nil
}

// usable refuses a file with an error finding or a torn last line.
func usable(rep *validate.Report) error {
	for _, f := range rep.Findings {
		switch {
		case rep.Kind != validate.Session:
			return &migrate.Error{Code: migrate.Unsupported, Line: f.Line, Finding: &f}
		case f.Severity == finding.Error:
			return &migrate.Error{Code: migrate.RefusedInvalid, Line: f.Line, Finding: &f,
				Err: errors.New("fix the errors first (pisess validate explains them)")}
		case f.Code == finding.PartialTail || f.Code == finding.TornLine:
			return &migrate.Error{Code: migrate.RefusedCorrupt, Line: f.Line, Finding: &f,
				Err: errors.New("run pisess repair --backup first")}
		}
	}
	return nil
}

func resolve(s *project.Session, opts Options) (*project.Entry, error) {
	var leaf *project.Entry
	var err error
	if opts.ResolveLeaf != nil {
		leaf, err = opts.ResolveLeaf(s, opts.Leaf)
	} else {
		leaf, err = s.Leaf(opts.Leaf)
	}
	if err != nil {
		return nil, &LeafError{Err: err}
	}
	if leaf == nil {
		return nil, &migrate.Error{Code: migrate.Unsupported, Err: errors.New("the session has no entries")}
	}
	return leaf, nil
}

// after loads the session as it will be once lines are appended, and
// returns the new leaf's context (the self-check of every plan).
func (l *loaded) after(lines []byte, newLeaf string, limits parse.Limits) (*project.Context, error) {
	data := append(bytes.Clone(l.data), lines...)
	if n := len(l.data); n > 0 && l.data[n-1] != '\n' {
		data = append(append(bytes.Clone(l.data), '\n'), lines...)
	}
	s, err := project.Load(bytes.NewReader(data), limits)
	if err != nil {
		return nil, err
	}
	if len(s.Skipped) > 0 {
		return nil, fmt.Errorf("internal error: the new file has lines pi skips (%v)", s.Skipped)
	}
	leaf, err := s.Leaf(newLeaf)
	if err != nil {
		return nil, err
	}
	return s.Context(leaf)
}

func checkFailed(err error) error {
	return &migrate.Error{Code: migrate.VerifyFailed, Err: fmt.Errorf("the planned entries do not do what they should (please report it): %w", err)}
}

func appendOptions(opts Options, verify migrate.VerifyFunc) migrate.RewriteOptions {
	o := migrate.RewriteOptions{DryRun: opts.DryRun, Verify: verify}
	if opts.Backup {
		o.BackupSuffix = BackupSuffix
	}
	return o
}

// NoErrors is the check a result must pass: it validates with no error.
func NoErrors(vopts validate.Options) migrate.VerifyFunc {
	return func(name string, r io.Reader) error {
		rep, err := validate.Stream(name, r, vopts)
		if err != nil {
			return err
		}
		for _, f := range rep.Findings {
			if f.Severity == finding.Error || f.Code == finding.PartialTail {
				return fmt.Errorf("line %d: %s: %s", f.Line, f.Code, f.Message)
			}
		}
		return nil
	}
}

// appendReport fills the common fields after an Append.
func appendReport(command string, opts Options, out migrate.AppendOutcome, plan *Plan) Report {
	r := Report{File: out.Path, Action: action(command, len(out.Appended) > 0, opts.DryRun)}
	if plan != nil {
		r.Leaf, r.Added = plan.Leaf, plan.Added
		if len(out.Appended) > 0 {
			r.NewLeaf = plan.NewLeaf
		}
	}
	if out.Backup != "" && (out.Written || opts.DryRun) {
		b := out.Backup
		r.Backup = &b
	}
	return r
}

// UnstickFile runs Unstick on the file at path and appends its plan.
func UnstickFile(fsys migrate.FS, path string, opts Options) (Report, error) {
	var plan *Plan
	out, err := migrate.Append(fsys, path, appendOptions(opts, NoErrors(opts.Validate)), func(in io.Reader) ([]byte, error) {
		l, err := load(in, path, opts)
		if err != nil {
			return nil, err
		}
		if plan, err = Unstick(l.s, l.leaf, opts.Now); err != nil || len(plan.Lines) == 0 {
			return nil, err
		}
		ctx, err := l.after(plan.Lines, plan.NewLeaf, opts.Validate.Limits)
		if err == nil && (len(ctx.Unpaired) > 0 || len(ctx.Unanswered()) > 0) {
			err = fmt.Errorf("the new context still breaks the tool call/result pairing")
		}
		if err != nil {
			return nil, checkFailed(err)
		}
		return plan.Lines, nil
	})
	if out.Path == "" {
		out.Path = path
	}
	return appendReport("unstick", opts, out, plan), err
}

// SlimFile runs Slim on the file at path and appends its plan.
func SlimFile(fsys migrate.FS, path string, opts Options) (Report, error) {
	var plan *SlimPlan
	out, err := migrate.Append(fsys, path, appendOptions(opts, NoErrors(opts.Validate)), func(in io.Reader) ([]byte, error) {
		l, err := load(in, path, opts)
		if err != nil {
			return nil, err
		}
		if plan, err = Slim(l.s, l.leaf, opts.MaxBytes, opts.Now); err != nil {
			return nil, err
		}
		plan.TokensAfter = plan.TokensBefore
		if len(plan.Lines) == 0 {
			return nil, nil
		}
		ctx, err := l.after(plan.Lines, plan.NewLeaf, opts.Validate.Limits)
		if err == nil {
			err = slimmed(ctx, opts.MaxBytes)
		}
		if err != nil {
			return nil, checkFailed(err)
		}
		plan.TokensAfter = estimate(ctx.Messages)
		return plan.Lines, nil
	})
	if out.Path == "" {
		out.Path = path
	}
	var r Report
	if plan != nil {
		r = appendReport("slim", opts, out, plan.Plan)
		r.Elided, r.Over = plan.Elided, plan.Over
		r.TokensBefore, r.TokensAfter = &plan.TokensBefore, &plan.TokensAfter
	} else {
		r = appendReport("slim", opts, out, nil)
	}
	return r, err
}

// slimmed checks that no editable message of a context is over the limit.
func slimmed(ctx *project.Context, maxBytes int64) error {
	for i, msg := range ctx.Messages {
		role, content := roleAndContent(msg)
		if editable(ctx.Sources[i], role) && int64(len(content)) > maxBytes {
			return fmt.Errorf("message %d (entry %s) is still %d bytes", i, ctx.Sources[i].ID(), len(content))
		}
	}
	return nil
}

// ForkFile writes the path of a leaf of the file at source as a new
// session: created exclusively (never over an existing file), fsynced, its
// directory fsynced. The source is only read.
func ForkFile(fsys migrate.FS, source string, opts Options) (Report, error) {
	r := Report{File: source, Action: "refused"}
	abs, err := filepath.Abs(source)
	if err != nil {
		return r, &migrate.Error{Code: migrate.ReadFailed, Path: source, Err: err}
	}
	raw, perm, err := readSource(fsys, source)
	if err != nil {
		return r, err
	}
	v3, err := atVersion3(raw, source, opts)
	if err != nil {
		return r, withPath(err, source)
	}
	l, err := load(bytes.NewReader(v3), source, opts)
	if err != nil {
		return r, withPath(err, source)
	}
	plan, err := Fork(v3, l.s, l.leaf, abs, NewSessionID(opts.Now, opts.Random), opts.Now, opts.Random)
	if err != nil {
		return r, withPath(err, source)
	}
	if err := sameContext(l, plan.Content, opts.Validate.Limits); err != nil {
		return r, withPath(checkFailed(err), source)
	}
	r.Leaf, r.Session, r.Entries = plan.Leaf, plan.SessionID, plan.Entries
	r.Output = opts.Output
	if r.Output == "" {
		r.Output = ForkName(abs, plan)
	}
	r.Action = action("fork", true, opts.DryRun)
	if opts.DryRun {
		if _, err := fsys.Lstat(r.Output); err == nil {
			return r, &migrate.Error{Code: migrate.CreateFailed, Path: r.Output, Err: errors.New("already exists: pisess never overwrites a file")}
		}
		return r, nil
	}
	if err := createFile(fsys, r.Output, plan.Content, perm); err != nil {
		r.Action = "refused"
		return r, err
	}
	return r, nil
}

// readSource reads a whole file and its permission bits.
func readSource(fsys migrate.FS, path string) ([]byte, os.FileMode, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, 0, &migrate.Error{Code: migrate.ReadFailed, Path: path, Err: err}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, &migrate.Error{Code: migrate.ReadFailed, Path: path, Err: err}
	}
	if !info.Mode().IsRegular() {
		return nil, 0, &migrate.Error{Code: migrate.NotRegular, Path: path, Err: fmt.Errorf("not a regular file (%s)", info.Mode().Type())}
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, &migrate.Error{Code: migrate.ReadFailed, Path: path, Err: err}
	}
	return raw, info.Mode().Perm(), nil
}

// atVersion3 migrates a version-1 or 2 file in memory, as pi does on load.
func atVersion3(raw []byte, name string, opts Options) ([]byte, error) {
	v, err := migrate.PeekVersion(bytes.NewReader(raw), opts.Validate.Limits)
	if err != nil || v >= project.CurrentVersion {
		return raw, nil // load reports what is wrong
	}
	var out bytes.Buffer
	if _, err := migrate.Migrate(bytes.NewReader(raw), &out, opts.Validate.Limits); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// sameContext checks that the fork's context equals the source's at the
// leaf.
func sameContext(l *loaded, content []byte, limits parse.Limits) error {
	want, err := l.s.Context(l.leaf)
	if err != nil {
		return err
	}
	s, err := project.Load(bytes.NewReader(content), limits)
	if err != nil {
		return err
	}
	got, err := s.Context(s.DefaultLeaf())
	if err != nil {
		return err
	}
	a, _ := json.Marshal(want.Messages)
	b, _ := json.Marshal(got.Messages)
	if !bytes.Equal(a, b) {
		return errors.New("the new session's context differs from the source's at the leaf")
	}
	return nil
}

// createFile writes a new file: O_EXCL, fsync, close, directory fsync; a
// failure removes what was created.
func createFile(fsys migrate.FS, path string, content []byte, perm os.FileMode) error {
	f, err := fsys.CreateExcl(path, perm)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			err = errors.New("already exists: pisess never overwrites a file")
		}
		return &migrate.Error{Code: migrate.CreateFailed, Path: path, Err: err}
	}
	code, werr := migrate.WriteFailed, writeAll(f, content)
	if werr == nil {
		code, werr = migrate.SyncFailed, f.Sync()
	}
	if cerr := f.Close(); cerr != nil && werr == nil {
		code, werr = migrate.WriteFailed, cerr
	}
	if werr == nil {
		if werr = fsys.SyncDir(filepath.Dir(path)); werr != nil {
			code = migrate.SyncFailed
		}
	}
	if werr != nil {
		if rerr := fsys.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			werr = errors.Join(werr, fmt.Errorf("cannot remove the partial file: %w", rerr))
		}
		return &migrate.Error{Code: code, Path: path, Err: werr}
	}
	return nil
}

func writeAll(w io.Writer, p []byte) error {
	n, err := w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	return err
}

func withPath(err error, path string) error {
	var e *migrate.Error
	if errors.As(err, &e) && e.Path == "" {
		e.Path = path
	}
	return err
}

// RecoverHeaderFile puts a rebuilt header line before the entries of a
// file that lost it, through the safe rewrite protocol, always keeping
// FILE.bak. A file that starts with a header is left alone.
func RecoverHeaderFile(fsys migrate.FS, path string, opts Options) (Report, error) {
	r := Report{File: path, Action: "refused"}
	first, err := firstLine(fsys, path)
	if err != nil {
		return r, err
	}
	var head struct {
		Type *string          `json:"type"`
		Kind *json.RawMessage `json:"kind"`
	}
	switch {
	case json.Unmarshal(first, &head) != nil:
		f := finding.Errorf(finding.InvalidJSON, 1, "line 1 is not a complete JSON object")
		return r, &migrate.Error{Code: migrate.RefusedCorrupt, Path: path, Line: 1, Finding: &f, Err: errors.New("run pisess repair first")}
	case head.Type != nil && *head.Type == "session":
		r.Action = "unchanged"
		return r, nil
	case head.Type == nil || head.Kind != nil || !session.IsEntryType(*head.Type):
		f := finding.Errorf(finding.NotASession, 1, "line 1 is not a session entry")
		return r, &migrate.Error{Code: migrate.Unsupported, Path: path, Line: 1, Finding: &f, Err: errors.New("not a pi session that lost its header")}
	}
	g, err := GuessHeader(path, first, opts.ID, opts.Cwd)
	if err != nil {
		return r, &migrate.Error{Code: migrate.Unsupported, Path: path, Err: err}
	}
	r.Header = g
	header := append(g.Line(), '\n')
	out, err := migrate.Rewrite(fsys, path, migrate.RewriteOptions{BackupSuffix: BackupSuffix, DryRun: opts.DryRun, Verify: headerVerifier(opts.Validate)},
		func(in io.ReadSeeker, w io.Writer) error {
			if _, err := w.Write(header); err != nil {
				return err
			}
			_, err := io.Copy(w, in)
			return err
		})
	r.File = out.Path
	if r.File == "" {
		r.File = path
	}
	if err != nil {
		return r, err
	}
	r.Action = action("recover-header", out.Changed, opts.DryRun)
	if out.Backup != "" {
		r.Backup = &out.Backup
	} else if opts.DryRun {
		b := path + BackupSuffix
		r.Backup = &b
	}
	return r, nil
}

// firstLine reads line 1 of a file (without its newline).
func firstLine(fsys migrate.FS, path string) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, &migrate.Error{Code: migrate.ReadFailed, Path: path, Err: err}
	}
	defer f.Close()
	br := bufio.NewReader(f)
	line, err := br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, &migrate.Error{Code: migrate.ReadFailed, Path: path, Err: err}
	}
	if len(bytes.TrimSpace(line)) == 0 {
		f := finding.Errorf(finding.MissingHeader, 1, "the file is empty")
		return nil, &migrate.Error{Code: migrate.Unsupported, Path: path, Line: 1, Finding: &f, Err: errors.New("nothing to recover")}
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// headerVerifier: the new file's line 1 is a valid header (the rest of the
// file may keep problems it had; validate reports them).
func headerVerifier(vopts validate.Options) migrate.VerifyFunc {
	return func(name string, r io.Reader) error {
		rep, err := validate.Stream(name, r, vopts)
		if err != nil {
			return err
		}
		for _, f := range rep.Findings {
			if f.Severity == finding.Error && (f.Line <= 1 || f.Code == finding.MissingHeader || f.Code == finding.NotASession) {
				return fmt.Errorf("line %d: %s: %s", f.Line, f.Code, f.Message)
			}
		}
		return nil
	}
}
