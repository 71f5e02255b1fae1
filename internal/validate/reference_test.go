package validate

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/pisess/pisess/internal/finding"
)

// The reference the tape path is held to: the schema check of a record
// decoded into a map (encoding/json with UseNumber, or session.Decode), as
// validate ran it before it read tapes. Check must give the findings of
// CheckTape, dispatch the check of dispatchTape, and valid the verdict of
// validAt and of jsonschema.

// Check validates one record of a file of the given version (1, 2 or 3;
// other versions yield nil). v is the record as encoding/json decodes it
// with UseNumber (or session.Decode, which decodes the same way). line is
// the record's physical line; findings never keep references into v.
// It reports what CheckTape reports (see there).
func (s *Schemas) Check(version int, line int, v map[string]any) []finding.Finding {
	c, extra, ok := s.dispatch(version, v)
	if !ok {
		return nil
	}
	entryID := ""
	if typ, _ := v["type"].(string); typ != "session" {
		entryID, _ = v["id"].(string)
	}
	for i := range extra {
		extra[i].Line = line
	}
	if len(extra) == 0 && c.quick.valid(v) {
		return nil
	}
	return report(c, line, v, entryID, extra)
}

// dispatch picks the check for record v, plus findings that no schema can
// make (a role illegal in this version); ok is false when the record is
// not ours to check.
func (s *Schemas) dispatch(version int, v map[string]any) (c check, extra []finding.Finding, ok bool) {
	if version < 1 || version > 3 {
		return check{}, nil, false
	}
	typ, typed := v["type"].(string)
	vs := s.versions[version]
	switch {
	case typ == "session":
		return s.header, nil, true
	case !typed:
		return vs.untyped, nil, true
	case typ == "message":
		c, extra := vs.messageCheckMap(version, v)
		return c, extra, true
	}
	c, ok = vs.entries[typ]
	return c, nil, ok
}

// messageCheckMap picks the check of a message entry by its role.
func (vs *versionSchemas) messageCheckMap(version int, v map[string]any) (check, []finding.Finding) {
	msg, ok := v["message"].(map[string]any)
	if !ok {
		return vs.message, nil
	}
	role, ok := msg["role"].(string)
	if !ok {
		return vs.message, nil // the schema reports a missing or non-string role
	}
	if c, ok := vs.roles[role]; ok {
		return c, nil
	}
	return vs.message, []finding.Finding{vs.roleFinding(version, role)}
}

// valid reports whether v satisfies s.
func (s *quickSchema) valid(v any) bool {
	if s.kinds != 0 && !s.kinds.admits(v) {
		return false
	}
	if s.enum != nil && !inEnum(v, s.enum) {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range s.required {
			if _, ok := x[k]; !ok {
				return false
			}
		}
		for _, p := range s.props {
			if pv, ok := x[p.name]; ok && !p.schema.valid(pv) {
				return false
			}
		}
	case []any:
		if s.items != nil {
			for _, e := range x {
				if !s.items.valid(e) {
					return false
				}
			}
		}
	case string:
		if s.minLength > 0 && utf8.RuneCountInString(x) < s.minLength {
			return false
		}
		if s.pattern != nil && !s.pattern.MatchString(x) {
			return false
		}
	case json.Number:
		if s.minimum != nil {
			r, ok := ratOf(x)
			if !ok || r.Cmp(s.minimum) < 0 {
				return false
			}
		}
	}
	for _, a := range s.allOf {
		if !a.valid(v) {
			return false
		}
	}
	if s.ifS != nil {
		switch {
		case s.ifS.valid(v):
			return s.thenS == nil || s.thenS.valid(v)
		case s.elseS != nil:
			return s.elseS.valid(v)
		}
	}
	return true
}

// admits reports whether v's JSON type is in the set. A value that
// encoding/json with UseNumber cannot produce is admitted by none.
func (k kindSet) admits(v any) bool {
	switch x := v.(type) {
	case nil:
		return k&kindNull != 0
	case bool:
		return k&kindBoolean != 0
	case string:
		return k&kindString != 0
	case []any:
		return k&kindArray != 0
	case map[string]any:
		return k&kindObject != 0
	case json.Number:
		if k&kindNumber != 0 {
			return true
		}
		if k&kindInteger == 0 {
			return false
		}
		r, ok := ratOf(x)
		return ok && r.IsInt()
	}
	return false
}
