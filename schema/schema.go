// Package schema holds the JSON Schemas (draft 2020-12) of pi session
// files, embedded in the binary so that validation never touches the
// network and `pisess schema` can print them for reuse with other tools.
//
// One file per thing:
//
//	header.json           the session header (line 1), versions 1-3
//	entry-base.json       keys every entry has; $defs/v1 for version-1 entries
//	entry-<type>.json     one per entry type (message, compaction, ...); the root
//	                      checks a version-2/3 entry, $defs/v1 a version-1 one
//	role-<role>.json      one per AgentMessage role (user, assistant, ...)
//	defs.json             content blocks, Usage and the AgentMessage dispatcher
//	omp-*.json            the oh-my-pi dialect (docs/omp.md): omp-title (the
//	                      256-byte title slot on line 1), omp-header, one
//	                      omp-entry-<type> per omp entry type, omp-message
//	                      (omp's roles and assistant blocks)
//
// Files refer to each other with relative references ("defs.json#/$defs/usage"),
// so a copy of the folder works with any draft 2020-12 validator. Why each
// rule is what it is: docs/format.md, "Schemas: our reading".
package schema

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.json
var files embed.FS

// ErrUnknown is returned (wrapped) by Source for a name that is not a schema.
var ErrUnknown = errors.New("unknown schema")

// Names returns the printable names of all schemas (file names without
// ".json"), sorted: "defs", "entry-base", "entry-compaction", ..., "header",
// "role-assistant", ...
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil { // cannot happen: the embedded root always exists
		panic(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Source returns the text of the schema called name ("header",
// "entry-message", "role-assistant", ...; a ".json" suffix is accepted).
func Source(name string) ([]byte, error) {
	name = strings.TrimSuffix(name, ".json")
	if name == "" || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("%w %q", ErrUnknown, name)
	}
	b, err := files.ReadFile(name + ".json")
	if err != nil {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// Lookup resolves a word a user may type for `pisess schema WORD` to schema
// names: an exact name, or the entry type and/or message role of that name
// ("message" -> entry-message, "assistant" -> role-assistant, "custom" ->
// both entry-custom and role-custom). It returns nil for no match.
func Lookup(word string) []string {
	word = strings.TrimSuffix(word, ".json")
	var found []string
	for _, name := range Names() {
		if name == word {
			return []string{name}
		}
		if name == "entry-"+word || name == "role-"+word {
			found = append(found, name)
		}
	}
	return found
}

// FS returns the embedded schema files, one "<name>.json" per schema.
func FS() fs.FS { return files }
