package export

import (
	"fmt"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// decodeMessage reads a message's members as pi reads them, by their exact
// names (encoding/json, which read the usage before, matched "INPUT" to
// input), and keeps what it did with values of the wrong type: a usage or
// exitCode that is not null is there, empty; another member is left empty.
func TestDecodeMessageReadsKeysAsPi(t *testing.T) {
	ptr := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		msg      string
		usage    *usage
		exitCode *float64
		isError  bool
		before   float64
	}{
		{msg: `{}`},
		{msg: `{"usage":{"input":2,"output":3,"cacheRead":4,"cacheWrite":5,"totalTokens":14,"cost":{"total":0.5}}}`,
			usage: &usage{Input: 2, Output: 3, CacheRead: 4, CacheWrite: 5, TotalTokens: 14, Cost: struct{ Total float64 }{0.5}}},
		{msg: `{"usage":{"Input":5,"input":2,"INPUT":9,"cost":{"Total":3,"total":1,"TOTAL":7}}}`,
			usage: &usage{Input: 2, Cost: struct{ Total float64 }{1}}},
		{msg: `{"usage":{"input":3,"input":4}}`, usage: &usage{Input: 4}},
		{msg: `{"usage":null}`},
		{msg: `{"usage":5}`, usage: &usage{}},
		{msg: `{"usage":[1]}`, usage: &usage{}},
		{msg: `{"usage":{"input":"7","output":1e400,"cacheRead":null,"cacheWrite":3,"cost":2}}`, usage: &usage{CacheWrite: 3}},
		{msg: `{"exitCode":null}`},
		{msg: `{"exitCode":5}`, exitCode: ptr(5)},
		{msg: `{"exitCode":"5"}`, exitCode: ptr(0)},
		{msg: `{"exitCode":1e400}`, exitCode: ptr(0)},
		{msg: `{"ExitCode":5}`},
		{msg: `{"isError":true}`, isError: true},
		{msg: `{"isError":"true"}`},
		{msg: `{"isError":true,"isError":false}`},
		{msg: `{"tokensBefore":12}`, before: 12},
		{msg: `{"tokensBefore":1e400}`},
		{msg: `{"tokensBefore":"12"}`},
	} {
		var tape session.Tape
		if err := tape.Build([]byte(tc.msg)); err != nil {
			t.Fatalf("%s: %v", tc.msg, err)
		}
		m := decodeMessage(&tape, 0, true)
		if got, want := fmt.Sprint(deref(m.Usage)), fmt.Sprint(deref(tc.usage)); got != want {
			t.Errorf("%s: usage %s, want %s", tc.msg, got, want)
		}
		if got, want := fmt.Sprint(deref(m.ExitCode)), fmt.Sprint(deref(tc.exitCode)); got != want {
			t.Errorf("%s: exitCode %s, want %s", tc.msg, got, want)
		}
		if m.IsError != tc.isError || m.TokensBefore != tc.before {
			t.Errorf("%s: isError %v tokensBefore %v, want %v %v", tc.msg, m.IsError, m.TokensBefore, tc.isError, tc.before)
		}
	}
}

// deref is *p, or "none" for nil.
func deref[T any](p *T) any {
	if p == nil {
		return "none"
	}
	return *p
}

// shownAs decodes a secret's escapes, as encoding/json did, and leaves
// what is no JSON string body as it is.
func TestShownAs(t *testing.T) {
	for _, tc := range []struct{ secret, want string }{
		{`sk-abc\ndef`, "sk-abc def"},
		{`a\u0041\t b`, "aA b"},
		{`abc`, ""},          // shown as found
		{`a" "b`, ""},        // no string body: as found (its words are itself)
		{`a"  "b`, `a" "b`},  // as found, white space collapsed
		{`bad\x escape`, ""}, // a bad escape: as found
		{`trailing\`, ""},    // unterminated: as found
		{`\ud800 x`, "\uFFFD x"},
	} {
		if got := shownAs(tc.secret); got != tc.want {
			t.Errorf("shownAs(%q) = %q, want %q", tc.secret, got, tc.want)
		}
	}
}
