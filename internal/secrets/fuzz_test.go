package secrets

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// FuzzRedact: any input is scanned and redacted without a panic; a line
// that was a JSON object is one after redaction; what is not a secret
// stays byte for byte (the output with the markers taken out of the
// input's place is the input, when nothing was found).
func FuzzRedact(f *testing.F) {
	text, _ := hostileSession()
	f.Add(text)
	f.Add(header + "\n" + userLine("u", "key "+fakeAWS+" \\u0041KIA") + "\r\n{\"a\":\"" + fakeJWT + "\\")
	f.Add("{\"password\": \"" + fakePassword + "\"}{\"x\":[\"" + fakeGitHubPAT + "\"]}\n\xff\xfe")
	rules := mustDefault(f)
	f.Fuzz(func(t *testing.T, in string) {
		opts := Options{Rules: rules, Limits: session.Limits{MaxLineBytes: 1 << 16}}
		var out bytes.Buffer
		res, err := Redact(strings.NewReader(in), &out, opts)
		if err != nil {
			return // a line over the limit, or bytes the reader does not return as they are
		}
		if res.Count == 0 && out.String() != in {
			t.Fatalf("nothing redacted, yet the output differs:\n%q\n%q", in, out.String())
		}
		inLines, outLines := strings.Split(in, "\n"), strings.Split(out.String(), "\n")
		if len(inLines) != len(outLines) {
			t.Fatalf("%d lines became %d", len(inLines), len(outLines))
		}
		for i := range inLines {
			a, b := strings.TrimSuffix(inLines[i], "\r"), strings.TrimSuffix(outLines[i], "\r")
			if json.Valid([]byte(a)) && strings.HasPrefix(strings.TrimSpace(a), "{") && !json.Valid([]byte(b)) {
				t.Fatalf("line %d was valid JSON and is not after redaction:\n%q\n%q", i+1, a, b)
			}
		}
		n := 0
		if _, err := Scan("f", strings.NewReader(in), opts, func(Finding) { n++ }); err != nil {
			t.Fatal(err)
		}
		if n != res.Count {
			t.Fatalf("scan found %d, redact replaced %d", n, res.Count)
		}
	})
}
