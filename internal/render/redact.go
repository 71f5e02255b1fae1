package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pisess/pisess/internal/secrets"
	"github.com/pisess/pisess/internal/text"
)

// RedactSummary says what `pisess redact` redacted in file and where the
// copy went (dest; file itself when rewritten in place).
func RedactSummary(w io.Writer, file, dest string, res secrets.RedactResult) {
	switch {
	case res.Count == 0 && dest == file:
		fmt.Fprintf(w, "pisess: %s: no secrets found; left unchanged\n", text.Safe(file))
		return
	case res.Count == 0:
		fmt.Fprintf(w, "pisess: %s: no secrets found; copied unchanged to %s\n", text.Safe(file), text.Safe(dest))
		return
	}
	kinds := make([]string, 0, len(res.ByKind))
	for k, n := range res.ByKind {
		if n > 1 {
			k += fmt.Sprintf(" ×%d", n)
		}
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "pisess: %s: redacted %s (%s) → %s\n", text.Safe(file),
		text.Plural(res.Count, "secret", "secrets"), strings.Join(kinds, ", "), text.Safe(dest))
}
