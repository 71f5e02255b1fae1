package cli

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// examples are the examples of each command's --help, and what a command
// without a description of its own says about itself.
func examples() map[string]struct{ about, lines string } {
	return map[string]struct{ about, lines string }{
		"validate": {
			about: `Checks every line: a strict streaming parse (a torn last line is tolerated,
corruption is not), the JSON Schema of each entry and message, and the
links between entries (parents, tool calls and results, labels, edits).
Exit 0 when every file is valid (warnings allowed unless --strict), 1 when
one is not, 2 on a usage or I/O error.`,
			lines: `pisess validate                                  # every session pi keeps
pisess validate --format github --strict DIR     # in CI, as annotations
pisess validate --format json f.jsonl | jq .status
cat f.jsonl | pisess validate -`,
		},
		"migrate": {
			about: `Brings version 1 and 2 files to version 3, as pi would on opening them, but
through a temporary file, fsync and rename, with the original kept as
FILE.vN.bak under --backup. Current files are left byte-identical; invalid
files are refused and left alone (exit 1).`,
			lines: `pisess migrate --dry-run --diff f.jsonl           # what would change
pisess migrate --backup                           # all sessions, before upgrading pi
pisess migrate --backup --format json DIR | jq -r 'select(.action=="refused").file'`,
		},
		"repair": {
			about: `Safe repairs only: drops a torn last line, adds a missing final newline,
splits objects that lost the newline between them (--zero-tail: cuts a
trailing run of NUL bytes). Anything that would need a guess is refused
with the finding that explains why.`,
			lines: `pisess repair --dry-run --diff f.jsonl
pisess repair --backup f.jsonl
pisess audit --format json | jq -r 'select(.verdict=="repairable").file' | xargs pisess repair --backup`,
		},
		"audit": {
			about: `One line per session (verdict, size, tokens, cost, activity) and totals
in which forked and copied entries count once. Exit 1 when a file is
corrupt.`,
			lines: `pisess audit                                      # every session pi keeps
pisess audit --by model --format csv > usage.csv
pisess audit --format json DIR | tail -1 | jq .summary`,
		},
		"schema": {
			about: `The JSON Schemas pisess checks entries against, for use with other tools.`,
			lines: `pisess schema --list
pisess schema compaction
pisess schema assistant > assistant.schema.json`,
		},
		"tree": {lines: `pisess tree f.jsonl
pisess tree --leaf 3fc31a98 --width 0 f.jsonl
pisess tree --format json f.jsonl | jq '.roots[0].id'`},
		"path": {lines: `pisess path f.jsonl
pisess path --leaf 3fc31a98 f.jsonl`},
		"context": {lines: `pisess context f.jsonl                            # what the model is sent now
pisess context --leaf 3fc31a98 f.jsonl
pisess context --format json f.jsonl | jq '.messages | length'`},
	}
}

// addExamples appends each command's examples to its description.
func addExamples(cmds []*cli.Command) {
	all := examples()
	for _, cmd := range cmds {
		ex, ok := all[cmd.Name]
		if !ok {
			continue
		}
		if cmd.Description == "" {
			cmd.Description = ex.about
		}
		cmd.Description += "\n\nExamples:\n   " + strings.ReplaceAll(ex.lines, "\n", "\n   ")
	}
}
