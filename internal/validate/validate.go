package validate

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// CurrentVersion is the session format version pi writes today.
const CurrentVersion = session.CurrentVersion

// Status is a file's overall result, as cli.md defines it.
type Status string

// The statuses.
const (
	Valid     Status = "valid"     // no errors, no partial tail
	Tolerated Status = "tolerated" // no errors, but a torn last line
	Invalid   Status = "invalid"   // at least one error
)

// Kind says what the file turned out to be.
type Kind string

// The kinds of file.
const (
	Session    Kind = "session"       // a v1-v3 session (maybe damaged)
	NotSession Kind = "not-a-session" // JSONL whose first record is not a session header
	TooNew     Kind = "too-new"       // a newer format than pisess reads
)

// Observer receives the typed view of every record of a file as it streams
// past, in file order; audit uses it to gather figures in the same pass.
// An Observer's entries are read with session.Figures. The views' strings
// share the file's bytes: they are valid during the call only, and what
// is kept must be cloned.
type Observer interface {
	// Header receives the header and the file's dialect (an omp file's
	// title slot applied to h, as omp's loader applies it).
	Header(line int, h *session.Header, dialect session.Dialect)
	// Entry receives each entry the linkage checks take, with its place
	// in the tree as they found it.
	Entry(line int, e *session.Entry, link session.Link)
}

// Options configure a validation.
type Options struct {
	Limits         session.Limits
	Schemas        *Schemas // nil: parse, structure and linkage checks only
	RequireVersion int      // files older than this fail with needs_migration
	Observer       Observer // optional
	Workers        int      // goroutines inspecting the entries of one file (0 or 1: inline)
}

// Report is the result of validating one file; its JSON form is the
// `validate --format json` contract.
type Report struct {
	File      string            `json:"file"`
	FileBytes []byte            `json:"fileBytes,omitempty"` // the name's bytes when it is not UTF-8
	Status    Status            `json:"status"`
	Version   int               `json:"version"`
	Entries   int               `json:"entries"`
	SessionID string            `json:"sessionId"`
	Dialect   session.Dialect   `json:"dialect"` // pi, or omp for oh-my-pi's files (docs/omp.md)
	Findings  []finding.Finding `json:"findings"`
	Kind      Kind              `json:"-"`
	Bytes     int64             `json:"-"`
	Lines     int               `json:"-"`
}

// Errors counts the error findings.
func (r *Report) Errors() int { return r.count(finding.Error) }

// Warnings counts the warning findings.
func (r *Report) Warnings() int { return r.count(finding.Warning) }

func (r *Report) count(s finding.Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Has reports whether the report has a finding with the code.
func (r *Report) Has(code finding.Code) bool {
	return slices.ContainsFunc(r.Findings, func(f finding.Finding) bool { return f.Code == code })
}

// IOError is a file that could not be read (session.IOError); it maps to
// exit code 2.
type IOError = session.IOError

// File validates the file at path. The error is an *IOError when the file
// cannot be read; findings about its content are in the report.
func File(path string, opts Options) (*Report, error) {
	f, info, err := session.OpenSession(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max := opts.Limits.MaxFileBytes; max > 0 && info.Mode().IsRegular() && info.Size() > max {
		tooLarge := finding.Errorf(finding.FileTooLarge, 0, "file of %d bytes exceeds the limit of %d (--max-file-bytes)", info.Size(), max)
		return &Report{File: path, FileBytes: finding.NameBytes(path), Status: Invalid, Kind: Session, Dialect: session.Pi, Bytes: info.Size(), Findings: []finding.Finding{tooLarge}}, nil
	}
	if info.Size() < 4*batchBytes {
		opts.Workers = 1 // not worth the goroutines
	}
	return Stream(path, f, opts)
}

// Stream validates a session read from r; name is used in the report.
func Stream(name string, r io.Reader, opts Options) (*Report, error) {
	src, _ := session.SourceOf(r) // before sniff reads r
	p := newPass(name, opts)
	p.rep.Dialect, r = sniff(r)
	rd := getReader(r, opts.Limits)
	defer putReader(rd)
	rd.SetSource(src)
	rd.DeferClassify()
	for rd.Next() {
		l := rd.Line()
		p.lastLine = l.Num
		if p.insp != nil {
			p.insp.submitLine(l, rd) // classified and inspected in a batch
			continue
		}
		l.Classify(&p.cls)
		p.line(l)
	}
	if p.insp != nil {
		p.insp.close()
	}
	switch err := rd.Err(); {
	case errors.Is(err, session.ErrFileTooLarge):
		p.add(finding.Errorf(finding.FileTooLarge, p.lastLine+1, "file exceeds the limit of %d bytes (--max-file-bytes)", opts.Limits.MaxFileBytes))
	case err != nil:
		return nil, &IOError{Path: name, Err: err}
	}
	p.rep.Bytes = rd.BytesRead()
	return p.finish(), nil
}

// readers keeps Readers, with their 256 KiB buffers, for the next file.
var readers = sync.Pool{New: func() any { return session.NewReader(nil, session.Limits{}) }}

func getReader(r io.Reader, limits session.Limits) *session.Reader {
	rd := readers.Get().(*session.Reader)
	rd.Reset(r, limits)
	return rd
}

func putReader(rd *session.Reader) {
	rd.Reset(nil, session.Limits{}) // let the input go
	readers.Put(rd)
}

// pass is the state of one validation pass over one file. The reader
// goroutine classifies the lines up to the header and handles it; the
// lines after it go in batches to the inspector (on Workers goroutines),
// and their results come back in order to the sequential checks (trust,
// linkage, observer).
type pass struct {
	opts     Options
	rep      *Report
	links    *linker
	insp     *inspector
	cls      session.Classifier // for the lines up to the header
	records  int                // complete objects seen (the header is record 0)
	trusted  bool               // no fatal corruption yet: entries are still checked
	checking bool               // the header allows entry checks
	lastLine int
	tail     bool // a torn write was seen: a partial tail or a torn line (status tolerated)
	// tornAt is 1 + the index in rep.Findings of the latest torn line
	// before any record (0: none), tornBytes its length: finish words
	// its message for the last line when no line follows it.
	tornAt, tornBytes int
	// slotTitle is the title of omp's title slot (hasSlot: line 1 is one),
	// kept for an Observer.
	slotTitle string
	hasSlot   bool
}

func newPass(name string, opts Options) *pass {
	p := &pass{opts: opts, trusted: true}
	p.rep = &Report{File: name, FileBytes: finding.NameBytes(name), Kind: Session, Findings: []finding.Finding{}}
	p.links = newLinker(p.add)
	p.links.made = func() int { return len(p.rep.Findings) }
	return p
}

func (p *pass) add(f finding.Finding) { p.rep.Findings = append(p.rep.Findings, f) }

// line handles one physical line up to and including the header's (and
// every line of a file whose entries are not checked).
func (p *pass) line(l *session.Line) {
	if f, ok := l.BOMFinding(); ok {
		p.add(f)
	}
	if p.titleSlot(l) {
		return
	}
	if l.Class == session.TornLine && p.records == 0 {
		p.tornHeader(l)
		return
	}
	if f, ok := l.Finding(); ok {
		if l.Class == session.PartialTail && p.records == 0 {
			f.Message = fmt.Sprintf(lonePartialTail, len(l.Raw))
		}
		p.add(f)
	}
	switch l.Class {
	case session.Object, session.Concatenated:
		for k := range l.Objects {
			p.record(l.Num, l.Object(k))
		}
	case session.PartialTail, session.TornLine:
		p.tail = true
	case session.Corrupt:
		p.trusted = false
	}
}

// lonePartialTail words a torn last line that no complete record comes
// before: the reader's wording ("the entries before it are intact") would be
// untrue.
const lonePartialTail = "torn last line (%d bytes, no newline): an incomplete object from an interrupted write; no complete record comes before it"

// tornHeader reports a torn line before any record: the header was torn,
// and pi, which skips the line, finds no header and refuses the file.
// Whether lines follow is known at the end (finish).
func (p *pass) tornHeader(l *session.Line) {
	p.add(finding.Errorf(finding.InvalidJSON, l.Num, tornHeaderMessage, len(l.Raw), "and more lines follow"))
	p.tornAt, p.tornBytes = len(p.rep.Findings), len(l.Raw)
	p.trusted = false
}

// tornHeaderMessage words a torn line before any record; %s says whether
// lines follow it.
const tornHeaderMessage = "the line ends inside a JSON value (%d bytes) %s: a torn write before any session header, which pi cannot load the file without"

// lastTornHeader rewords the torn header finding when its line is the
// last of the file: no lines follow it (a file cut short by
// --max-file-bytes may have more).
func (p *pass) lastTornHeader() {
	if p.tornAt == 0 || p.rep.Has(finding.FileTooLarge) {
		return
	}
	if f := &p.rep.Findings[p.tornAt-1]; f.Line == p.lastLine {
		f.Message = fmt.Sprintf(tornHeaderMessage, p.tornBytes, "and is the last line")
	}
}

// record handles one complete object: the header here, entries in batches.
func (p *pass) record(line int, raw []byte) {
	index := p.records
	p.records++
	if index > 0 {
		p.rep.Entries++
	}
	switch {
	case !p.trusted:
	case index == 0:
		p.headerRecord(line, raw)
	case p.checking:
		p.insp.submitObject(line, raw)
	}
}

// headerRecord reads and checks the first record, then starts the
// inspector for the entries.
func (p *pass) headerRecord(line int, raw []byte) {
	var t session.Tape
	if f, bad := decodeFinding(line, t.Build(raw)); bad {
		p.add(f)
		p.trusted = false
		return
	}
	p.header(line, &t)
	if p.checking {
		p.insp = newInspector(p)
	}
}

// decodeFinding turns a decoding error into its finding.
func decodeFinding(line int, err error) (finding.Finding, bool) {
	switch {
	case err == nil:
		return finding.Finding{}, false
	case errors.Is(err, session.ErrTooDeep):
		return finding.Errorf(finding.TooDeep, line, "%v", err), true
	default: // the classifier accepted the bytes: the decoder must agree
		return finding.Errorf(finding.InvalidJSON, line, "%v", err), true
	}
}

// header checks the first record, on tape t.
func (p *pass) header(line int, t *session.Tape) {
	h := session.ReadHeader(t)
	if h.Kind == "header" && h.Type == "" {
		p.rep.Kind = TooNew
		if h.VersionText != "" && h.VersionText != "null" {
			p.rep.Version = h.Version
		}
		p.add(finding.Errorf(finding.UnsupportedVersion, line, "pi's newer version-%d format ({\"kind\":\"header\"}); pisess reads versions 1 to 3", p.rep.Version).WithPointer("/version"))
		return
	}
	if h.Type != "session" {
		p.notHeader(line, h.Type)
		return
	}
	p.rep.SessionID = string([]byte(h.ID)) // h shares the line
	p.rep.Version = h.Version
	if !h.VersionOK {
		p.rep.Kind = TooNew
		p.add(finding.Errorf(finding.UnsupportedVersion, line, "header version %s is not one pisess reads (1, 2, 3)", h.VersionText).WithPointer("/version"))
		return
	}
	if p.opts.Schemas != nil {
		p.rep.Findings = append(p.rep.Findings, p.opts.Schemas.checkIn(p.rep.Dialect, h.Version, line, versionAsRead(t, h.Version))...)
	}
	p.versionFinding(line, h.Version)
	p.links.forked = h.ParentSession != ""
	p.links.omp = p.rep.Dialect == session.Omp
	if p.opts.Observer != nil {
		if p.hasSlot {
			h.Title, h.TitleFromSlot = p.slotTitle, true
		}
		p.opts.Observer.Header(line, &h, p.rep.Dialect)
	}
	p.checking = true
}

// versionAsRead returns the header on tape t with its version written as
// the integer v that pi's JSON.parse reads (3.0000000000000001 is 3), for
// the schema, which compares decimals exactly; t itself when it is written
// so already, or absent or null.
func versionAsRead(t *session.Tape, v int) *session.Tape {
	n := t.Get(0, "version")
	if t.Kind(n) != session.KindNumber || string(t.Raw(n)) == strconv.Itoa(v) {
		return t
	}
	start, end := t.Span(n)
	raw := t.Input()
	fixed := slices.Concat(raw[:start], []byte(strconv.Itoa(v)), raw[end:])
	var read session.Tape
	if read.Build(fixed) != nil {
		return t
	}
	return &read
}

// notHeader reports a first record that is not a session header: a session
// that lost its header, or a JSONL file that is not a session at all.
func (p *pass) notHeader(line int, typ string) {
	if session.IsEntryType(typ) {
		p.add(finding.Errorf(finding.MissingHeader, line, "the first record is a %q entry, not a session header", typ))
		return
	}
	p.rep.Kind = NotSession
	p.add(finding.Errorf(finding.NotASession, line, "not a pi session: the first record is an object without \"type\":\"session\""))
}

// versionFinding reports a file older than the current version, or than
// --require-version.
func (p *pass) versionFinding(line, v int) {
	if v >= CurrentVersion {
		if p.opts.RequireVersion > v { // a version pisess does not know
			p.add(finding.Errorf(finding.NeedsMigration, line, "version %d file, older than --require-version %d: pisess reads versions 1 to %d and cannot migrate it to a later one", v, p.opts.RequireVersion, CurrentVersion))
		}
		return
	}
	msg := "version %d file: pi migrates it on load; `pisess migrate --backup` does it safely"
	if p.opts.RequireVersion > v {
		p.add(finding.Errorf(finding.NeedsMigration, line, msg+" (--require-version %d)", v, p.opts.RequireVersion))
		return
	}
	p.add(finding.Warnf(finding.NeedsMigration, line, msg, v))
}

// settleLine takes one line after the header's, in file order, as the
// inspector classified it; objs are its inspected entries, when the
// inspector checked them.
func (p *pass) settleLine(r *lineResult, objs []inspected) {
	if r.hasFinding {
		p.add(r.finding)
	}
	switch r.class {
	case session.Object, session.Concatenated:
		for k := 0; k < r.objects; k++ {
			p.records++
			p.rep.Entries++
			if p.trusted {
				p.settle(&objs[k], r.num)
			}
		}
	case session.PartialTail:
		p.tail = true
	case session.TornLine:
		p.tail = true
		if r.hasTornID {
			p.links.torn(r.tornID, r.num)
		}
	case session.Corrupt:
		p.untrust(r.num)
	}
}

// untrust stops the checks of entries after fatal corruption on line num.
func (p *pass) untrust(num int) {
	if p.trusted {
		p.trusted = false
		p.insp.untrusted.Store(int64(num))
	}
}

// settle takes one inspected entry of line num, in file order: its own
// findings, then the checks that need the entries before it.
func (p *pass) settle(r *inspected, num int) {
	p.rep.Findings = append(p.rep.Findings, r.findings...)
	if r.fatal {
		p.untrust(num)
	}
	if !r.linkable {
		return
	}
	link := p.links.enter(r.entry)
	if p.opts.Observer != nil {
		p.opts.Observer.Entry(r.entry.line, &r.entry.Entry, link)
	}
}

// place puts the findings made late where they were due, in the order
// of the findings made as the file was read.
func (p *pass) place(placed []placedFinding) {
	if len(placed) == 0 {
		return
	}
	all := make([]finding.Finding, 0, len(p.rep.Findings)+len(placed))
	j := 0
	for i, f := range p.rep.Findings {
		for ; j < len(placed) && placed[j].pos == i; j++ {
			all = append(all, placed[j].f)
		}
		all = append(all, f)
	}
	for ; j < len(placed); j++ {
		all = append(all, placed[j].f)
	}
	p.rep.Findings = all
}

// finish closes the pass and computes the status.
func (p *pass) finish() *Report {
	if p.records == 0 && p.trusted {
		p.add(finding.Errorf(finding.MissingHeader, 1, "the file has no session header (it is empty or holds no complete record)"))
	}
	p.place(p.links.resolveResults()) // also after fatal corruption: those results were read before it
	if p.checking && p.trusted {
		p.links.finish()
		p.links.checkContext()
	}
	p.lastTornHeader()
	rep := p.rep
	rep.Lines = p.lastLine
	sort.SliceStable(rep.Findings, func(i, j int) bool { return rep.Findings[i].Line < rep.Findings[j].Line })
	switch {
	case rep.Errors() > 0:
		rep.Status = Invalid
	case p.tail:
		rep.Status = Tolerated
	default:
		rep.Status = Valid
	}
	return rep
}
