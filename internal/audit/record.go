package audit

import (
	"slices"
	"time"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
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

	Verdict    Verdict
	Status     string // validate's: valid, tolerated or invalid
	Version    int
	Dialect    session.Dialect // pi, or omp for an oh-my-pi file (docs/omp.md)
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

// Validation is what the validation pass that gathered a file's figures
// concluded (cli fills it from validate's report, which audit does not
// read, so that the engines do not depend on each other).
type Validation struct {
	Status     string // valid, tolerated or invalid
	TooNew     bool   // a newer format than pisess reads
	NotSession bool   // JSONL that is not a pi session
	Version    int
	Dialect    session.Dialect
	SessionID  string
	Entries    int
	Bytes      int64
	Findings   []finding.Finding
}

// has reports whether the validation has a finding with the code.
func (v *Validation) has(code finding.Code) bool {
	return slices.ContainsFunc(v.Findings, func(f finding.Finding) bool { return f.Code == code })
}

// verdictOf maps a validation to a verdict.
func verdictOf(v *Validation) Verdict {
	switch {
	case v.TooNew:
		return TooNew
	case v.NotSession:
		return NotSession
	case v.Status == "invalid":
		return Corrupt
	case v.Status == "tolerated", v.has(finding.MissingFinalNewline):
		return Repairable
	case v.Version < session.CurrentVersion:
		return NeedsMigration
	}
	return OK
}
