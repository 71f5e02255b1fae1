package validate

import "github.com/pisess/pisess/internal/session"

// quickSwitch is an allOf whose every member is
//
//	{"if": {"properties": {K: {"const": V}}, "required": [K]}, "then": T}
//
// with the same key K and string constants V: the way our schemas pick
// the rules of a content block by its "type" (defs.json's userBlock,
// assistantBlock, anyBlock, agentMessage). Read member by member, each
// if scans the whole object again; on an object the switch finds K once
// and applies the thens whose constant it holds. The verdict is the
// allOf's: an if holds when the last member named K is the string V (the
// member a decoder keeps), and fails when K is absent or not a string,
// leaving its then unasked. On anything but an object every if holds, so
// validAt reads the allOf as it is.
type quickSwitch struct {
	key    string
	vocab  *session.Keys // the schemas' keys (quickCompiler.number)
	number int           // key's number in vocab
	cases  []switchCase
}

type switchCase struct {
	value string
	then  *quickSchema // nil: nothing more is asked
}

// validAt reports whether object node n of tape t satisfies every case.
func (w *quickSwitch) validAt(t *session.Tape, n int) bool {
	v := -1
	for k := n + 1; k < t.Skip(n); k = t.Skip(k + 1) {
		if t.KeyNumber(w.vocab, k) == w.number {
			v = k + 1
		}
	}
	if v < 0 || t.Kind(v) != session.KindString {
		return true // no if holds
	}
	x, _ := t.Str(v)
	for _, c := range w.cases {
		if c.value == x && c.then != nil && !c.then.validAt(t, n) {
			return false
		}
	}
	return true
}

// switchOf reads members as a switch, or returns nil when they are not
// all of its shape.
func switchOf(members []*quickSchema) *quickSwitch {
	if len(members) < 2 {
		return nil
	}
	var w quickSwitch
	for i, m := range members {
		key, value, ok := caseOf(m)
		if !ok || (i > 0 && key != w.key) {
			return nil
		}
		w.key = key
		w.cases = append(w.cases, switchCase{value: value, then: m.thenS})
	}
	return &w
}

// caseOf reads {"if": {"properties": {K: {"const": V}}, "required": [K]},
// "then": T}: its key and constant.
func caseOf(m *quickSchema) (key, value string, ok bool) {
	if !m.bare(true) || m.ifS == nil || m.elseS != nil {
		return "", "", false
	}
	cond := m.ifS
	if !cond.bare(false) || cond.enum != nil || cond.ifS != nil || cond.thenS != nil || cond.elseS != nil ||
		len(cond.props) != 1 || len(cond.required) != 1 || cond.required[0] != cond.props[0].name {
		return "", "", false
	}
	c := cond.props[0].schema
	if !c.bare(false) || len(c.props) != 0 || len(c.required) != 0 || c.ifS != nil || c.thenS != nil || c.elseS != nil || len(c.enum) != 1 {
		return "", "", false
	}
	value, ok = c.enum[0].(string)
	return cond.props[0].name, value, ok
}

// bare reports whether s has no keyword but if/then/else and, unless
// conditional, required, properties and enum.
func (s *quickSchema) bare(conditional bool) bool {
	plain := s.kinds == 0 && s.items == nil && len(s.allOf) == 0 && s.minLength < 0 && s.minimum == nil && s.pattern == nil
	if conditional {
		return plain && s.enum == nil && len(s.props) == 0 && len(s.required) == 0
	}
	return plain
}
