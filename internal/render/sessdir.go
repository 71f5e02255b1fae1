package render

import (
	"fmt"
	"io"

	"github.com/pisess/pisess/internal/sessdir"
)

// MoveChange writes what move did to one file: a text line, or its JSON
// object.
func MoveChange(w io.Writer, style Style, format string, c sessdir.Change) {
	if format == "json" {
		JSONLine(w, c)
		return
	}
	verb := map[string]string{"moved": "moved", "would-move": "would move", "updated": "updated", "would-update": "would update"}[c.Action]
	line := Safe(c.File) + ": " + style.OK(verb)
	if c.To != c.File {
		line += " → " + Safe(c.To)
	}
	if c.CwdBefore != c.CwdAfter {
		line += " (cwd " + Safe(c.CwdBefore) + " → " + Safe(c.CwdAfter) + ")"
	}
	if c.ParentAfter != "" {
		if c.CwdBefore != c.CwdAfter {
			line += ","
		}
		line += " parentSession → " + Safe(c.ParentAfter)
	}
	fmt.Fprintln(w, line)
}

// MoveSummary writes move's last line.
func MoveSummary(w io.Writer, style Style, moved, updated int, dryRun bool) {
	verbs := [2]string{"moved", "updated"}
	if dryRun {
		verbs = [2]string{"to move", "to update"}
	}
	fmt.Fprintf(w, "%s %s %s, %s %s\n", style.OK("✓"), Plural(moved, "session", "sessions"), verbs[0], Plural(updated, "reference", "references"), verbs[1])
}
