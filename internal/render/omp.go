package render

import (
	"strconv"
	"strings"

	"github.com/pisess/pisess/internal/parse"
	"github.com/pisess/pisess/internal/project"
)

// The entries of oh-my-pi files (docs/omp.md): omp's model_change form and
// its own entry types, described for the views like pi's.

// ompKinds are the kinds the views give omp's own entry types.
var ompKinds = map[string]string{
	"model_usage":         "model usage",
	"service_tier_change": "service tier",
	"title_change":        "title",
	"ttsr_injection":      "rules injected",
	"session_init":        "session init",
	"mode_change":         "mode",
	"credential_pin":      "credential pin",
	"reset_boundary":      "reset (/clear)",
}

// ompKind is the kind of an omp entry type; ok is false for other types.
func ompKind(typ string) (kind string, ok bool) {
	kind, ok = ompKinds[typ]
	return kind, ok
}

// ompModelChange describes omp's model_change: model "provider/id" and the
// role it is for (default when absent); ok is false for pi's form.
func ompModelChange(r *project.Record) (entryView, bool) {
	t := &r.Tape
	model, ok := t.Str(r.Member("model"))
	if !ok || r.Member("modelId") >= 0 {
		return entryView{}, false
	}
	d := entryView{kind: "model", detail: "→ " + model}
	if role := t.StrOf(0, "role"); role != "" && role != "default" {
		d.detail += " (" + role + ")"
	}
	return d, true
}

// describeOmp describes an entry of one of omp's own types; ok is false
// for other types.
func describeOmp(r *project.Record, limit int) (entryView, bool) {
	kind, ok := ompKind(r.Entry.Type())
	if !ok {
		return entryView{}, false
	}
	t := &r.Tape
	str := func(key string) string { return t.StrOf(0, key) }
	d := entryView{kind: kind}
	switch r.Entry.Type() {
	case "model_usage":
		u := describeUsage(r)
		d.detail, d.text = joinWords(str("purpose"), u.detail), u.text
		if t.StrOf(0, "stopReason") == "error" {
			d.failed = true
		}
	case "title_change":
		d.detail, d.text = str("source"), wordsUpTo(str("title"), limit)
	case "ttsr_injection":
		var rules []string
		for el := range t.Elements(r.Member("injectedRules")) {
			if s, ok := t.Str(el); ok {
				rules = append(rules, s)
			}
		}
		d.text = wordsUpTo(strings.Join(rules, ", "), limit)
	case "session_init":
		d.detail, d.text = str("agent"), wordsUpTo(str("task"), limit)
	case "mode_change":
		d.detail = "→ " + str("mode")
	case "credential_pin":
		d.detail = str("provider")
	case "service_tier_change":
		if t.Kind(r.Member("serviceTier")) == parse.KindNull {
			d.detail = "→ default"
		} else {
			var tiers []string
			for k, v := range t.Members(r.Member("serviceTier")) {
				key, _ := t.Str(k)
				value, ok := t.Str(v)
				if !ok {
					value = string(t.Raw(v))
				}
				tiers = append(tiers, key+" "+value)
			}
			d.detail = "→ " + strings.Join(tiers, ", ")
		}
	}
	return d, true
}

// modelsCell shows omp's models per role after the default, or nothing.
func modelsCell(s project.Settings, st Style) []cell {
	var roles []string
	for _, m := range s.Models {
		if m.Role != "default" {
			roles = append(roles, m.Role+" "+s.ModelNames()[m.Role])
		}
	}
	if len(roles) == 0 {
		return nil
	}
	return []cell{{text: "  (" + Safe(strings.Join(roles, ", ")) + ")", paint: st.Dim}}
}

// resetNote describes the /clear an omp context starts after.
func resetNote(c *project.Context) string {
	if c.Reset == nil {
		return ""
	}
	left := len(c.Path) - len(c.Entries)
	return "after /clear " + shortID(c.Reset.ID()) + " (line " + strconv.Itoa(c.Reset.Line) + "): " +
		Plural(left, "earlier entry", "earlier entries") + " left out"
}
