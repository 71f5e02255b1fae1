package audit

import (
	"fmt"
	"sort"
)

// Grouping chooses grouped totals.
type Grouping string

// The groupings.
const (
	NoGrouping Grouping = ""
	ByProject  Grouping = "project" // the header's cwd
	ByModel    Grouping = "model"   // provider/model of each usage record
	ByDay      Grouping = "day"     // UTC date of each usage record's entry
)

// ParseGrouping reads a --by value.
func ParseGrouping(s string) (Grouping, error) {
	switch g := Grouping(s); g {
	case NoGrouping, ByProject, ByModel, ByDay:
		return g, nil
	}
	return NoGrouping, fmt.Errorf("--by must be project, model or day, not %q", s)
}

// Unknown is the group key of usage without a project, model or day.
const Unknown = "(unknown)"

// Group is the total of one group.
type Group struct {
	Key   string
	Files int // files with something counted in the group
	Usage Usage
}

// Summary totals the records. Entries and Usage count each copied
// (forked or cloned) entry once; Duplicates is what was left out.
type Summary struct {
	Files      int
	Verdicts   map[Verdict]int
	Versions   map[int]int
	Entries    int
	Bytes      int64
	Usage      Usage
	Duplicates Duplicates
	Groups     []Group // empty without a grouping
}

// Duplicates is what deduplication left out of the totals.
type Duplicates struct {
	Entries int
	Usage   Usage
}

// Total adds up the records, in their order: within a lineage, an entry
// whose id an earlier file of the lineage already holds is a copy and
// counts once; usage that copies carry is left out with them.
func Total(recs []*Record, by Grouping) Summary {
	s := Summary{Verdicts: map[Verdict]int{}, Versions: map[int]int{}}
	g := newGrouper(by)
	seen := newDedup(recs)
	for i, r := range recs {
		s.Files++
		s.Verdicts[r.Verdict]++
		s.Versions[r.Version]++
		s.Bytes += r.Bytes
		copies := seen.copies(i, r)
		s.Entries += r.Entries - copies.count
		s.Duplicates.Entries += copies.count
		g.file(i, r)
		for _, ch := range r.charges {
			if copies.has(ch.entry) {
				s.Duplicates.Usage.add(ch.tokens, ch.cost)
				continue
			}
			s.Usage.add(ch.tokens, ch.cost)
			g.charge(i, r, ch)
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
	size := map[int]int{}
	for _, root := range d.roots {
		size[root]++
	}
	for root, n := range size {
		if n > 1 {
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
	for k, key := range r.keys {
		first, ok := owner[key]
		switch {
		case !ok:
			owner[key] = int32(i)
		case int(first) != i:
			if c.mark == nil {
				c.mark = make([]bool, len(r.keys))
			}
			c.mark[k] = true
			c.count++
		}
	}
	return c
}

// grouper adds usage into groups.
type grouper struct {
	by     Grouping
	totals map[string]*Group
	last   map[string]int // group key → last file counted in it
}

func newGrouper(by Grouping) *grouper {
	return &grouper{by: by, totals: map[string]*Group{}, last: map[string]int{}}
}

// file counts a file in its project.
func (g *grouper) file(i int, r *Record) {
	if g.by == ByProject {
		g.group(orUnknown(r.CWD), i)
	}
}

// charge adds one counted usage record.
func (g *grouper) charge(i int, r *Record, ch charge) {
	var key string
	switch g.by {
	case ByProject:
		key = orUnknown(r.CWD)
	case ByModel:
		key = Unknown
		if ch.model >= 0 {
			key = r.models[ch.model]
		}
	case ByDay:
		key = Unknown
		if ch.day != noDay {
			key = Day(ch.day)
		}
	default:
		return
	}
	g.group(key, i).Usage.add(ch.tokens, ch.cost)
}

// group returns the group, counting file i in it once.
func (g *grouper) group(key string, i int) *Group {
	t := g.totals[key]
	if t == nil {
		t = &Group{Key: key}
		g.totals[key] = t
		g.last[key] = -1
	}
	if g.last[key] != i {
		t.Files++
		g.last[key] = i
	}
	return t
}

// groups lists the groups: days in date order, others by cost, highest
// first (then tokens, then key).
func (g *grouper) groups() []Group {
	out := make([]Group, 0, len(g.totals))
	for _, t := range g.totals {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if g.by != ByDay {
			if a.Usage.Cost != b.Usage.Cost {
				return a.Usage.Cost > b.Usage.Cost
			}
			if a.Usage.Tokens != b.Usage.Tokens {
				return a.Usage.Tokens > b.Usage.Tokens
			}
		}
		return a.Key < b.Key
	})
	return out
}

func orUnknown(s string) string {
	if s == "" {
		return Unknown
	}
	return s
}
