package audit

import (
	"slices"
	"strings"
)

// modelTable numbers the models of one file: a number a name
// (modelName: "provider/model"), found from the provider and model an
// entry gives without building the name again, and most entries give the
// last pair looked up, which costs two string compares. The names are
// what charges refer to (Record.models); used marks those an assistant
// message or a usage entry named (Record.Models), not a header's or a
// model_change's alone.
type modelTable struct {
	byPair map[modelPair]int32 // provider and model → index into pairs
	pairs  []numberedPair
	last   int32 // index into pairs of the last pair looked up, or -1
	byName map[string]int32
	names  []string // by number
	used   []bool   // by number
}

// modelPair is a provider and a model as an entry gives them.
type modelPair struct{ provider, model string }

// numberedPair is a pair and its model's number (-1: both halves empty).
type numberedPair struct {
	modelPair
	number int32
}

func newModelTable() modelTable {
	return modelTable{byPair: map[modelPair]int32{}, byName: map[string]int32{}, last: -1}
}

// number returns the number of modelName(provider, model), -1 when that
// is "" (no model). provider and model may share the file: what is kept
// is copied.
func (m *modelTable) number(provider, model string) int32 {
	if m.last >= 0 {
		if p := &m.pairs[m.last]; p.provider == provider && p.model == model {
			return p.number
		}
	}
	i, ok := m.byPair[modelPair{provider, model}]
	if !ok {
		pair := modelPair{strings.Clone(provider), strings.Clone(model)}
		i = int32(len(m.pairs))
		m.pairs = append(m.pairs, numberedPair{pair, m.named(modelName(pair.provider, pair.model))})
		m.byPair[pair] = i
	}
	m.last = i
	return m.pairs[i].number
}

// named returns the number of name (a copy, not the file's), added when
// new; -1 for "".
func (m *modelTable) named(name string) int32 {
	if name == "" {
		return -1
	}
	n, ok := m.byName[name]
	if !ok {
		n = int32(len(m.names))
		m.names = append(m.names, name)
		m.used = append(m.used, false)
		m.byName[name] = n
	}
	return n
}

// use marks model n as used (n -1: none).
func (m *modelTable) use(n int32) {
	if n >= 0 {
		m.used[n] = true
	}
}

// usedNames are the used models' names, sorted; nil when there are none.
func (m *modelTable) usedNames() []string {
	var out []string
	for n, name := range m.names {
		if m.used[n] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
