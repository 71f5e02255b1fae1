package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pisess/pisess/internal/session"
)

// Grouping chooses grouped totals.
type Grouping string

// The groupings.
const (
	NoGrouping Grouping = ""
	ByProject  Grouping = "project" // the header's cwd
	ByModel    Grouping = "model"   // provider/model of each usage record
	ByDay      Grouping = "day"     // date of each usage record's entry
	ByWeek     Grouping = "week"    // ISO 8601 week of each usage record's entry
	ByMonth    Grouping = "month"   // month of each usage record's entry
	BySession  Grouping = "session" // the header's session id: snapshots of one session together
)

// ParseGrouping reads a --by value.
func ParseGrouping(s string) (Grouping, error) {
	switch g := Grouping(s); g {
	case NoGrouping, ByDay, ByWeek, ByMonth, ByModel, ByProject, BySession:
		return g, nil
	}
	return NoGrouping, fmt.Errorf("--by must be day, week, month, model, project or session, not %q", s)
}

// ByTime reports whether the groups are periods of time (ordered by date).
func (g Grouping) ByTime() bool { return g == ByDay || g == ByWeek || g == ByMonth }

// Unknown is the group key of usage without a project, model or date.
const Unknown = "(unknown)"

// Group is the total of one group.
type Group struct {
	Key   string
	Files int // files with something counted in the group
	Usage Usage
	// Project and Title describe a session group (BySession): the cwd and
	// the name (else first user message) of its first file.
	Project, Title string
}

// Window is the time range [From, To) that usage is counted in; a zero
// bound is open.
type Window struct{ From, To time.Time }

// Open reports whether the window has no bounds.
func (w Window) Open() bool { return w.From.IsZero() && w.To.IsZero() }

// holds reports whether a charge's time falls in the window. A charge
// without a time is in an open window only.
func (w Window) holds(ms int64) bool {
	if w.Open() {
		return true
	}
	if ms == noTime {
		return false
	}
	return (w.From.IsZero() || ms >= w.From.UnixMilli()) && (w.To.IsZero() || ms < w.To.UnixMilli())
}

// Overlaps reports whether a file's activity (its earliest to its latest
// entry timestamp, else its modification time) meets the window: such a
// file is listed and counted.
func (w Window) Overlaps(r *Record) bool {
	return (w.From.IsZero() || !r.LastActivity.Before(w.From)) && (w.To.IsZero() || r.FirstActivity.Before(w.To))
}

// Options chooses what Total adds up.
type Options struct {
	By     Grouping
	Window Window
	// Location dates the day, week and month groups; nil is UTC.
	Location *time.Location
}

// Summary totals the records. Entries and Usage count each copied
// (forked, cloned or snapshot) entry once; Duplicates is what was left
// out.
type Summary struct {
	Files      int // files in the window
	Verdicts   map[Verdict]int
	Stuck      int // files whose Record.Stuck is set
	Versions   map[int]int
	Omp        int // files of the oh-my-pi dialect (docs/omp.md)
	Entries    int
	Bytes      int64
	Usage      Usage
	Duplicates Duplicates
	// Groups is empty without a grouping. Periods come by date, other
	// groups by cost, then tokens, then key: the costliest last, next to
	// the total.
	Groups []Group
}

// Duplicates is what deduplication left out of the totals.
type Duplicates struct {
	Entries int
	Usage   Usage
}

// UsageIn is the file's usage within the window: all of it when the
// window is open, copies included.
func (r *Record) UsageIn(w Window) Usage {
	if w.Open() {
		return r.Usage
	}
	var u Usage
	for ch := range r.charges.all() {
		if w.holds(ch.at) {
			u.add(ch.tokens, ch.cost, ch.price)
		}
	}
	return u
}

// Total adds up the records, in their order: within a lineage (forks and
// clones linked by their headers, snapshots sharing a session id), an
// entry whose id an earlier file of the lineage already holds is a copy
// and counts once; usage that copies carry is left out with them. Only
// files that overlap the window are counted, and only their usage in it;
// a file outside still claims its entries, so that copies of them stay
// copies.
func Total(recs []*Record, opts Options) Summary {
	s := Summary{Verdicts: map[Verdict]int{}, Versions: map[int]int{}}
	g := newGrouper(opts)
	seen := newDedup(recs)
	for i, r := range recs {
		copies := seen.copies(i, r)
		if !opts.Window.Overlaps(r) {
			continue
		}
		s.Files++
		s.Verdicts[r.Verdict]++
		if r.Stuck {
			s.Stuck++
		}
		s.Versions[r.Version]++
		if r.Dialect == session.Omp {
			s.Omp++
		}
		s.Bytes += r.Bytes
		s.Entries += r.Entries - copies.count
		s.Duplicates.Entries += copies.count
		g.file(i, r)
		for ch := range r.charges.all() {
			switch {
			case !opts.Window.holds(ch.at):
			case copies.has(ch.entry):
				s.Duplicates.Usage.add(ch.tokens, ch.cost, ch.price)
			default:
				s.Usage.add(ch.tokens, ch.cost, ch.price)
				g.charge(i, r, ch)
			}
		}
	}
	s.Groups = g.groups()
	return s
}

// dedup remembers, per lineage of two or more files, which file first
// held each entry key. Lone files need no memory.
type dedup struct {
	roots  []int
	owners map[int]map[uint64]int32 // lineage root → entry key → file
}

func newDedup(recs []*Record) *dedup {
	d := &dedup{roots: lineages(recs), owners: map[int]map[uint64]int32{}}
	for i, root := range d.roots {
		if root != i && d.owners[root] == nil { // a lineage of two or more files
			d.owners[root] = map[uint64]int32{}
		}
	}
	return d
}

// copySet marks which of a file's entry keys are copies.
type copySet struct {
	count int
	mark  []bool // by key index; nil when nothing is a copy
}

func (c copySet) has(entry int32) bool {
	return c.mark != nil && entry >= 0 && c.mark[entry]
}

// copies finds the entries of record i that another file of its lineage
// held first, and claims the others.
func (d *dedup) copies(i int, r *Record) copySet {
	owner := d.owners[d.roots[i]]
	if owner == nil {
		return copySet{}
	}
	var c copySet
	for k, key := range r.keys.all() {
		first, ok := owner[key]
		switch {
		case !ok:
			owner[key] = int32(i)
		case int(first) != i:
			if c.mark == nil {
				c.mark = make([]bool, r.keys.len())
			}
			c.mark[k] = true
			c.count++
		}
	}
	return c
}

// grouper adds usage into groups.
type grouper struct {
	opts   Options
	totals map[string]*Group
	last   map[string]int // group key → last file counted in it
}

func newGrouper(opts Options) *grouper {
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	return &grouper{opts: opts, totals: map[string]*Group{}, last: map[string]int{}}
}

// file counts a file in its project or session.
func (g *grouper) file(i int, r *Record) {
	switch g.opts.By {
	case ByProject, BySession:
		g.group(g.fileKey(r), i, r)
	}
}

// fileKey is the key of a file's project or session.
func (g *grouper) fileKey(r *Record) string {
	if g.opts.By == BySession {
		return cmp.Or(r.SessionID, r.Path) // no id: a session of its own
	}
	return cmp.Or(r.CWD, Unknown)
}

// charge adds one counted usage record.
func (g *grouper) charge(i int, r *Record, ch charge) {
	var key string
	switch by := g.opts.By; {
	case by == NoGrouping:
		return
	case by == ByProject || by == BySession:
		key = g.fileKey(r)
	case by == ByModel:
		key = Unknown
		if ch.model >= 0 {
			key = r.models[ch.model]
		}
	default:
		key = PeriodOf(by, ch.at, g.opts.Location)
	}
	g.group(key, i, r).Usage.add(ch.tokens, ch.cost, ch.price)
}

// PeriodOf names the day (2026-01-31), ISO week (2026-W05) or month
// (2026-01) of a time in Unix milliseconds, in loc; Unknown for noTime.
func PeriodOf(by Grouping, ms int64, loc *time.Location) string {
	if ms == noTime {
		return Unknown
	}
	t := time.UnixMilli(ms).In(loc)
	switch by {
	case ByWeek:
		year, week := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", year, week)
	case ByMonth:
		return t.Format("2006-01")
	}
	return t.Format(time.DateOnly)
}

// group returns the group, counting file i in it once.
func (g *grouper) group(key string, i int, r *Record) *Group {
	t := g.totals[key]
	if t == nil {
		t = &Group{Key: key}
		if g.opts.By == BySession {
			t.Project, t.Title = r.CWD, r.Title()
		}
		g.totals[key] = t
		g.last[key] = -1
	}
	if g.last[key] != i {
		t.Files++
		g.last[key] = i
	}
	return t
}

// groups lists the groups in the order Summary.Groups describes.
func (g *grouper) groups() []Group {
	out := make([]Group, 0, len(g.totals))
	for _, t := range g.totals {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Group) int {
		c := 0
		if !g.opts.By.ByTime() {
			c = cmp.Or(cmp.Compare(a.Usage.Cost, b.Usage.Cost), cmp.Compare(a.Usage.Tokens.Total, b.Usage.Tokens.Total))
		}
		return cmp.Or(c, strings.Compare(a.Key, b.Key))
	})
	return out
}

// Title is the session's name, else its first user message.
func (r *Record) Title() string { return cmp.Or(r.Name, r.FirstMessage) }
