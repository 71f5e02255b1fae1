package fix

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/safefile"
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
	MaxBytes    int64    // slim
	DropCustom  []string // slim --rewrite: the customTypes whose superseded entries are dropped
	Workers     int      // slim --rewrite: goroutines slimming the lines (0: GOMAXPROCS)
	Output      string   // fork: the new file ("" = pi's name beside the source)
	ID, Cwd     string   // recover-header overrides
	// Temps, when set, records recover-header's temp file, a backup copy
	// and fork's new file while they are partial, so that a signal handler
	// can remove them (safefile.Temps.RemoveOnSignal).
	Temps *safefile.Temps
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
	Over      []Over   `json:"over,omitempty"`      // slim: what stays over the limit, and why
	// slim: the context's estimated tokens before and after
	TokensBefore *int         `json:"tokensBefore,omitempty"`
	TokensAfter  *int         `json:"tokensAfter,omitempty"`
	Header       *HeaderGuess `json:"header,omitempty"` // recover-header
	// HeaderLine is the line of the header recover-header left alone (text
	// output only: the JSON object stays as it was).
	HeaderLine int `json:"-"`
	// slim --rewrite: bytesBefore, bytesAfter, blocksRemoved… (nil for
	// the other commands, and when the file was not read through)
	*RewriteStats
}

// LeafError is a --leaf that names no entry, or several (a usage error).
type LeafError struct{ Err error }

func (e *LeafError) Error() string { return e.Err.Error() }
func (e *LeafError) Unwrap() error { return e.Err }

// action is the word a command reports: done, would (dry run) or unchanged
// (nothing to do).
func action(command string, done, dryRun bool) string {
	verb, _, _ := strings.Cut(command, "-") // recover-header: recover
	switch {
	case !done:
		return "unchanged"
	case dryRun:
		return "would-" + verb
	}
	return map[string]string{"unstick": "unstuck", "slim": "slimmed", "fork": "forked", "recover": "recovered"}[verb]
}

// loaded is a session indexed from its file, and the leaf to work on.
type loaded struct {
	s     *project.Session
	leaf  *project.Entry
	temps *safefile.Temps // records the check's stand-in while it has a name
}

// load checks the session file at path and indexes it: valid (no error
// finding), no torn last line, version 3, and the leaf resolved. validate
// reads the file through in (the caller's reader, from its start: migrate
// hashes what it reads); the index is then built from path in one
// streaming pass, and refused when the file's size is no longer what
// validate read. The caller closes l.s.
func load(in io.ReadSeeker, path, name string, opts Options) (*loaded, error) {
	rep, err := validate.Stream(name, in, opts.Validate)
	if err != nil {
		return nil, err
	}
	if err := usable(rep); err != nil {
		return nil, err
	}
	if rep.Version < project.CurrentVersion {
		return nil, &safefile.Error{Code: safefile.Unsupported, Err: fmt.Errorf("version %d: bring it to version 3 first (pisess migrate --backup)", rep.Version)}
	}
	read, err := in.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	runtime.GC() // the validator's tables are garbage: the index grows in their place, not beside them
	s, err := project.Open(path, opts.Validate.Limits)
	if err != nil {
		return nil, &safefile.Error{Code: safefile.Unsupported, Err: err}
	}
	l := &loaded{s: s, temps: opts.Temps}
	if info, serr := os.Stat(path); serr != nil || info.Size() != read {
		err = &safefile.Error{Code: safefile.ChangedDuringRewrite, Err: errors.New("the file changed while it was being read: left untouched; run again when the session is idle")}
	} else {
		l.leaf, err = resolve(s, opts)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return l, nil
}

// usable refuses a file with an error finding or a torn last line.
func usable(rep *validate.Report) error {
	for _, f := range rep.Findings {
		switch {
		case rep.Kind != validate.Session:
			return &safefile.Error{Code: safefile.Unsupported, Line: f.Line, Finding: &f}
		case f.Severity == finding.Error:
			return &safefile.Error{Code: safefile.RefusedInvalid, Line: f.Line, Finding: &f,
				Err: errors.New("fix the errors first (pisess validate explains them)")}
		case f.Code == finding.PartialTail || f.Code == finding.TornLine:
			return &safefile.Error{Code: safefile.RefusedCorrupt, Line: f.Line, Finding: &f,
				Err: errors.New("run pisess repair --backup first")}
		}
	}
	return nil
}

func resolve(s *project.Session, opts Options) (*project.Entry, error) {
	find := s.Leaf
	if opts.ResolveLeaf != nil {
		find = func(id string) (*project.Entry, error) { return opts.ResolveLeaf(s, id) }
	}
	leaf, err := find(opts.Leaf)
	if err != nil {
		return nil, &LeafError{Err: err}
	}
	if leaf == nil {
		return nil, &safefile.Error{Code: safefile.Unsupported, Err: errors.New("the session has no entries")}
	}
	return leaf, nil
}

// after checks the new leaf once lines are appended, the self-check of
// every plan: check gets a session and the leaf. A context reads back only
// the records of its context entries, so rather than the file after it
// gets a stand-in (see standIn).
func (l *loaded) after(lines []byte, newLeaf string, limits session.Limits, check func(*project.Session, *project.Entry) error) error {
	s, leaf, err := l.standIn(lines, newLeaf, limits)
	if err != nil {
		return err
	}
	defer s.Close()
	return check(s, leaf)
}

// standIn writes what the context of newLeaf reads of the file once lines
// are appended, and opens it: a header, the path to the leaf (entries
// outside the context cut down to what the index keeps of them), then the
// new lines. It is written to a temporary file of the system's, unlinked
// once opened (recorded in l.temps until then), as the path's records may
// be the whole file: read back one record at a time, not held.
func (l *loaded) standIn(lines []byte, newLeaf string, limits session.Limits) (*project.Session, *project.Entry, error) {
	ctx, err := l.s.EachMessage(l.leaf, func(json.RawMessage, *project.Entry) error { return nil }) // its path and entries, not its messages
	if err != nil {
		return nil, nil, err
	}
	f, err := l.writeStandIn(ctx, lines)
	if err != nil {
		return nil, nil, err
	}
	s, err := project.Open(f.Name(), limits)
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	s.Dialect = l.s.Dialect
	if len(s.Skipped) > 0 { // the stand-in holds none of the lines pi skipped in the file
		skipped := make([]int, len(s.Skipped))
		for i, n := range s.Skipped { // the stand-in's line numbers, as the new file's
			skipped[i] = n - len(ctx.Path) - 1 + lastLine(l.s)
		}
		s.Close()
		return nil, nil, fmt.Errorf("internal error: the new file has lines pi skips (%v)", skipped)
	}
	leaf, err := s.Leaf(newLeaf)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, leaf, nil
}

// writeStandIn writes the stand-in of standIn to a new scratch file and
// returns it; closing it removes it.
func (l *loaded) writeStandIn(ctx *project.Context, lines []byte) (*safefile.ScratchFile, error) {
	f, err := safefile.Scratch(l.temps, "pisess-check-*.jsonl")
	if err != nil {
		return nil, err
	}
	inContext := make(map[*project.Entry]bool, len(ctx.Entries))
	for _, e := range ctx.Entries {
		inContext[e] = true
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, "{\"type\":\"session\",\"version\":%d,\"id\":%s}\n", l.s.Header.Version, jsonString(l.s.Header.ID))
	rd := l.s.Records()
	for _, e := range ctx.Path {
		if !inContext[e] {
			w.Write(stub(e, jsonString(e.ParentID())))
		} else if r, rerr := rd.Read(e); rerr != nil {
			err = rerr
			break
		} else {
			w.Write(r.Tape.Input())
		}
		w.WriteByte('\n')
	}
	w.Write(lines)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkFailed is a plan that failed its self-check (nil: it passed).
func checkFailed(err error) error {
	if err == nil {
		return nil
	}
	return &safefile.Error{Code: safefile.VerifyFailed, Err: fmt.Errorf("the planned entries do not do what they should (please report it): %w", err)}
}

// verifier is the check a result must pass: it validates, and no finding
// is bad.
func verifier(vopts validate.Options, bad func(f finding.Finding) bool) safefile.VerifyFunc {
	return func(name string, r io.Reader) error {
		rep, err := validate.Stream(name, r, vopts)
		if err != nil {
			return err
		}
		for _, f := range rep.Findings {
			if bad(f) {
				return fmt.Errorf("line %d: %s: %s", f.Line, f.Code, f.Message)
			}
		}
		return nil
	}
}

// broken is a finding a repaired file may not have: an error, or a torn
// last line.
func broken(f finding.Finding) bool {
	return f.Severity == finding.Error || f.Code == finding.PartialTail
}

// appendFix runs a repair through safefile.Append and reports it: plan gets
// the file loaded and returns what to append, or why not (a plan with an
// error is reported, and nothing is appended).
func appendFix(fsys safefile.FS, path, command string, opts Options, plan func(*loaded) (*Plan, error)) (Report, error) {
	o := safefile.RewriteOptions{DryRun: opts.DryRun, Verify: verifier(opts.Validate, broken), Temps: opts.Temps}
	if opts.Backup {
		o.BackupSuffix = BackupSuffix
	}
	var p *Plan
	out, err := safefile.Append(fsys, path, o, func(in io.Reader) ([]byte, error) {
		l, err := load(in.(io.ReadSeeker), path, path, opts)
		if err != nil {
			return nil, err
		}
		defer l.s.Close()
		if p, err = plan(l); err != nil {
			return nil, err
		}
		return p.Lines, nil
	})
	r := Report{File: cmp.Or(out.Path, path), Action: action(command, len(out.Appended) > 0, opts.DryRun)}
	if p != nil {
		r.Leaf, r.Added = p.Leaf, p.Added
		if len(out.Appended) > 0 {
			r.NewLeaf = p.NewLeaf
		}
	}
	if out.Backup != "" && (out.Written || opts.DryRun) {
		r.Backup = &out.Backup
	}
	return r, err
}

// UnstickFile runs Unstick on the file at path and appends its plan.
func UnstickFile(fsys safefile.FS, path string, opts Options) (Report, error) {
	return appendFix(fsys, path, "unstick", opts, func(l *loaded) (*Plan, error) {
		plan, err := Unstick(l.s, l.leaf, opts.Now)
		if err != nil || len(plan.Lines) == 0 {
			return plan, err
		}
		if err := editsUnknown(l.s, plan.Added); err != nil {
			return nil, err
		}
		return plan, checkFailed(l.after(plan.Lines, plan.NewLeaf, opts.Validate.Limits, func(s *project.Session, leaf *project.Entry) error {
			ctx, err := s.Context(leaf)
			if err == nil && (len(ctx.Unpaired) > 0 || len(ctx.Unanswered()) > 0) {
				err = errors.New("the new context still breaks the tool call/result pairing")
			}
			return err
		}))
	})
}

// SlimFile runs Slim on the file at path and appends its plan.
func SlimFile(fsys safefile.FS, path string, opts Options) (Report, error) {
	var plan *SlimPlan
	r, err := appendFix(fsys, path, "slim", opts, func(l *loaded) (*Plan, error) {
		var err error
		if plan, err = Slim(l.s, l.leaf, opts.MaxBytes, opts.Now); err != nil {
			return nil, err
		}
		plan.TokensAfter = plan.TokensBefore
		if len(plan.Lines) == 0 {
			return plan.Plan, nil
		}
		if err := editsUnknown(l.s, plan.Added); err != nil {
			plan = nil
			return nil, err
		}
		check := newSlimCheck(opts.MaxBytes, plan.Over)
		err = l.after(plan.Lines, plan.NewLeaf, opts.Validate.Limits, func(s *project.Session, leaf *project.Entry) error {
			_, err := s.EachMessage(leaf, check.message) // one message at a time: its memory is a record, not the context
			return err
		})
		if err == nil {
			plan.TokensAfter = check.tokens
		}
		return plan.Plan, checkFailed(err)
	})
	if plan != nil {
		r.Elided, r.Over = plan.Elided, plan.Over
		r.TokensBefore, r.TokensAfter = &plan.TokensBefore, &plan.TokensAfter
	}
	return r, err
}

// editsUnknown refuses a plan with context_edit entries for an oh-my-pi
// session: omp has no such entry (its loader passes it over), so the
// appended edits would change nothing there.
func editsUnknown(s *project.Session, added []Added) error {
	if s.Dialect != session.Omp {
		return nil
	}
	for _, a := range added {
		if a.Type == "context_edit" {
			return &safefile.Error{Code: safefile.Unsupported, Err: errors.New("an oh-my-pi session: omp has no context_edit entries, which this repair appends (omp would pass them over); left untouched")}
		}
	}
	return nil
}

// slimCheck checks, one message at a time, that the editable messages of
// SlimFile's new context over the limit are the ones the plan says stay
// over, each of the size it says, and estimates the context's tokens.
type slimCheck struct {
	maxBytes int64
	said     map[string]int // the size of each message the plan says stays over
	seen     int            // messages checked
	tokens   int            // pi's estimate of the messages checked
}

func newSlimCheck(maxBytes int64, over []Over) *slimCheck {
	said := make(map[string]int, len(over))
	for _, o := range over {
		said[o.EntryID] = o.Bytes
	}
	return &slimCheck{maxBytes: maxBytes, said: said}
}

func (c *slimCheck) message(msg json.RawMessage, src *project.Entry) error {
	i := c.seen
	c.seen++
	c.tokens += project.EstimateTokens(msg)
	role, content := roleAndContent(msg)
	if !editable(src, role) {
		return nil
	}
	n, listed := c.said[src.ID()]
	switch {
	case listed && n != len(content):
		return fmt.Errorf("message %d (entry %s) is %d bytes, not the %d its plan says", i, src.ID(), len(content), n)
	case !listed && int64(len(content)) > c.maxBytes:
		return fmt.Errorf("message %d (entry %s) is still %d bytes", i, src.ID(), len(content))
	}
	return nil
}
