package session

import "github.com/pisess/pisess/internal/finding"

// vector is a test line with its expected verdict. The same vectors drive
// the unit tests and seed the fuzzer.
type vector struct {
	name  string
	line  string
	atEOF bool         // last line of the file, no final newline
	class Class        // expected class
	code  finding.Code // expected code ("" for Object)
}

var vectors = []vector{
	// complete objects
	{"object", `{"type":"session","id":"x"}`, false, Object, ""},
	{"object with spaces", "  {\"a\" : [1, 2.5e-3, true, false, null, {}, []]}\t", false, Object, ""},
	{"object at eof", `{"a":1}`, true, Object, ""},
	{"escapes", `{"a":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}`, false, Object, ""},
	{"lone surrogate escape", `{"a":"\ud800"}`, false, Object, ""},
	{"utf8 text", `{"a":"héllo ✓ 😀"}`, false, Object, ""},
	{"deep", `{"a":[[[[{"b":[{}]}]]]]}`, false, Object, ""},
	{"negative zero", `{"a":-0.0e+0}`, false, Object, ""},

	// blank lines
	{"empty", ``, false, Blank, finding.BlankLine},
	{"spaces", " \t ", false, Blank, finding.BlankLine},
	{"spaces at eof", "  ", true, Blank, finding.BlankLine},
	// white space JSON does not know but JavaScript's String.prototype.trim
	// does: pi 1.6.0 skips such a line as blank (parseSessionEntryLine)
	{"form feed", "\f", false, Blank, finding.BlankLine},
	{"vertical tab and spaces", " \v\t", false, Blank, finding.BlankLine},
	{"no-break space", "\u00a0", false, Blank, finding.BlankLine},
	{"ideographic space, line separator", "\u3000\u2028 \u2029\u205f", true, Blank, finding.BlankLine},
	{"byte order mark alone", "\ufeff", false, Blank, finding.BlankLine},
	{"form feed before an object", "\f{}", false, Corrupt, finding.InvalidJSON},
	{"next line is no white space", "\u0085", false, Corrupt, finding.InvalidJSON},
	{"zero width space is no white space", "\u200b", false, Corrupt, finding.InvalidJSON},
	{"white space then invalid utf8", "\u00a0\xff", false, Corrupt, finding.InvalidJSON},

	// tolerated partial tails: cut everywhere
	{"tail open brace", `{`, true, PartialTail, finding.PartialTail},
	{"tail in key", `{"ty`, true, PartialTail, finding.PartialTail},
	{"tail between keys", `{"type":"message",`, true, PartialTail, finding.PartialTail},
	{"tail before colon", `{"type"`, true, PartialTail, finding.PartialTail},
	{"tail after colon", `{"type":`, true, PartialTail, finding.PartialTail},
	{"tail in string", `{"type":"message","id":"cu`, true, PartialTail, finding.PartialTail},
	{"tail in escape", `{"a":"x\`, true, PartialTail, finding.PartialTail},
	{"tail in unicode escape", `{"a":"\u00`, true, PartialTail, finding.PartialTail},
	{"tail in number", `{"a":12`, true, PartialTail, finding.PartialTail},
	{"tail in fraction", `{"a":1.`, true, PartialTail, finding.PartialTail},
	{"tail in exponent", `{"a":1e`, true, PartialTail, finding.PartialTail},
	{"tail in exponent sign", `{"a":1e-`, true, PartialTail, finding.PartialTail},
	{"tail after minus", `{"a":-`, true, PartialTail, finding.PartialTail},
	{"tail in true", `{"a":tr`, true, PartialTail, finding.PartialTail},
	{"tail in false", `{"a":fal`, true, PartialTail, finding.PartialTail},
	{"tail in null", `{"a":nu`, true, PartialTail, finding.PartialTail},
	{"tail in nested array", `{"a":[1,{"b":[`, true, PartialTail, finding.PartialTail},
	{"tail in multibyte char", "{\"a\":\"caf\xc3", true, PartialTail, finding.PartialTail},
	{"tail in 4-byte char", "{\"a\":\"\xf0\x9f\x98", true, PartialTail, finding.PartialTail},

	// the same cuts with a newline after them: a torn line that a later
	// write continued after (pi 1.6.0 resumes a torn file so)
	{"torn open brace", `{`, false, TornLine, finding.TornLine},
	{"torn in string", `{"type":"message","id":"cu`, false, TornLine, finding.TornLine},
	{"torn after id", `{"type":"message","id":"a1b2c3d4","parentId":`, false, TornLine, finding.TornLine},
	{"torn in number", `{"a":12`, false, TornLine, finding.TornLine},
	{"torn in literal", `{"a":tr`, false, TornLine, finding.TornLine},
	{"torn in nested array", `{"a":[1,{"b":[`, false, TornLine, finding.TornLine},
	{"torn in escape", `{"a":"x\`, false, TornLine, finding.TornLine},
	{"torn multibyte char", "{\"a\":\"caf\xc3", false, TornLine, finding.TornLine},
	{"torn 4-byte char", "{\"a\":\"\xf0\x9f\x98", false, TornLine, finding.TornLine},

	// a cut is never an excuse for garbage: these stay fatal with a newline
	{"impossible prefix with newline", `{"a":x`, false, Corrupt, finding.InvalidJSON},
	{"array prefix with newline", `[1,2`, false, Corrupt, finding.InvalidJSON},
	{"string prefix with newline", `"abc`, false, Corrupt, finding.InvalidJSON},
	{"invalid utf8 mid torn line", "{\"a\":\"\xffabc", false, Corrupt, finding.InvalidUTF8},
	{"cut character outside a string", "{\"a\":1\xc3", false, Corrupt, finding.InvalidUTF8},
	{"torn character not at the cut", "{\"a\":\"\xc3\"", false, Corrupt, finding.InvalidUTF8},

	// fatal corruption
	{"not json", `not-json`, false, Corrupt, finding.InvalidJSON},
	{"not json at eof", `not-json`, true, Corrupt, finding.InvalidJSON},
	{"missing value", `{"a":}`, false, Corrupt, finding.InvalidJSON},
	{"missing value at eof", `{"a":}`, true, Corrupt, finding.InvalidJSON},
	{"impossible prefix at eof", `{"a":x`, true, Corrupt, finding.InvalidJSON},
	{"trailing comma", `{"a":1,}`, false, Corrupt, finding.InvalidJSON},
	{"leading zero", `{"a":01}`, false, Corrupt, finding.InvalidJSON},
	{"bad escape", `{"a":"\x"}`, false, Corrupt, finding.InvalidJSON},
	{"bad unicode escape", `{"a":"\u12G4"}`, false, Corrupt, finding.InvalidJSON},
	{"control char in string", "{\"a\":\"x\ty\"}", false, Corrupt, finding.InvalidJSON},
	{"single quotes", `{'a':1}`, false, Corrupt, finding.InvalidJSON},
	{"invalid utf8", "{\"a\":\"\xff\"}", false, Corrupt, finding.InvalidUTF8},
	{"overlong utf8", "{\"a\":\"\xc0\xaf\"}", false, Corrupt, finding.InvalidUTF8},
	{"surrogate utf8", "{\"a\":\"\xed\xa0\x80\"}", false, Corrupt, finding.InvalidUTF8},
	{"lone continuation", "{\"a\":\"\x80\"}", false, Corrupt, finding.InvalidUTF8},
	{"invalid utf8 at eof", "{\"a\":\"\xff\"}", true, Corrupt, finding.InvalidUTF8},
	{"invalid utf8 mid tail", "{\"a\":\"\xffabc", true, Corrupt, finding.InvalidUTF8},
	{"trailing garbage", `{"a":1} x`, false, Corrupt, finding.TrailingData},
	{"trailing garbage at eof", `{"a":1}x`, true, Corrupt, finding.TrailingData},
	{"trailing array", `{"a":1}[]`, false, Corrupt, finding.TrailingData},
	{"trailing torn object at eof", `{"a":1}{"b":`, true, Concatenated, finding.ConcatenatedObjects},
	{"trailing torn object", `{"a":1}{"b":`, false, Corrupt, finding.TrailingData},
	{"objects then a torn one at eof", `{"a":1} {"b":2}{"c":"x`, true, Concatenated, finding.ConcatenatedObjects},
	{"object then an impossible prefix at eof", `{"a":1}{"b":]`, true, Corrupt, finding.TrailingData},
	{"object then a torn array at eof", `{"a":1}[1,`, true, Corrupt, finding.TrailingData},
	{"concatenated", `{"a":1}{"b":2}`, false, Concatenated, finding.ConcatenatedObjects},
	{"concatenated with space", `{"a":1} {"b":2}  {"c":3}`, false, Concatenated, finding.ConcatenatedObjects},
	{"concatenated at eof", `{"a":1}{"b":2}`, true, Concatenated, finding.ConcatenatedObjects},
	{"array", `[1,2]`, false, Corrupt, finding.NotObject},
	{"string", `"x"`, false, Corrupt, finding.NotObject},
	{"number", `42`, false, Corrupt, finding.NotObject},
	{"null", `null`, true, Corrupt, finding.NotObject},
	{"array prefix at eof", `[1,2`, true, Corrupt, finding.InvalidJSON},
	{"zero fill", "\x00\x00\x00\x00", true, Corrupt, finding.ZeroFill},
	{"zeros with newline", "\x00\x00", false, Corrupt, finding.InvalidJSON},
	{"object then zeros", "{\"a\":1}\x00\x00", false, Corrupt, finding.TrailingData},
	{"object then zeros at eof", "{\"a\":1}\x00\x00", true, Corrupt, finding.ZeroFill},
	{"object, torn object, zeros at eof", "{\"a\":1}{\"b\x00", true, Corrupt, finding.ZeroFill},
	{"torn object then zeros at eof", "{\"a\":\"x\x00\x00", true, Corrupt, finding.ZeroFill},
	{"torn object then zeros", "{\"a\":\"x\x00\x00", false, Corrupt, finding.InvalidJSON},
	{"garbage then zeros at eof", "nope\x00\x00", true, Corrupt, finding.InvalidJSON},
	{"zero inside a torn object, zeros at eof", "{\"a\":\"\x00x\x00", true, Corrupt, finding.InvalidJSON},
	{"bom", "\xef\xbb\xbf{}", false, Corrupt, finding.InvalidJSON},
}
