package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"

	"github.com/pisess/pisess/schema"
)

// schemaBase is the URL the embedded schema files are registered under. It
// never leaves the process: the compiler has no loader for its scheme, so a
// reference that is not embedded fails at compile time instead of fetching.
const schemaBase = "pisess:///schema/"

// Schemas checks single lines against the embedded JSON Schemas. Every
// schema is compiled once by CompileSchemas; a Schemas is read-only
// afterwards and safe for concurrent use by several goroutines.
type Schemas struct {
	header   check
	versions [4]*versionSchemas // indexed by file version 1..3
	omp      *ompSchemas        // the oh-my-pi dialect (omp.go)
	keys     *session.Keys      // every key the schemas and session.Entry.Read look at (quickCompiler.number)
}

// versionSchemas are the checks for one file version. Each check covers
// the whole line (entry base + type fields [+ role]), so one validation
// reports every problem of the line with absolute pointers.
type versionSchemas struct {
	untyped check            // entry base only: type missing or not a string
	entries map[string]check // entry type (except message) -> check
	message check            // message entry whose role cannot be dispatched
	roles   map[string]check // message role -> check of the whole entry
	legal   []string         // the roles legal in this version, in the spec's order
}

// check is one schema compiled twice: quick answers "valid?" without
// allocating; full (jsonschema) explains a line that quick rejects.
type check struct {
	quick *quickSchema
	full  *lazySchema
}

// lazySchema is a jsonschema schema compiled when it is first needed:
// most runs never explain a line, and compiling them all up front cost
// more than validating a few megabytes (24 ms, 7 MB of garbage).
type lazySchema struct {
	url string
	get func() (*jsonschema.Schema, error) // compiles it, once
}

// validate validates v with the full schema, its numbers tamed
// (tameNumber: jsonschema would take seconds over a long one, and panic
// on a huge exponent).
func (l *lazySchema) validate(v any) error {
	s, err := l.get()
	if err != nil {
		return fmt.Errorf("compiling %s: %w", l.url, err)
	}
	tamed, _ := tameNumbers(v)
	return s.Validate(tamed)
}

// CompileSchemas compiles every embedded schema, for file versions 1 to 3.
func CompileSchemas() (*Schemas, error) {
	c, err := newCheckCompiler()
	if err != nil {
		return nil, err
	}
	s := &Schemas{}
	if s.header, err = c.compile("header.json", ""); err != nil {
		return nil, fmt.Errorf("compile header schema: %w", err)
	}
	for version := 1; version <= 3; version++ {
		if s.versions[version], err = c.compileVersion(version); err != nil {
			return nil, fmt.Errorf("compile version-%d schemas: %w", version, err)
		}
	}
	if s.omp, err = c.compileOmp(); err != nil {
		return nil, fmt.Errorf("compile omp schemas: %w", err)
	}
	c.quick.flattenAll()
	s.keys = c.quick.number(session.EntryKeys())
	return s, nil
}

// checkCompiler feeds the embedded files to both compilers.
type checkCompiler struct {
	full  *jsonschema.Compiler
	mu    *sync.Mutex // full is not safe for concurrent use, and compiles later
	quick *quickCompiler
}

// newCheckCompiler returns a compiler holding the embedded files: draft
// 2020-12, no loader, so nothing is ever fetched.
func newCheckCompiler() (*checkCompiler, error) {
	c := &checkCompiler{full: jsonschema.NewCompiler(), mu: new(sync.Mutex), quick: newQuickCompiler()}
	c.full.Draft = jsonschema.Draft2020
	c.full.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s is not embedded (no network access)", u)
	}
	for _, name := range schema.Names() {
		src, err := fs.ReadFile(schema.FS(), name+".json")
		if err != nil {
			return nil, err
		}
		if err := c.add(name+".json", src); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// add registers one schema document under a file name.
func (c *checkCompiler) add(file string, src []byte) error {
	if err := c.full.AddResource(schemaBase+file, bytes.NewReader(src)); err != nil {
		return fmt.Errorf("schema %s: %w", file, err)
	}
	return c.quick.add(file, src)
}

// compile compiles the schema at pointer ptr ("" = root) of file: the
// quick check now, jsonschema's when a line first needs it.
func (c *checkCompiler) compile(file, ptr string) (check, error) {
	u := schemaBase + file
	if ptr != "" {
		u += "#" + ptr
	}
	quick, err := c.quick.compile(file, ptr)
	if err != nil {
		return check{}, fmt.Errorf("quick check: %w", err)
	}
	full, mu := c.full, c.mu // not c, which holds the quick compiler
	get := sync.OnceValues(func() (*jsonschema.Schema, error) {
		mu.Lock()
		defer mu.Unlock()
		return full.Compile(u)
	})
	return check{quick: quick, full: &lazySchema{url: u, get: get}}, nil
}

// compileVersion compiles the entry checks of one file version. Version 1
// has no id/parentId and stores compaction.firstKeptEntryIndex: it uses the
// $defs/v1 variant of each entry schema. Versions 1 and 2 also accept the
// hookMessage role.
func (c *checkCompiler) compileVersion(version int) (*versionSchemas, error) {
	base, variant := "entry-base.json", ""
	if version == 1 {
		variant = "/$defs/v1"
	}
	vs := &versionSchemas{
		entries: make(map[string]check, len(session.PiEntryTypes())),
		roles:   make(map[string]check, len(session.MessageRoles())+1),
	}
	var err error
	if vs.untyped, err = c.compile(base, variant); err != nil {
		return nil, err
	}
	for _, t := range session.PiEntryTypes() {
		if t == "message" {
			continue
		}
		if vs.entries[t], err = c.compile("entry-"+t+".json", variant); err != nil {
			return nil, err
		}
	}
	baseRef := base
	if variant != "" {
		baseRef += "#" + variant
	}
	if vs.message, err = c.compileGlue(version, "", baseRef); err != nil {
		return nil, err
	}
	all := session.MessageRoles()
	roles := all[:]
	if version < 3 {
		roles = append(roles, session.LegacyCustomRole)
	}
	vs.legal = roles
	for _, r := range roles {
		if vs.roles[r], err = c.compileGlue(version, r, baseRef); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// compileGlue compiles the check of a whole message entry: the entry base of
// the version, the message entry's own fields and, when role is set, that
// role's schema applied to /message. The glue is registered beside the
// embedded files so that its relative references resolve.
func (c *checkCompiler) compileGlue(version int, role, baseRef string) (check, error) {
	parts := []any{
		map[string]any{"$ref": baseRef},
		map[string]any{"$ref": "entry-message.json#/$defs/fields"},
	}
	if role != "" {
		parts = append(parts, map[string]any{
			"properties": map[string]any{"message": map[string]any{"$ref": "role-" + role + ".json"}},
		})
	}
	doc, err := json.Marshal(map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"allOf":   parts,
	})
	if err != nil {
		return check{}, err
	}
	file := fmt.Sprintf("check-v%d-message.json", version)
	if role != "" {
		file = fmt.Sprintf("check-v%d-message-%s.json", version, role)
	}
	if err := c.add(file, doc); err != nil {
		return check{}, err
	}
	return c.compile(file, "")
}

// pick is what picks a record's check: its type, and a message's role.
type pick struct {
	typ     string
	typed   bool // type is a string
	role    string
	hasRole bool // message.role is a string
}

// pickOf reads the pick of the record on tape t.
func pickOf(t *session.Tape) pick {
	var p pick
	p.typ, p.typed = t.Str(t.Get(0, "type"))
	if p.typ == "message" {
		p.role, p.hasRole = t.Str(t.Get(t.Get(0, "message"), "role"))
	}
	return p
}

// pickOfEntry is pickOf for an entry e read off tape t already: its type
// and role are e's, looked up again only when e holds "" (absent, not a
// string, or the string "").
func pickOfEntry(t *session.Tape, e *session.Entry) pick {
	p := pick{typ: e.Type, typed: e.Type != ""}
	if !p.typed {
		_, p.typed = t.Str(t.Get(0, "type"))
	}
	if p.typ == "message" {
		p.role, p.hasRole = e.Message.Role, e.Message.Role != ""
		if !p.hasRole {
			_, p.hasRole = t.Str(t.Get(t.Get(0, "message"), "role"))
		}
	}
	return p
}

// checkTape checks the record on tape t with c, plus extra findings no
// schema makes: a valid record, the common case, is cleared on the tape
// without being decoded. Only a record the quick check rejects is decoded,
// for jsonschema to explain; its strings share the line's bytes (a
// rejected 200 MB image costs no second copy), and the findings keep none
// of them.
func (c check) checkTape(line int, t *session.Tape, extra []finding.Finding) []finding.Finding {
	if len(extra) == 0 && c.quick.validAt(t, 0) {
		return nil
	}
	v, _ := session.Decode(t.Raw(0), true)
	for i := range extra {
		extra[i].Line = line
	}
	fs := report(c, line, v, entryIDOf(t), extra)
	for i := range fs { // report copies what it keeps; this makes sure
		fs[i].Pointer, fs[i].Message = strings.Clone(fs[i].Pointer), strings.Clone(fs[i].Message)
	}
	return fs
}

// entryIDOf is the entry id the findings of the record on tape t name:
// none for the header and omp's title slot, which are no entries.
func entryIDOf(t *session.Tape) string {
	if typ := t.StrOf(0, "type"); typ == "session" || typ == "title" {
		return ""
	}
	return t.StrOf(0, "id")
}

// checkOf picks the check for a record by its pick p, plus findings
// that no schema can make (a role illegal in this version); ok is false
// when the record is not ours to check.
func (s *Schemas) checkOf(version int, p pick) (c check, extra []finding.Finding, ok bool) {
	if version < 1 || version > 3 {
		return check{}, nil, false
	}
	vs := s.versions[version]
	switch {
	case p.typ == "session":
		return s.header, nil, true
	case !p.typed:
		return vs.untyped, nil, true
	case p.typ == "message":
		c, extra := vs.messageCheck(version, p)
		return c, extra, true
	}
	c, ok = vs.entries[p.typ]
	return c, nil, ok
}

// messageCheck picks the check of a message entry by its role. A role
// that is not legal in the file's version gets a finding of its own and
// the rest of the entry is checked without role-specific rules.
func (vs *versionSchemas) messageCheck(version int, p pick) (check, []finding.Finding) {
	if !p.hasRole {
		return vs.message, nil // the schema reports a message that is no object, or its role
	}
	if c, ok := vs.roles[p.role]; ok {
		return c, nil
	}
	return vs.message, []finding.Finding{vs.roleFinding(version, p.role)}
}

// roleFinding is the finding of a message role that is not legal in the
// file's version.
func (vs *versionSchemas) roleFinding(version int, role string) finding.Finding {
	text := fmt.Sprintf("unknown message role %s (expected one of %s)", quoteValue(role), strings.Join(vs.legal, ", "))
	if role == session.LegacyCustomRole {
		text = fmt.Sprintf("role %q is the version-2 name of \"custom\"; a version-%d file must use \"custom\"", role, version)
	}
	return finding.Errorf(finding.Schema, 0, "%s", text).WithPointer("/message/role")
}

// report validates v, a record the quick check rejected or one with
// extra findings, with jsonschema (c.full), and turns the violations, plus
// extra, into findings sorted by pointer.
func report(c check, line int, v map[string]any, entryID string, extra []finding.Finding) []finding.Finding {
	err := c.full.validate(v)
	if err == nil && len(extra) == 0 {
		return nil
	}
	out := extra
	var ve *jsonschema.ValidationError
	switch {
	case err == nil:
	case errors.As(err, &ve):
		out = appendViolations(out, ve, line, v)
	default: // a value encoding/json cannot produce; report rather than drop
		out = append(out, finding.Errorf(finding.Schema, line, "cannot validate: %v", err))
	}
	out = dedupe(out)
	for i := range out {
		out[i] = out[i].WithEntry(entryID)
	}
	return out
}

// appendViolations appends one finding per leaf of the error tree: the
// leaves are the failed keywords; inner nodes only say "allOf failed".
func appendViolations(out []finding.Finding, ve *jsonschema.ValidationError, line int, v map[string]any) []finding.Finding {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			out = appendViolations(out, c, line, v)
		}
		return out
	}
	ptr := instancePointer(ve.InstanceLocation)
	keyword := ve.KeywordLocation[strings.LastIndexByte(ve.KeywordLocation, '/')+1:]
	if keyword == "required" {
		why := ""
		if strings.HasSuffix(ve.AbsoluteKeywordLocation, "entry-compaction.json#/$defs/fields/else/required") {
			why = " (a compaction without retainedTail needs it)"
		}
		for _, key := range missingKeys(ve.Message) {
			out = append(out, finding.Errorf(finding.Schema, line, "required key %q is missing%s", key, why).
				WithPointer(ptr+"/"+escapeToken(key)))
		}
		return out
	}
	return append(out, finding.Errorf(finding.Schema, line, "%s", explain(ve, keyword, ptr, v)).WithPointer(ptr))
}

// explain turns a leaf error into a message that says what was expected
// and, for a wrong value, what was found.
func explain(ve *jsonschema.ValidationError, keyword, ptr string, v map[string]any) string {
	got, found := resolve(v, ptr)
	switch keyword {
	case "type":
		if got == nil && found && strings.HasSuffix(ve.AbsoluteKeywordLocation, "/$defs/toolCall/properties/arguments/type") {
			return "toolCall arguments is null, expected an object (a truncated tool call; pi's own /tree crashes on it)"
		}
		return strings.Replace(ve.Message, ", but got ", ", got ", 1)
	case "const", "enum", "pattern":
		if found {
			return fmt.Sprintf("%s, got %s", ve.Message, quoteValue(got))
		}
	case "minLength":
		return "must not be empty"
	case "minimum":
		if n, ok := got.(json.Number); ok && tameNumber(string(n)) != string(n) {
			bound, _, _ := strings.Cut(ve.Message, " but found ")
			return fmt.Sprintf("%s, got %s", bound, quoteValue(got)) // jsonschema saw it tamed
		}
	}
	return ve.Message
}

// missingKeys parses the keys out of jsonschema's "missing properties:
// 'a', 'b'" message (our schemas only require plain identifiers).
func missingKeys(msg string) []string {
	_, list, ok := strings.Cut(msg, ": ")
	if !ok {
		return []string{msg}
	}
	keys := strings.Split(list, ", ")
	for i, k := range keys {
		keys[i] = strings.Trim(k, "'")
	}
	return keys
}

// instancePointer turns jsonschema's instance location, whose tokens are
// percent-encoded, into a plain RFC 6901 pointer.
func instancePointer(loc string) string {
	if p, err := url.PathUnescape(loc); err == nil {
		return p
	}
	return loc
}

// escapeToken escapes one RFC 6901 reference token.
func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// resolve returns the value at ptr, an RFC 6901 pointer, in v.
func resolve(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// quoteMax is the most bytes of a found value a message quotes.
const quoteMax = 60

// quoteValue renders a found value for a message, shortened.
func quoteValue(v any) string {
	if s, ok := v.(string); ok && len(s) > 2*quoteMax {
		v = s[:2*quoteMax] // enough for what is shown, without quoting all of a long one
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	n := quoteMax
	if len(b) <= n {
		return string(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) { // never cut a character in two
		n--
	}
	return string(b[:n]) + "…"
}

// dedupe sorts findings by pointer (array indexes numerically) and message,
// and drops repeats (two schemas of one check may reject the same value).
func dedupe(fs []finding.Finding) []finding.Finding {
	slices.SortStableFunc(fs, func(a, b finding.Finding) int {
		if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.CompactFunc(fs, func(a, b finding.Finding) bool { return a.Pointer == b.Pointer && a.Message == b.Message })
}

// comparePointers orders pointers token by token, numbers numerically.
func comparePointers(a, b string) int {
	ta, tb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if ta[i] == tb[i] {
			continue
		}
		na, errA := strconv.Atoi(ta[i])
		nb, errB := strconv.Atoi(tb[i])
		if errA == nil && errB == nil {
			return na - nb
		}
		return strings.Compare(ta[i], tb[i])
	}
	return len(ta) - len(tb)
}
