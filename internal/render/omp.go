package render

import (
	"strconv"
	"strings"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// The entries of oh-my-pi files (docs/omp.md): omp's model_change form and
// its own entry types, described for the views like pi's.

// ompModel is the detail of omp's model_change: model "provider/id" and
// the role it is for (default when absent); ok is false for pi's form.
func ompModel(r *project.Record) (detail string, ok bool) {
	model, ok := r.Tape.Str(r.Member("model"))
	if !ok || r.Member("modelId") >= 0 {
		return "", false
	}
	detail = "→ " + model
	if role := r.Tape.StrOf(0, "role"); role != "" && role != "default" {
		detail += " (" + role + ")"
	}
	return detail, true
}

// describeOmp fills in d, with its kind set, for an entry of one of omp's
// own types (typeKinds names them); d stays as it is for other types.
func describeOmp(r *project.Record, d entryView, limit int) entryView {
	t := &r.Tape
	str := func(key string) string { return t.StrOf(0, key) }
	switch r.Entry.Type() {
	case "model_usage":
		detail, text := usage(r)
		d.detail, d.text = join(str("purpose"), " ", detail), text
		d.failed = str("stopReason") == "error"
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
		if t.Kind(r.Member("serviceTier")) == session.KindNull {
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
	return d
}

// modelsCell shows omp's models per role after the default, or nothing.
func modelsCell(s project.Settings) []cell {
	var roles []string
	for _, m := range s.Models {
		if m.Role != "default" {
			roles = append(roles, m.Role+" "+s.ModelNames()[m.Role])
		}
	}
	if len(roles) == 0 {
		return nil
	}
	return []cell{{text: "  (" + text.Safe(strings.Join(roles, ", ")) + ")", paint: text.Style.Dim}}
}

// resetNote describes the /clear an omp context starts after.
func resetNote(c *project.Context) string {
	if c.Reset == nil {
		return ""
	}
	left := len(c.Path) - len(c.Entries)
	return "after /clear " + shortID(c.Reset.ID()) + " (line " + strconv.Itoa(c.Reset.Line) + "): " +
		text.Plural(left, "earlier entry", "earlier entries") + " left out"
}
