package validate

import (
	"maps"
	"slices"

	"github.com/pisess/pisess/internal/session"
)

// Flattening: an entry's check is an allOf of the entry base, the type's
// fields and the role's schema, each reached through a $ref, and each
// asks only about the keys of an object. Read as written, the quick check
// scans the entry's members once per part, and the message's members once
// for the message fields and again for the role. A flat schema is the
// same rules gathered into one key table: on an object one scan decides,
// a key named by several parts getting an allOf of their rules (itself
// flat when it can be). On anything but an object the schema is read as
// written.
//
// Same verdict: each part's properties are judged on the last member with
// the key, as the flat table judges the allOf of them on that member, and
// a key required by any part is required. Only parts that ask nothing but
// type object (or nothing), required and properties are gathered.

// maxFlatDepth bounds the $ref and allOf chains followed (a cycle gives up).
const maxFlatDepth = 8

// flattenAll makes the flat schemas of every node compiled so far.
func (c *quickCompiler) flattenAll() {
	for _, key := range slices.Sorted(maps.Keys(c.nodes)) {
		if n := c.nodes[key]; len(n.allOf) > 0 && n.cases == nil {
			n.flat = flatOf(n)
		}
	}
}

// flatOf is n's rules as one key table, or nil when n asks more than
// keys of an object.
func flatOf(n *quickSchema) *quickSchema {
	rules := map[string][]*quickSchema{}
	var names, required []string
	var parts []*quickSchema
	if !gather(n, 0, rules, &names, &required, &parts) {
		return nil
	}
	if len(parts) == 1 && parts[0] != n {
		return parts[0] // a $ref, or an allOf of one: its target's table serves
	}
	flat := &quickSchema{minLength: -1, required: required}
	for _, name := range names {
		s := rules[name]
		if len(s) == 1 {
			flat.props = append(flat.props, quickProp{name, s[0]})
			continue
		}
		both := &quickSchema{minLength: -1, allOf: s}
		both.flat = flatOf(both)
		flat.props = append(flat.props, quickProp{name, both})
	}
	if len(flat.props) > 64 || len(flat.required) > 64 {
		return nil
	}
	flat.index()
	return flat
}

// gather adds the rules of s and of its allOf parts, in order, and the
// parts that have keys; false when one of them asks more than keys of an
// object.
func gather(s *quickSchema, depth int, rules map[string][]*quickSchema, names, required *[]string, parts *[]*quickSchema) bool {
	if depth > maxFlatDepth || !s.objectOnly() {
		return false
	}
	if len(s.props) > 0 || len(s.required) > 0 {
		*parts = append(*parts, s)
	}
	for _, p := range s.props {
		if _, seen := rules[p.name]; !seen {
			*names = append(*names, p.name)
		}
		rules[p.name] = append(rules[p.name], p.schema)
	}
	for _, k := range s.required {
		if !slices.Contains(*required, k) {
			*required = append(*required, k)
		}
	}
	for _, a := range s.allOf {
		if !gather(a, depth+1, rules, names, required, parts) {
			return false
		}
	}
	return true
}

// objectOnly reports whether s asks nothing of an object but its keys:
// type object or none, required, properties, allOf.
func (s *quickSchema) objectOnly() bool {
	return (s.kinds == 0 || s.kinds == kindObject) && s.enum == nil && s.items == nil &&
		s.ifS == nil && s.thenS == nil && s.elseS == nil && s.minLength < 0 && s.minimum == nil &&
		s.pattern == nil && s.cases == nil
}

// flatValidAt is validAt for object node n, by the flat table.
func (s *quickSchema) flatValidAt(t *session.Tape, n int) bool {
	return s.flat.keys == nil || s.flat.objectValidAt(t, n)
}
