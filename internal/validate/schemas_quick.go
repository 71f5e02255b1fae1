package validate

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/session"
)

// quickSchema is one of our JSON Schemas compiled for a yes/no answer:
// is the value valid? It walks a line's tape without decoding or
// allocating, which jsonschema cannot do (it builds bookkeeping maps for
// every object at every schema it applies). CheckTape asks it first and
// lets jsonschema, the authority on messages and pointers, explain only
// the lines it rejects.
//
// It understands exactly the keywords our schemas use and refuses to
// compile any other, so a schema edit can never be silently ignored; the
// tests compare its verdict with jsonschema's on valid, broken and mutated
// lines.
type quickSchema struct {
	kinds     kindSet // allowed JSON types; 0 = any
	enum      []any   // const or enum values (scalars); nil = no constraint
	required  []string
	props     []quickProp
	items     *quickSchema
	allOf     []*quickSchema // allOf members and $ref targets
	ifS       *quickSchema
	thenS     *quickSchema
	elseS     *quickSchema
	minLength int // -1 = none
	minimum   *big.Rat
	pattern   *regexp.Regexp
	keys      map[string]keyRule // props and required by name
	names     []string           // the names in keys, sorted
	rules     []keyRule          // their rules
	vocab     *session.Keys      // the schemas' keys (number), which byNumber is by
	byNumber  []uint8            // by a key's number in vocab: 1 + its index in names; 0 is none
	requires  uint64             // the bits of every required key in keys
	cases     *quickSwitch       // allOf read as a switch on one key, for objects (switch.go)
	flat      *quickSchema       // all of s's rules in one key table, for objects (flat.go)
	kindOnly  bool               // s asks nothing but kinds: validAt is kinds.admitsAt
}

// keyRule is what s says about one key of an object: its property
// schema (or nil) and its bit among the properties (or 0), and its bit
// among the required keys (or 0).
type keyRule struct {
	schema *quickSchema
	prop   uint64
	bit    uint64
}

// index builds keys from props and required, once they are compiled.
func (s *quickSchema) index() {
	if len(s.props) == 0 && len(s.required) == 0 {
		return
	}
	s.keys = make(map[string]keyRule, len(s.props)+len(s.required))
	for i, p := range s.props {
		s.keys[p.name] = keyRule{schema: p.schema, prop: 1 << i}
	}
	for i, k := range s.required {
		r := s.keys[k]
		r.bit = 1 << i
		s.keys[k] = r
		s.requires |= r.bit
	}
	s.names = slices.Sorted(maps.Keys(s.keys))
	for _, k := range s.names {
		s.rules = append(s.rules, s.keys[k])
	}
}

// number gives every schema compiled so far, and the flat ones made of
// them, its key table by number in one set of keys: base's keys, then
// every key a schema names, which it returns. A Tape built with that set
// names each member's key once as it is built, and every schema it meets
// finds its rule for the key by that number (a tape built without the set
// is read the same, each key looked up by its bytes).
func (c *quickCompiler) number(base *session.Keys) *session.Keys {
	var all []*quickSchema
	seen := map[*quickSchema]bool{}
	for _, key := range slices.Sorted(maps.Keys(c.nodes)) {
		all = reachable(c.nodes[key], seen, all)
	}
	var names []string
	for _, s := range all {
		names = append(names, s.names...)
		if s.cases != nil {
			names = append(names, s.cases.key)
		}
	}
	keys := session.NewKeys(base, names...)
	for _, s := range all {
		s.vocab = keys
		if len(s.names) > 0 {
			s.byNumber = make([]uint8, keys.Len()+1)
			for i, name := range s.names {
				s.byNumber[keys.Number(name)] = uint8(i + 1)
			}
		}
		if s.cases != nil {
			s.cases.vocab, s.cases.number = keys, keys.Number(s.cases.key)
		}
	}
	return keys
}

// reachable appends s and every schema it leads to that seen does not
// hold yet.
func reachable(s *quickSchema, seen map[*quickSchema]bool, all []*quickSchema) []*quickSchema {
	if s == nil || seen[s] {
		return all
	}
	seen[s] = true
	all = append(all, s)
	for _, p := range s.props {
		all = reachable(p.schema, seen, all)
	}
	for _, a := range s.allOf {
		all = reachable(a, seen, all)
	}
	if s.cases != nil {
		for _, c := range s.cases.cases {
			all = reachable(c.then, seen, all)
		}
	}
	for _, sub := range []*quickSchema{s.items, s.ifS, s.thenS, s.elseS, s.flat} {
		all = reachable(sub, seen, all)
	}
	return all
}

type quickProp struct {
	name   string
	schema *quickSchema
}

// kindSet is a set of JSON types.
type kindSet uint8

const (
	kindNull kindSet = 1 << iota
	kindBoolean
	kindNumber
	kindInteger // a number with no fraction
	kindString
	kindArray
	kindObject
)

var kindNames = map[string]kindSet{
	"null": kindNull, "boolean": kindBoolean, "number": kindNumber, "integer": kindInteger,
	"string": kindString, "array": kindArray, "object": kindObject,
}

// annotations are keywords that do not affect validity.
var annotations = map[string]bool{
	"$schema": true, "$comment": true, "$defs": true, "title": true, "description": true,
	"examples": true, "default": true,
}

// validAt reports whether the value at node n of tape t satisfies s: the
// same verdict as valid (the tests' reference) on the decoded value,
// without decoding it.
func (s *quickSchema) validAt(t *session.Tape, n int) bool {
	if s.kindOnly { // most property schemas: {"type": "string"}
		return s.kinds.admitsAt(t, n)
	}
	if s.flat != nil && t.Kind(n) == session.KindObject {
		return s.flatValidAt(t, n)
	}
	if s.kinds != 0 && !s.kinds.admitsAt(t, n) {
		return false
	}
	if s.enum != nil && !inEnumAt(t, n, s.enum) {
		return false
	}
	switch t.Kind(n) {
	case session.KindObject:
		if s.keys != nil && !s.objectValidAt(t, n) {
			return false
		}
	case session.KindArray:
		if s.items != nil {
			for e := n + 1; e < t.Skip(n); e = t.Skip(e) {
				if !s.items.validAt(t, e) {
					return false
				}
			}
		}
	case session.KindString:
		if s.minLength > 0 || s.pattern != nil {
			if !s.validString(t, n) {
				return false
			}
		}
	case session.KindNumber:
		if s.minimum != nil {
			r, ok := ratOf(json.Number(t.Text(n)))
			if !ok || r.Cmp(s.minimum) < 0 {
				return false
			}
		}
	}
	if s.cases != nil && t.Kind(n) == session.KindObject {
		if !s.cases.validAt(t, n) {
			return false
		}
	} else {
		for _, a := range s.allOf {
			if !a.validAt(t, n) {
				return false
			}
		}
	}
	if s.ifS != nil {
		switch {
		case s.ifS.validAt(t, n):
			return s.thenS == nil || s.thenS.validAt(t, n)
		case s.elseS != nil:
			return s.elseS.validAt(t, n)
		}
	}
	return true
}

// objectValidAt checks required and properties on object node n in one
// pass over its members. Every member with a property schema is checked;
// the verdict of the last member with a key, the one a decoder keeps,
// counts (bad holds a bit per property whose last member so far failed).
func (s *quickSchema) objectValidAt(t *session.Tape, n int) bool {
	var seen, bad uint64
	for k, end := n+1, t.Skip(n); k < end; k = t.Skip(k + 1) {
		i := s.byNumber[t.KeyNumber(s.vocab, k)] // what rule(t, k) returns, inlined
		if i == 0 {
			continue
		}
		rule := &s.rules[i-1]
		seen |= rule.bit
		switch {
		case rule.schema == nil:
		case rule.schema.validAt(t, k+1):
			bad &^= rule.prop
		default:
			bad |= rule.prop
		}
	}
	return bad == 0 && seen == s.requires
}

// validString checks minLength and pattern on string node n.
func (s *quickSchema) validString(t *session.Tape, n int) bool {
	x, _ := t.Str(n)
	if s.minLength > 0 && utf8.RuneCountInString(x) < s.minLength {
		return false
	}
	return s.pattern == nil || s.pattern.MatchString(x)
}

// admitsAt is admits for node n of tape t.
func (k kindSet) admitsAt(t *session.Tape, n int) bool {
	switch t.Kind(n) {
	case session.KindNull:
		return k&kindNull != 0
	case session.KindTrue, session.KindFalse:
		return k&kindBoolean != 0
	case session.KindString:
		return k&kindString != 0
	case session.KindArray:
		return k&kindArray != 0
	case session.KindObject:
		return k&kindObject != 0
	case session.KindNumber:
		if k&kindNumber != 0 {
			return true
		}
		if k&kindInteger == 0 {
			return false
		}
		return integerLiteral(t.Text(n))
	}
	return false
}

// integerLiteral reports whether a JSON number is an integer, as
// ratOf(...).IsInt() does, without big.Rat for plain integers.
func integerLiteral(lit []byte) bool {
	for _, c := range lit {
		if c == '.' || c == 'e' || c == 'E' {
			r, ok := ratOf(json.Number(lit))
			return ok && r.IsInt()
		}
	}
	return true
}

// inEnumAt is inEnum for node n of tape t.
func inEnumAt(t *session.Tape, n int, values []any) bool {
	switch t.Kind(n) {
	case session.KindString:
		x, _ := t.Str(n)
		for _, e := range values {
			if s, ok := e.(string); ok && s == x {
				return true
			}
		}
		return false
	case session.KindNumber:
		return inEnum(json.Number(t.Text(n)), values)
	case session.KindTrue:
		return inEnum(true, values)
	case session.KindFalse:
		return inEnum(false, values)
	case session.KindNull:
		return inEnum(nil, values)
	}
	return false // objects and arrays are never in our scalar enums
}

// ratOf reads a number (a json.Number) as jsonschema does, tamed as
// jsonschema gets it (tameNumber).
func ratOf(v any) (*big.Rat, bool) {
	if x, ok := v.(json.Number); ok {
		return new(big.Rat).SetString(tameNumber(string(x)))
	}
	return nil, false
}

// inEnum reports whether v equals one of the scalar values.
func inEnum(v any, values []any) bool {
	for _, e := range values {
		switch x := v.(type) {
		case json.Number:
			a, okA := ratOf(x)
			b, okB := ratOf(e)
			if okA && okB && a.Cmp(b) == 0 {
				return true
			}
		case string, bool, nil:
			if v == e {
				return true
			}
		}
	}
	return false
}

// quickCompiler compiles schema documents into quickSchemas. Nodes are
// cached by location, so shared definitions are compiled once and a
// reference cycle cannot recurse forever.
type quickCompiler struct {
	docs  map[string]any          // file name -> document decoded with UseNumber
	nodes map[string]*quickSchema // "file#pointer" -> node
}

func newQuickCompiler() *quickCompiler {
	return &quickCompiler{docs: map[string]any{}, nodes: map[string]*quickSchema{}}
}

// add registers a document under a file name.
func (c *quickCompiler) add(file string, src []byte) error {
	doc, err := session.Decode(src, false)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	c.docs[file] = doc
	return nil
}

// compile returns the node at pointer ptr (RFC 6901, "" = root) of file.
func (c *quickCompiler) compile(file, ptr string) (*quickSchema, error) {
	key := file + "#" + ptr
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	doc, ok := c.docs[file]
	if !ok {
		return nil, fmt.Errorf("quick check: schema %s is not embedded", file)
	}
	sub, ok := resolve(doc, ptr)
	if !ok {
		return nil, fmt.Errorf("quick check: %s has nothing at #%s", file, ptr)
	}
	m, ok := sub.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s#%s: schema is a %T, want an object", file, ptr, sub)
	}
	n := &quickSchema{minLength: -1}
	c.nodes[key] = n
	for _, k := range sortedKeys(m) {
		if err := c.keyword(n, file, ptr, k, m[k]); err != nil {
			return nil, fmt.Errorf("%s#%s: %s: %w", file, ptr, k, err)
		}
	}
	n.index()
	n.cases = switchOf(n.allOf)
	n.kindOnly = n.kinds != 0 && n.enum == nil && len(n.props) == 0 && len(n.required) == 0 && n.items == nil &&
		len(n.allOf) == 0 && n.ifS == nil && n.thenS == nil && n.elseS == nil && n.minLength < 0 && n.minimum == nil && n.pattern == nil
	return n, nil
}

// keyword compiles one keyword into n.
func (c *quickCompiler) keyword(n *quickSchema, file, ptr, k string, val any) error {
	child := func(sub string) (*quickSchema, error) { return c.compile(file, ptr+"/"+sub) }
	var err error
	switch k {
	case "type":
		n.kinds, err = kindsOf(val)
	case "const":
		n.enum, err = scalars([]any{val})
	case "enum":
		list, ok := val.([]any)
		if !ok || len(list) == 0 {
			return fmt.Errorf("want a non-empty array")
		}
		n.enum, err = scalars(list)
	case "required":
		if n.required, err = stringsOf(val); len(n.required) > 64 {
			return fmt.Errorf("more than 64 keys: not supported by the quick check (teach schemas_quick.go)")
		}
	case "properties":
		props, ok := val.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object")
		}
		if len(props) > 64 {
			return fmt.Errorf("more than 64 properties: not supported by the quick check (teach schemas_quick.go)")
		}
		for _, name := range sortedKeys(props) {
			sch, err := child("properties/" + escapeToken(name))
			if err != nil {
				return err
			}
			n.props = append(n.props, quickProp{name, sch})
		}
	case "items":
		n.items, err = child("items")
	case "allOf":
		list, ok := val.([]any)
		if !ok {
			return fmt.Errorf("want an array")
		}
		for i := range list {
			sch, err := child(fmt.Sprintf("allOf/%d", i))
			if err != nil {
				return err
			}
			n.allOf = append(n.allOf, sch)
		}
	case "if":
		n.ifS, err = child("if")
	case "then":
		n.thenS, err = child("then")
	case "else":
		n.elseS, err = child("else")
	case "$ref":
		var target *quickSchema
		target, err = c.ref(file, val)
		n.allOf = append(n.allOf, target)
	case "minLength":
		r, ok := ratOf(val)
		if !ok || !r.IsInt() {
			return fmt.Errorf("want an integer")
		}
		n.minLength = int(r.Num().Int64())
	case "minimum":
		if n.minimum, err = numberOf(val); err == nil && n.minimum.Sign() != 0 {
			return fmt.Errorf("only minimum 0 is supported (tameNumber keeps a number's sign, not its size)")
		}
	case "pattern":
		p, ok := val.(string)
		if !ok {
			return fmt.Errorf("want a string")
		}
		n.pattern, err = regexp.Compile(p)
	default:
		if !annotations[k] {
			return fmt.Errorf("keyword not supported by the quick check (teach schemas_quick.go)")
		}
	}
	return err
}

// ref resolves a reference ("other.json#/ptr", "#/ptr", "other.json")
// relative to file.
func (c *quickCompiler) ref(file string, val any) (*quickSchema, error) {
	ref, ok := val.(string)
	if !ok {
		return nil, fmt.Errorf("want a string")
	}
	target, frag, _ := strings.Cut(ref, "#")
	if target == "" {
		target = file
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("%q: only JSON Pointer fragments are supported", ref)
	}
	return c.compile(target, frag)
}

func kindsOf(val any) (kindSet, error) {
	names, ok := val.([]any)
	if !ok {
		names = []any{val}
	}
	var set kindSet
	for _, name := range names {
		s, _ := name.(string)
		k, ok := kindNames[s]
		if !ok {
			return 0, fmt.Errorf("unknown type %v", name)
		}
		set |= k
	}
	return set, nil
}

func scalars(list []any) ([]any, error) {
	for _, v := range list {
		switch x := v.(type) {
		case string, bool, nil:
		case json.Number:
			if tameNumber(string(x)) != string(x) {
				return nil, fmt.Errorf("number %s is too long for tameNumber", x)
			}
		default:
			return nil, fmt.Errorf("only scalar values are supported, got %T", v)
		}
	}
	return list, nil
}

func stringsOf(val any) ([]string, error) {
	list, ok := val.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of strings")
	}
	out := make([]string, len(list))
	for i, v := range list {
		if out[i], ok = v.(string); !ok {
			return nil, fmt.Errorf("want an array of strings")
		}
	}
	return out, nil
}

func numberOf(val any) (*big.Rat, error) {
	r, ok := ratOf(val)
	if !ok {
		return nil, fmt.Errorf("want a number")
	}
	return r, nil
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
