package render

import (
	"fmt"
	"github.com/pisess/pisess/internal/text"
	"io"

	"github.com/pisess/pisess/internal/sessdir"
)

// MoveChange writes what move did to one file: a text line, or its JSON
// object.
func MoveChange(w io.Writer, style text.Style, format string, c sessdir.Change) {
	if format == "json" {
		JSONLine(w, c)
		return
	}
	verb := map[string]string{"moved": "moved", "would-move": "would move", "updated": "updated", "would-update": "would update"}[c.Action]
	line := text.Safe(c.File) + ": " + style.OK(verb)
	if c.To != c.File {
		line += " → " + text.Safe(c.To)
	}
	if c.CwdBefore != c.CwdAfter {
		line += " (cwd " + text.Safe(c.CwdBefore) + " → " + text.Safe(c.CwdAfter) + ")"
	}
	if c.ParentAfter != "" {
		if c.CwdBefore != c.CwdAfter {
			line += ","
		}
		line += " parentSession → " + text.Safe(c.ParentAfter)
	}
	fmt.Fprintln(w, line)
}

// MoveSummary writes move's last line.
func MoveSummary(w io.Writer, style text.Style, moved, updated int, dryRun bool) {
	verbs := [2]string{"moved", "updated"}
	if dryRun {
		verbs = [2]string{"to move", "to update"}
	}
	fmt.Fprintf(w, "%s %s %s, %s %s\n", style.OK("✓"), text.Plural(moved, "session", "sessions"), verbs[0], text.Plural(updated, "reference", "references"), verbs[1])
}

// PrunedSession writes one session prune took.
func PrunedSession(w io.Writer, style text.Style, format string, p sessdir.Pruned) {
	if format == "json" {
		JSONLine(w, p)
		return
	}
	verb := map[string]string{"trashed": "trashed", "deleted": "deleted", "would-trash": "would trash", "would-delete": "would delete"}[p.Action]
	line := text.Safe(p.File) + ": " + style.OK(verb)
	if p.To != "" {
		line += " → " + text.Safe(p.To)
	}
	line += " (" + text.Bytes(p.Bytes) + ", last entry " + text.Safe(p.LastEntry)
	if p.Fork {
		line += ", a fork of a pruned session"
	}
	fmt.Fprintln(w, line+")")
}

// PruneSummary writes prune's last line: how many sessions, how much
// space, and where they went.
func PruneSummary(w io.Writer, style text.Style, count int, bytes int64, opts sessdir.PruneOptions, trash string) {
	what := text.Plural(count, "session", "sessions") + ", " + text.Bytes(bytes)
	switch {
	case count == 0:
		fmt.Fprintf(w, "%s no session to prune\n", style.OK("✓"))
	case opts.DryRun && opts.Delete:
		fmt.Fprintf(w, "%s would delete %s\n", style.OK("✓"), what)
	case opts.DryRun:
		fmt.Fprintf(w, "%s would move %s to %s\n", style.OK("✓"), what, text.Safe(trash))
	case opts.Delete:
		fmt.Fprintf(w, "%s deleted %s: %s freed\n", style.OK("✓"), text.Plural(count, "session", "sessions"), text.Bytes(bytes))
	default:
		fmt.Fprintf(w, "%s moved %s to %s: %s freed in the sessions directory\n", style.OK("✓"), text.Plural(count, "session", "sessions"), text.Safe(trash), text.Bytes(bytes))
	}
}
