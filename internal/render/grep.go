package render

import (
	"fmt"
	"io"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/grep"
	"github.com/pisess/pisess/internal/text"
)

// grepHit is one match as grep's JSON line shows it.
type grepHit struct {
	File      string `json:"file"`
	FileBytes []byte `json:"fileBytes,omitempty"`
	Line      int    `json:"line"`
	EntryID   string `json:"entryId"`
	Role      string `json:"role"`
	Timestamp string `json:"timestamp"`
	OnPath    bool   `json:"onPath"`
	Text      string `json:"text"`
}

// GrepMatch writes one match of grep: `FILE:LINE: ID ROLE TIMESTAMP: …text…`
// with the occurrence painted, or its JSON line. onPath says the entry is
// on the default leaf's path.
func GrepMatch(w io.Writer, style text.Style, format, file string, m grep.Match, onPath bool) {
	if format == "json" {
		JSONLine(w, grepHit{File: file, FileBytes: finding.NameBytes(file), Line: m.Line, EntryID: m.EntryID,
			Role: m.Role, Timestamp: m.Timestamp, OnPath: onPath, Text: m.Snippet})
		return
	}
	s := m.Snippet
	fmt.Fprintf(w, "%s:%d: %s %s %s: %s%s%s\n", text.Safe(file), m.Line, text.Safe(orDash(m.EntryID)), text.Safe(m.Role), text.Safe(orDash(m.Timestamp)),
		text.Safe(s[:m.At[0]]), style.Error(text.Safe(s[m.At[0]:m.At[1]])), text.Safe(s[m.At[1]:]))
}

// orDash is s, or "-" for none.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// GrepFile writes a file of grep -l, or its count of matches with -c
// (count >= 0).
func GrepFile(w io.Writer, format, file string, count int) {
	switch {
	case format == "json" && count >= 0:
		JSONLine(w, struct {
			File      string `json:"file"`
			FileBytes []byte `json:"fileBytes,omitempty"`
			Count     int    `json:"count"`
		}{file, finding.NameBytes(file), count})
	case format == "json":
		JSONLine(w, struct {
			File      string `json:"file"`
			FileBytes []byte `json:"fileBytes,omitempty"`
		}{file, finding.NameBytes(file)})
	case count >= 0:
		fmt.Fprintf(w, "%s:%d\n", text.Safe(file), count)
	default:
		fmt.Fprintln(w, text.Safe(file))
	}
}
