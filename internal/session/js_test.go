package session

import "testing"

// jsTruthy is what node gives `!!JSON.parse(raw)` for each raw value
// ("" stands for an absent value: undefined), checked with node 22:
//
//	node -e 'for (const s of [...]) console.log(JSON.stringify(s), !!JSON.parse(s))'
var jsTruthy = []struct {
	raw  string
	want bool
}{
	{"", false}, {"null", false}, {"false", false}, {"true", true},
	{"0", false}, {"-0", false}, {"0.0", false}, {"-0.0", false}, {"0e5", false}, {"0E-3", false},
	{"1e-400", false}, {"1e400", true}, {"-1e400", true}, {"1", true}, {"-1", true}, {"0.5", true},
	{`""`, false}, {`"0"`, true}, {`"-0"`, true}, {`"false"`, true}, {`" "`, true}, {`"\u0000"`, true},
	{"[]", true}, {"{}", true}, {"[0]", true}, {" 0 ", false}, {"\t\"\"\n", false},
}

func TestJSTruthy(t *testing.T) {
	for _, tt := range jsTruthy {
		if got := JSTruthy([]byte(tt.raw)); got != tt.want {
			t.Errorf("JSTruthy(%q) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}

// jsTrimmed is whether node's (c + "x" + c).trim() === "x" for each code
// point c, checked with node 22.
var jsTrimmed = map[rune]bool{
	0x9: true, 0xa: true, 0xb: true, 0xc: true, 0xd: true, 0x20: true, 0x85: false, 0xa0: true,
	0x1680: true, 0x180e: false, 0x2000: true, 0x200a: true, 0x200b: false, 0x2028: true,
	0x2029: true, 0x202f: true, 0x205f: true, 0x3000: true, 0xfeff: true,
}

func TestJSTrim(t *testing.T) {
	for c, want := range jsTrimmed {
		s := string(c) + "x" + string(c)
		if got := JSTrim(s) == "x"; got != want {
			t.Errorf("JSTrim(%q) trims: %v, want %v", s, got, want)
		}
	}
	if got := JSTrim(" \ufeffa b\u3000\n"); got != "a b" {
		t.Errorf("JSTrim = %q", got)
	}
	if got := JSTrim("\u0085a\u0085"); got != "\u0085a\u0085" {
		t.Errorf("JSTrim cut U+0085: %q", got)
	}
}
