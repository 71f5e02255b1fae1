package audit

import (
	"os"
	"time"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/parse"
	"github.com/pisess/pisess/internal/validate"
)

// Verdict is a file's one-word audit result (cli.md, `audit`).
type Verdict string

// The verdicts. A file with any error finding is corrupt, including a line
// of concatenated objects (which `pisess repair` can split): repairable is
// kept to what cli.md names, a tolerated torn tail or a missing final
// newline, so that `audit` fails exactly the files `validate` fails.
const (
	OK             Verdict = "ok"              // valid, current version
	NeedsMigration Verdict = "needs-migration" // valid, version 1 or 2
	Repairable     Verdict = "repairable"      // a torn tail or a missing final newline, no errors
	Corrupt        Verdict = "corrupt"         // at least one error
	TooNew         Verdict = "too-new"         // a newer format than pisess reads
	NotSession     Verdict = "not-a-session"   // JSONL that is not a pi session
)

// Verdicts lists every verdict, worst first.
func Verdicts() []Verdict {
	return []Verdict{Corrupt, TooNew, NotSession, Repairable, NeedsMigration, OK}
}

// Record is what the audit keeps of one file: small figures, plus compact
// entry keys and usage charges for the deduplicating totals.
type Record struct {
	Path string
	// Report is the full validation report. Set it to nil once it has
	// been written out: the rest of the record is all Total needs.
	Report *validate.Report

	Verdict    Verdict
	Status     validate.Status
	Version    int
	Dialect    parse.Dialect // pi, or omp for an oh-my-pi file (docs/omp.md)
	SessionID  string
	Entries    int
	FirstError *finding.Finding // the first error finding, if any
	// Stuck: the default leaf's context breaks the pairing of tool calls
	// and results (unanswered_tool_call, unpaired_tool_in_context), so
	// providers reject the next turn; `pisess unstick` fixes it. A flag
	// beside the verdict, which says whether the file is well-formed.
	Stuck bool
	// Interleaved: two branches grew by turns (interleaved_appends), the
	// shape two pi processes appending to one file leave.
	Interleaved bool

	CWD           string
	Name          string         // latest session_info name
	FirstMessage  string         // the first user message: one line, short
	ParentSession string         // header parentSession (or older branchedFrom)
	Messages      map[string]int // messages by role
	Branches      int            // entries with more than one child
	Leaves        int            // entries with no child
	Compactions   int
	Models        []string // provider/model of assistant messages and usage entries, sorted
	Usage         Usage    // everything in this file, copies included
	Bytes         int64
	Modified      time.Time // file modification time
	FirstActivity time.Time // earliest entry timestamp, else Modified
	LastActivity  time.Time // latest entry timestamp, else Modified

	parents []string  // parentSession and branchedFrom values
	keys    keyList   // one key per entry with an id, in file order
	charges chargeLog // one per usage record
	models  []string  // model names that charges refer to
}

// MessageCount is the number of messages of all roles.
func (r *Record) MessageCount() int {
	n := 0
	for _, c := range r.Messages {
		n += c
	}
	return n
}

// charge is one usage record, tied to the entry that carries it.
type charge struct {
	tokens Tokens
	cost   float64
	at     int64   // the entry's time in Unix milliseconds, or noTime
	entry  int32   // index into keys; -1 for an entry without an id
	model  int32   // index into models; -1 when unknown
	price  pricing // whether cost is known
}

// File audits the file at path in its one validation pass with opts (the
// Observer is set here). The error is a *validate.IOError when the file
// cannot be read; problems in its content are in the record.
func File(path string, opts validate.Options) (*Record, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, &validate.IOError{Path: path, Err: err}
	}
	c := newCollector()
	opts.Observer = c
	rep, err := validate.File(path, opts)
	if err != nil {
		return nil, err
	}
	return c.record(path, rep, info.ModTime()), nil
}

// verdictOf maps a validation report to a verdict.
func verdictOf(rep *validate.Report) Verdict {
	switch {
	case rep.Kind == validate.TooNew:
		return TooNew
	case rep.Kind == validate.NotSession:
		return NotSession
	case rep.Status == validate.Invalid:
		return Corrupt
	case rep.Status == validate.Tolerated, rep.Has(finding.MissingFinalNewline):
		return Repairable
	case rep.Version < validate.CurrentVersion:
		return NeedsMigration
	}
	return OK
}

// firstError returns the report's first error finding (by line), or nil.
func firstError(rep *validate.Report) *finding.Finding {
	for i := range rep.Findings {
		if rep.Findings[i].Severity == finding.Error {
			f := rep.Findings[i]
			return &f
		}
	}
	return nil
}
