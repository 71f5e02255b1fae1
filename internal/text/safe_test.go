package text

import (
	"encoding/json"
	"testing"
	"unicode"
	"unicode/utf8"
)

// A file name or text from a session may hold bytes that are not UTF-8:
// 0x9b alone is CSI to a terminal in 8-bit mode, and Safe let it through
// because ranging over a string reads it as U+FFFD, which is printable.
func TestSafeEscapesBytesThatAreNotUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a\x9bb", `a\x9bb`},
		{"\xe2\x82", `\xe2\x82`},
		{"\x1b[31m", `\x1b[31m`},
		{"\u009b1m", `\u009b1m`},
		{"real \uFFFD stays", "real \uFFFD stays"},
		{"tab\tnl\n", `tab\tnl\n`},
	}
	for _, tt := range tests {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// encoding/json leaves DEL and the C1 controls (U+009B is CSI) raw in its
// output; EscapeControls escapes them and the document still decodes to
// the same text.
func TestEscapeControls(t *testing.T) {
	text := "A\u009b31m\u009d0;t\u0007\u007fZ é ✓"
	raw, err := json.Marshal(map[string]string{"text": text})
	if err != nil {
		t.Fatal(err)
	}
	got := EscapeControls(raw)
	for _, b := range got {
		if b == 0x7f || b == 0x9b || b == 0x9d {
			t.Fatalf("EscapeControls left a control byte: %q", got)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["text"] != text {
		t.Errorf("EscapeControls(%s) = %s: decodes to %q (%v)", raw, got, back["text"], err)
	}
	clean := []byte(`{"text":"é ✓ \u00c2"}`)
	if got := EscapeControls(clean); &got[0] != &clean[0] {
		t.Errorf("output without controls was copied")
	}
}

// FuzzPrintable: printable is the test Safe made before, rune by rune.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "plain", "tab\there", "\x1b[31m", "caf\xc3\xa9", "\xc2\x9b", "\x9b", "\ufffd", "\u2028", "\x7f", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := utf8.ValidString(s)
		for _, r := range s {
			want = want && (unicode.IsPrint(r) || r == ' ')
		}
		if got := printable(s); got != want {
			t.Fatalf("printable(%q) = %v, want %v", s, got, want)
		}
	})
}
