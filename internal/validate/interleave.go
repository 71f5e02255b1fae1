package validate

import (
	"github.com/pisess/pisess/internal/finding"
)

// Two pi processes appending to one session file (both resumed it, or a
// crash left one running) each write their entries under their own leaf,
// so in file order two branches grow by turns: the file is a valid tree,
// but pi -c resumes only the branch written last. appends finds that shape
// as the entries stream past, in constant memory.
//
// A run is a maximal stretch of entries each of which is the child of the
// entry before it in the file. Each run belongs to a branch: a run that
// starts under the last entry of an earlier run that no entry had taken as
// a parent yet (a tip left behind) resumes that run's branch; any other
// run (under an entry that already has a child: a /tree branch, or a
// root) starts a new branch. Two branches interleave when consecutive runs
// alternate between them and at least minResumes of those runs resume a
// tip, each branch adding at least minSide entries meanwhile. A user who
// goes back once to an older branch in /tree and carries on there resumes
// one tip: that is not interleaving. Doing it back and forth, A B A B, is
// the same shape as two writers and is reported too: either way pi -c
// resumes one of the two branches only.
const (
	minResumes   = 2
	minSide      = 4
	recentTips   = 16 // tips remembered: two writers resume the newest ones
	maxInterlace = 16 // findings per file, for hostile input
)

// tip is the last entry of a run that no entry names as its parent (yet).
type tip struct {
	ord    int32
	branch int
}

// side is one of two interleaving branches: its newest entry and how many
// entries it added during the interleaving.
type side struct {
	branch  int
	entries int
	tipID   []byte
	tipLine int
}

// appends is the detector; the linker feeds it every entry in file order.
type appends struct {
	tips     []tip // newest last
	branches int   // branch ids handed out
	run      int   // branch of the current run
	runLen   int
	runStart int32 // ordinal of the current run's first entry
	lastID   []byte
	lastLine int
	// the current streak of runs alternating between two branches
	pair     [2]side
	resumes  int
	from     int // line of the streak's first run after the first
	reported int
}

// enter takes the entry of ordinal ord, with parent ordinal parent (-1 for
// a root or a parent not known yet), id id on line line.
func (a *appends) enter(ord, parent int32, id string, line int, add func(finding.Finding)) {
	if parent < 0 || parent != ord-1 || ord == 0 {
		a.startRun(ord, parent, line, add)
	}
	a.runLen++
	a.lastID = append(a.lastID[:0], id...)
	a.lastLine = line
}

// startRun begins a new run at ord, under parent.
func (a *appends) startRun(ord, parent int32, line int, add func(finding.Finding)) {
	if ord > 0 {
		a.leaveTip(tip{ord: ord - 1, branch: a.run})
	}
	branch, resumed := a.takeTip(parent)
	if !resumed {
		a.branches++
		branch = a.branches
	}
	if ord > 0 {
		if !resumed && parent >= a.runStart {
			a.runLen = int(ord - 1 - parent) // the run's entries after the fork
		}
		a.alternate(branch, resumed, line, add)
	}
	a.run, a.runLen, a.runStart = branch, 0, ord
}

// leaveTip remembers the last entry of the run that just ended.
func (a *appends) leaveTip(t tip) {
	if len(a.tips) == recentTips {
		a.tips = append(a.tips[:0], a.tips[1:]...)
	}
	a.tips = append(a.tips, t)
}

// takeTip returns the branch of parent when it is a tip left behind, and
// forgets the tip: it has a child now.
func (a *appends) takeTip(parent int32) (int, bool) {
	for i, t := range a.tips {
		if t.ord == parent && parent >= 0 {
			a.tips = append(a.tips[:i], a.tips[i+1:]...)
			return t.branch, true
		}
	}
	return 0, false
}

// alternate moves the streak on to a run of branch (the run before it,
// a.run, just ended).
func (a *appends) alternate(branch int, resumed bool, line int, add func(finding.Finding)) {
	p := &a.pair
	switch {
	case resumed && a.run == p[0].branch && branch == p[1].branch,
		resumed && a.run == p[1].branch && branch == p[0].branch:
		a.resumes++
		a.close(a.sideOf(a.run))
	default:
		a.report(add)
		*p = [2]side{{branch: a.run}, {branch: branch}}
		a.close(&p[0])
		a.resumes, a.from = 0, line
		if resumed {
			a.resumes = 1
		}
	}
}

func (a *appends) sideOf(branch int) *side {
	if a.pair[0].branch == branch {
		return &a.pair[0]
	}
	return &a.pair[1]
}

// close adds the run that just ended to its side.
func (a *appends) close(s *side) {
	s.entries += a.runLen
	s.tipID = append(s.tipID[:0], a.lastID...)
	s.tipLine = a.lastLine
}

// finish reports a streak still open at the end of the file.
func (a *appends) finish(add func(finding.Finding)) {
	if a.pair[0].branch == 0 && a.pair[1].branch == 0 {
		return
	}
	if a.run == a.pair[0].branch || a.run == a.pair[1].branch {
		a.close(a.sideOf(a.run))
	}
	a.report(add)
}

// report makes the finding of the streak when it is one of interleaved
// appends.
func (a *appends) report(add func(finding.Finding)) {
	p := &a.pair
	if a.resumes < minResumes || p[0].entries < minSide || p[1].entries < minSide || a.reported >= maxInterlace {
		return
	}
	a.reported++
	first, last := p[0], p[1]
	if first.tipLine > last.tipLine {
		first, last = last, first
	}
	add(finding.Warnf(finding.InterleavedAppends, a.from,
		"from line %d on, two branches grow by turns (%d times one resumed where it had stopped), as two pi processes appending to one session leave it: tips %s (line %d, %d entries) and %s (line %d, %d entries); pi -c resumes only the branch of the last entry: `pisess fork --leaf %s FILE` makes the other a session of its own",
		a.from, a.resumes, quoteID(first.tipID), first.tipLine, first.entries, quoteID(last.tipID), last.tipLine, last.entries, quoteID(first.tipID)).
		WithEntry(string(first.tipID)))
}

// quoteID shows an id, or (none) for an entry without one.
func quoteID(id []byte) string {
	if len(id) == 0 {
		return "(none)"
	}
	return string(id)
}
