package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pisess/pisess/internal/secrets"
	"github.com/pisess/pisess/internal/text"
)

// Secret writes one secret `pisess scan` found, in format (text, json or
// github): where and what, never the secret.
func Secret(w io.Writer, style text.Style, format string, f secrets.Finding) {
	switch format {
	case "json":
		JSONLine(w, f)
	case "github":
		msg := secretWhere(f) + ": " + f.Masked + " (" + strconv.Itoa(f.Length) + " bytes)"
		fmt.Fprintf(w, "::error file=%s,line=%d,title=%s::%s\n", ghProperty(text.Safe(f.File)), f.Line,
			ghProperty("secret "+f.Kind), ghData(text.Safe(msg)))
	default:
		fmt.Fprintf(w, "%s:%d: %s %s%s: %s (%d bytes)\n", text.Safe(f.File), f.Line, style.Error("secret"), f.Kind,
			style.Dim(text.Safe(strings.TrimPrefix(secretWhere(f), f.Kind))), text.Safe(f.Masked), f.Length)
	}
}

// secretWhere says which kind of secret is where: "jwt at /message/content/0/text in entry 1a2b3c4d".
func secretWhere(f secrets.Finding) string {
	s := f.Kind
	if f.Pointer != "" {
		s += " at " + f.Pointer
	}
	if f.EntryID != "" {
		s += " in entry " + f.EntryID
	}
	return s
}

// ScanSummary writes the summary line of scan's text format: how many
// secrets were found in how many of the files; nothing when none was
// found but a file could not be read.
func ScanSummary(w io.Writer, style text.Style, found, withSecrets, files, unreadable int) {
	switch {
	case found > 0:
		fmt.Fprintf(w, "%s %s in %d of %s\n", style.Error("✗"), text.Plural(found, "secret", "secrets"), withSecrets, text.Plural(files, "file", "files"))
	case unreadable == 0:
		fmt.Fprintf(w, "%s no secrets in %s\n", style.OK("✓"), text.Plural(files, "file", "files"))
	}
}
