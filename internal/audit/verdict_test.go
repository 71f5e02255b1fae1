package audit

import (
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

// TestVerdictOfTornWritesAndBOM: a torn line, like a torn tail, is
// repairable; a byte order mark and a torn entry that has a child are
// errors, so corrupt (audit fails exactly the files validate fails); a
// header version null is version 1.
func TestVerdictOfTornWritesAndBOM(t *testing.T) {
	const (
		h3    = `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
		a     = `{"type":"custom","customType":"x","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z"}`
		torn  = `{"type":"custom","customType":"x","id":"aaaa0002","parentId":"aaaa0001","times`
		b     = `{"type":"custom","customType":"x","id":"aaaa0003","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:03.000Z"}`
		child = `{"type":"custom","customType":"x","id":"aaaa0003","parentId":"aaaa0002","timestamp":"2026-01-01T00:00:03.000Z"}`
	)
	tests := []struct {
		name, in string
		want     Verdict
	}{
		{"clean", h3 + "\n" + a + "\n", OK},
		{"torn tail", h3 + "\n" + a + "\n" + torn, Repairable},
		{"torn line", h3 + "\n" + a + "\n" + torn + "\n" + b + "\n", Repairable},
		{"torn line last", h3 + "\n" + a + "\n" + torn + "\n", Repairable},
		{"torn entry with a child", h3 + "\n" + a + "\n" + torn + "\n" + child + "\n", Corrupt},
		{"garbage mid-file", h3 + "\n" + a + "\nnot-json\n" + b + "\n", Corrupt},
		{"byte order mark", "\xef\xbb\xbf" + h3 + "\n" + a + "\n", Corrupt},
		{"version null", `{"type":"session","version":null,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n", NeedsMigration},
	}
	schemas, err := validate.CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := validate.Stream("t.jsonl", strings.NewReader(tt.in), validate.Options{Limits: session.DefaultLimits(), Schemas: schemas})
			if err != nil {
				t.Fatal(err)
			}
			v := validationOf(rep)
			if got := verdictOf(&v); got != tt.want {
				t.Errorf("verdict %s, want %s (findings %v)", got, tt.want, rep.Findings)
			}
		})
	}
}
