//go:build unix

package hostile

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Input is one hostile file: its bytes and the extra flags every command
// is run with on it.
type Input struct {
	Name  string   // unique; safe in a file name
	Data  []byte   // the file's content
	Flags []string // e.g. --max-line-bytes
}

// Truncations returns src cut at every step-th byte offset in [0, len(src)),
// plus the last offset, each ending exactly there (no newline added).
func Truncations(name string, src []byte, step int) []Input {
	if step < 1 {
		step = 1
	}
	var out []Input
	for n := 0; n < len(src); n += step {
		out = append(out, Input{Name: fmt.Sprintf("%s-cut%07d", name, n), Data: src[:n:n]})
	}
	if last := len(src) - 1; last > 0 && last%step != 0 {
		out = append(out, Input{Name: fmt.Sprintf("%s-cut%07d", name, last), Data: src[:last:last]})
	}
	return out
}

// flipBytes are what a flipped byte becomes half of the time: the bytes
// that change a line's structure. The other half are random.
const flipBytes = "\"{}[]:,\\\n\r\x00\xff\x80 0e-."

// Flips returns n copies of src, each with 1 to maxFlips bytes replaced at
// random offsets. The same seed gives the same inputs.
func Flips(name string, src []byte, seed uint64, n, maxFlips int) []Input {
	if len(src) == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	out := make([]Input, 0, n)
	for i := 0; i < n; i++ {
		b := bytes.Clone(src)
		for k := 1 + rng.IntN(maxFlips); k > 0; k-- {
			pos := rng.IntN(len(b))
			if rng.IntN(2) == 0 {
				b[pos] = flipBytes[rng.IntN(len(flipBytes))]
			} else {
				b[pos] ^= byte(1 + rng.IntN(255))
			}
		}
		out = append(out, Input{Name: fmt.Sprintf("%s-flip%04d", name, i), Data: b})
	}
	return out
}

// BadUTF8 are byte sequences that are not UTF-8, by kind.
var BadUTF8 = []struct{ Name, Bytes string }{
	{"overlong-slash", "\xc0\xaf"},
	{"overlong-nul", "\xc0\x80"},
	{"overlong-3", "\xe0\x80\xaf"},
	{"overlong-4", "\xf0\x80\x80\xaf"},
	{"overlong-c1", "\xc1\xbf"},
	{"surrogate-high", "\xed\xa0\x80"},
	{"surrogate-low", "\xed\xbf\xbf"},
	{"surrogate-pair", "\xed\xa0\xbd\xed\xb8\x80"},
	{"lone-continuation", "\x80"},
	{"continuation-run", "\x80\xbf\x9b"},
	{"truncated-2", "\xc3"},
	{"truncated-3", "\xe2\x82"},
	{"truncated-4", "\xf0\x9f\x98"},
	{"byte-ff", "\xff"},
	{"byte-fe", "\xfe"},
	{"lead-f5", "\xf5\x80\x80\x80"},
	{"above-max", "\xf4\x90\x80\x80"},
}

// Catalogue returns the named hostile inputs: small files that each hold
// one kind of damage or trickery (the big ones are made by Chain,
// Siblings, Cycle and the long-line helpers).
func Catalogue() []Input {
	var out []Input
	for _, group := range [][]Input{
		wholeFiles(), invalidUTF8(), nulBytes(), longLines(), nesting(),
		numbers(), duplicateKeys(), escapes(), cycles(), structure(),
	} {
		out = append(out, group...)
	}
	return out
}

func in(name string, data []byte, flags ...string) Input {
	return Input{Name: name, Data: data, Flags: flags}
}

// withLine returns the base session with line i (0-based) replaced.
func withLine(i int, line string) []byte {
	lines := BaseLines()
	lines[i] = line
	return Lines(lines...)
}

// appended returns the base session followed by raw bytes.
func appended(raw string) []byte { return append(Base(), raw...) }

func wholeFiles() []Input {
	base := Base()
	return []Input{
		in("empty", nil),
		in("newline-only", []byte("\n")),
		in("crlf-only", []byte("\r\n")),
		in("spaces-only", []byte("   \t  \n")),
		in("header-only", Lines(Header(3))),
		in("header-only-no-newline", []byte(Header(3))),
		in("header-only-v1", Lines(Header(1))),
		in("base", base),
		in("base-v1", BaseV1()),
		in("base-no-final-newline", base[:len(base)-1]),
		in("base-crlf", bytes.ReplaceAll(base, []byte("\n"), []byte("\r\n"))),
		in("base-cr-only", bytes.ReplaceAll(base, []byte("\n"), []byte("\r"))),
		in("base-v1-cr-only", bytes.ReplaceAll(BaseV1(), []byte("\n"), []byte("\r"))),
		in("bom", append([]byte("\xef\xbb\xbf"), base...)),
		in("bom-mid", withLine(3, "\xef\xbb\xbf"+BaseLines()[3])),
		in("blank-lines", bytes.ReplaceAll(base, []byte("\n"), []byte("\n\n \n"))),
		in("entries-only", Lines(BaseLines()[1:]...)),
		in("two-headers", Lines(append([]string{Header(3)}, BaseLines()...)...)),
		in("header-last", Lines(append(BaseLines()[1:], Header(3))...)),
		in("v4-header", Lines(`{"kind":"header","version":4,"id":"x"}`, `{"kind":"entry"}`)),
		in("not-a-session", Lines(`{"version":1,"recordType":"message"}`, `{}`)),
		in("array-line", Lines("[1,2,3]", Header(3))),
		in("string-line", Lines(`"session"`)),
		in("number-line", Lines(`3`)),
		in("null-line", Lines(`null`)),
		in("concatenated", withLine(4, BaseLines()[4]+BaseLines()[4])),
		in("concatenated-spaces", withLine(4, BaseLines()[4]+"  \t "+BaseLines()[4])),
		in("concatenated-header", Lines(Header(3)+BaseLines()[1], BaseLines()[2])),
		in("concatenated-tail", appended(BaseLines()[4]+`{"type":"mess`)),
		in("trailing-garbage", withLine(4, BaseLines()[4]+"garbage")),
		in("trailing-comma", withLine(4, BaseLines()[4]+",")),
		in("torn-tail", appended(`{"type":"message","id":"ffff0001","parentId":"0000000e","message":{"role":"user","content":"ha`)),
		in("torn-tail-only-brace", appended(`{`)),
		in("torn-tail-after-crlf", append(bytes.ReplaceAll(base, []byte("\n"), []byte("\r\n")), `{"type":"x`...)),
		in("impossible-tail", appended(`{"type":}`)),
		in("lone-cr-tail", appended("\r")),
		in("header-torn", []byte(`{"type":"session","version":3,"id":"`)),
	}
}

// invalidUTF8 places every BadUTF8 sequence in a string, a key, an id,
// between members, in the header, and in a torn last line.
func invalidUTF8() []Input {
	var out []Input
	for _, bad := range BadUTF8 {
		b := bad.Bytes
		out = append(out,
			in("utf8-"+bad.Name+"-text", withLine(3, Entry("message", ID(3), ID(2), UserMsg(`"list `+b+` files"`)))),
			in("utf8-"+bad.Name+"-key", withLine(3, strings.Replace(BaseLines()[3], `"message"`, `"mess`+b+`age"`, 1))),
			in("utf8-"+bad.Name+"-id", withLine(14, RawEntry("message", `"f`+b+`"`, Q(ID(6)), UserMsg(Q("x"))))),
			in("utf8-"+bad.Name+"-between", withLine(3, strings.Replace(BaseLines()[3], `,"timestamp"`, ","+b+`"timestamp"`, 1))),
			in("utf8-"+bad.Name+"-cwd", withLine(0, strings.Replace(Header(3), "/project", "/pro"+b+"ject", 1))),
			in("utf8-"+bad.Name+"-torn-tail", appended(`{"type":"message","message":{"content":"ab`+b)),
			in("utf8-"+bad.Name+"-last-line", appended(Entry("message", "ffff0002", ID(14), UserMsg(`"z`+b+`"`)))),
		)
	}
	return out
}

func nulBytes() []Input {
	nul := strings.Repeat("\x00", 4096)
	return []Input{
		in("nul-in-string", withLine(3, Entry("message", ID(3), ID(2), UserMsg("\"a\x00b\"")))),
		in("nul-as-space", withLine(3, strings.Replace(BaseLines()[3], `,"timestamp"`, ",\x00\"timestamp\"", 1))),
		in("nul-line", withLine(5, "\x00\x00\x00\x00")),
		in("nul-escaped", withLine(3, Entry("message", ID(3), ID(2), UserMsg(`"a\u0000b"`)))),
		in("nul-escaped-id", withLine(14, RawEntry("message", `"\u0000"`, Q(ID(6)), UserMsg(Q("x"))))),
		in("zero-tail", appended(nul)),
		in("zero-tail-no-newline", append(bytes.TrimSuffix(Base(), []byte("\n")), nul...)),
		in("zero-tail-after-torn", appended(`{"type":"mess`+nul)),
		in("zero-only", []byte(nul)),
		in("zero-then-newline", appended(nul+"\n")),
		in("zero-tail-then-data", appended(nul+BaseLines()[3]+"\n")),
	}
}

// longLines are run with --max-line-bytes 4096: a line of exactly the
// limit, one byte over, and variations at the end of the file.
func longLines() []Input {
	const limit = 4096
	flag := []string{"--max-line-bytes", fmt.Sprint(limit)}
	sized := func(n int) string { // a valid user entry of exactly n bytes
		head := Entry("message", "ffff0003", ID(14), UserMsg(`"`))
		pad := n - len(head) - 1
		return Entry("message", "ffff0003", ID(14), UserMsg(`"`+strings.Repeat("a", pad)+`"`))
	}
	return []Input{
		in("line-at-limit", appended(sized(limit)+"\n"), flag...),
		in("line-at-limit-crlf", appended(sized(limit)+"\r\n"), flag...),
		in("line-over-by-one", appended(sized(limit+1)+"\n"), flag...),
		in("line-over-by-one-last-no-newline", appended(sized(limit+1)), flag...),
		in("line-over-by-one-mid", withLine(5, sized(limit+1)), flag...),
		in("line-over-torn", appended(`{"type":"message","x":"`+strings.Repeat("b", 2*limit)), flag...),
		in("line-over-zeros", appended(strings.Repeat("\x00", limit+1)), flag...),
		in("header-over", Lines(Header(3, `"pad":"`+strings.Repeat("h", limit)+`"`)), flag...),
		in("limit-1", Base(), "--max-line-bytes", "1"),
	}
}

func nesting() []Input {
	const depth = 100_000
	open, closed := strings.Repeat("[", depth), strings.Repeat("]", depth)
	objOpen, objClose := strings.Repeat(`{"a":`, depth), strings.Repeat("}", depth)
	custom := func(data string) string {
		return Entry("custom", "ffff0004", ID(14), `"customType":"deep"`, `"data":`+data)
	}
	return []Input{
		in("deep-array", appended(custom(open+closed)+"\n")),
		in("deep-object", appended(custom(objOpen+"1"+objClose)+"\n")),
		in("deep-array-torn-tail", appended(custom(open)[:len(custom(open))-1])),
		in("deep-array-unclosed-mid", withLine(10, custom(open))),
		in("deep-array-in-content", withLine(3, Entry("message", ID(3), ID(2), `"message":{"role":"user","content":`+open+closed+`,"timestamp":1}`))),
		in("deep-array-line", appended(open+closed+"\n")),
		in("deep-in-header", Lines(Header(3, `"x":`+open+closed))),
	}
}

func numbers() []Input {
	digits := "1" + strings.Repeat("0", 10_000)
	asst := func(tokens, cost string) string {
		return Entry("message", ID(6), ID(5), AssistantMsg(TextBlock(Q("n")), Usage(tokens, cost)))
	}
	v1 := func(index string) []byte {
		lines := BaseV1Lines()
		lines[4] = V1Entry("compaction", `"summary":"s"`, `"tokensBefore":5`, `"firstKeptEntryIndex":`+index)
		return Lines(lines...)
	}
	header := func(version string) []byte {
		lines := BaseLines()
		lines[0] = strings.Replace(Header(3), `"version":3`, `"version":`+version, 1)
		return Lines(lines...)
	}
	return []Input{
		in("num-exp-huge", withLine(6, asst("1e999999999", "0"))),
		in("num-exp-negative-huge", withLine(6, asst("-1e999999999", "-1e999999999"))),
		in("num-digits-10000", withLine(6, asst(digits, digits))),
		in("num-fraction-long", withLine(6, asst("0."+strings.Repeat("0", 5000)+"1", "1e-400"))),
		in("num-cost-overflow", withLine(6, asst("1", "1.7e308"))),
		in("num-cost-sum-inf", Lines(append(BaseLines()[:6], asst("9e18", "1.7e308"), Entry("message", ID(50), ID(6), AssistantMsg(TextBlock(Q("m")), Usage("9e18", "1.7e308"))))...)),
		in("num-minus-zero", withLine(6, asst("-0", "-0.0e-0"))),
		in("num-msg-timestamp", withLine(3, strings.Replace(BaseLines()[3], fmt.Sprint(msStamp), "1e400", 1))),
		in("num-tokens-before", withLine(11, Entry("compaction", ID(11), ID(10), `"summary":"s"`, `"tokensBefore":1e999`, `"firstKeptEntryId":`+Q(ID(6))))),
		in("version-3.0", header("3.0")),
		in("version-3e0", header("3e0")),
		in("version-huge", header("1e400")),
		in("version-digits", header("30000000000000000000003")),
		in("version-negative", header("-3")),
		in("version-string", header(`"3"`)),
		in("version-null", header("null")),
		in("version-2", header("2")),
		in("v1-index-huge", v1("1e400")),
		in("v1-index-digits", v1("18446744073709551617")),
		in("v1-index-negative", v1("-1")),
		in("v1-index-fraction", v1("1.5")),
		in("v1-index-zero", v1("0")),
		in("v1-index-self", v1("4")),
		in("v1-index-forward", v1("5")),
		in("v1-index-past-end", v1("100")),
		in("v1-index-string", v1(`"3"`)),
	}
}

func duplicateKeys() []Input {
	v1 := BaseV1Lines()
	return []Input{
		in("dup-version", Lines(append([]string{strings.Replace(Header(3), `"version":3`, `"version":3,"version":1`, 1)}, BaseLines()[1:]...)...)),
		in("dup-version-v1-first", Lines(append([]string{strings.Replace(Header(3), `"version":3`, `"version":1,"version":3`, 1)}, BaseLines()[1:]...)...)),
		in("dup-type-header", Lines(append([]string{strings.Replace(Header(3), `"type":"session"`, `"type":"session","type":"message"`, 1)}, BaseLines()[1:]...)...)),
		in("dup-type-entry", withLine(3, strings.Replace(BaseLines()[3], `"type":"message"`, `"type":"message","type":"label"`, 1))),
		in("dup-id", withLine(3, strings.Replace(BaseLines()[3], `"id":"00000003"`, `"id":"00000003","id":"0000beef"`, 1))),
		in("dup-parent", withLine(3, strings.Replace(BaseLines()[3], `"parentId":"00000002"`, `"parentId":"00000002","parentId":null`, 1))),
		in("dup-message", withLine(3, BaseLines()[3][:len(BaseLines()[3])-1]+`,`+ToolResultMsg("x", "y", `"z"`)+`}`)),
		in("dup-role", withLine(3, strings.Replace(BaseLines()[3], `"role":"user"`, `"role":"user","role":"toolResult"`, 1))),
		in("dup-entry-id", withLine(14, Entry("message", ID(3), ID(6), UserMsg(Q("same id as a user message"))))),
		in("v1-dup-id", Lines(append(v1[:2:2], strings.Replace(v1[2], `"type":"message"`, `"type":"message","id":"a","id":"b"`, 1), v1[3], v1[4], v1[5])...)),
		in("v1-dup-index", Lines(append(v1[:4:4], V1Entry("compaction", `"summary":"s"`, `"tokensBefore":5`, `"firstKeptEntryIndex":3`, `"firstKeptEntryIndex":1`), v1[5])...)),
		in("v1-dup-role-hook", Lines(append(v1[:1:1], V1Entry("message", `"message":{"role":"hookMessage","role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}`))...)),
	}
}

// escapes hold \u escapes for surrogate halves and other code points that
// decode to something else than they look like.
func escapes() []Input {
	text := func(tok string) []byte { return withLine(3, Entry("message", ID(3), ID(2), UserMsg(tok))) }
	id := func(idTok, parentTok string) []byte {
		return withLine(14, RawEntry("message", idTok, parentTok, UserMsg(Q("x"))))
	}
	return []Input{
		in("esc-lone-high", text(`"\ud800"`)),
		in("esc-lone-low", text(`"\udc00"`)),
		in("esc-reversed-pair", text(`"\udc00\ud800"`)),
		in("esc-high-then-ascii", text(`"\ud800\u0041"`)),
		in("esc-high-at-end", text(`"abc\udbff"`)),
		in("esc-valid-pair", text(`"\ud83d\ude00"`)),
		in("esc-truncated", text(`"\ud8"`)),
		in("esc-bad-hex", text(`"\uzzzz"`)),
		in("esc-invalid-escape", text(`"\x41"`)),
		in("esc-id-lone-high", id(`"\ud800"`, Q(ID(6)))),
		in("esc-ids-collide", Lines(append(BaseLines(), RawEntry("message", `"\ud800"`, Q(ID(14)), UserMsg(Q("a"))), RawEntry("message", `"\udbff"`, `"\ud800"`, UserMsg(Q("b"))))...)),
		in("esc-parent-spelled-differently", id(`"ffff0005"`, `"\u0030000000\u0036"`)),
		in("esc-type", withLine(3, strings.Replace(BaseLines()[3], `"type":"message"`, `"type":"m\u0065ssage"`, 1))),
		in("esc-header-type", Lines(append([]string{strings.Replace(Header(3), `"type":"session"`, `"type":"\u0073ession"`, 1)}, BaseLines()[1:]...)...)),
		in("esc-key", withLine(3, strings.Replace(BaseLines()[3], `"parentId"`, `"parent\u0049d"`, 1))),
	}
}

// cycles link entries into parentId cycles through forward references.
func cycles() []Input {
	base := BaseLines()
	return []Input{
		in("cycle-2", Lines(append(base, Entry("message", "c0000001", "c0000002", UserMsg(Q("a"))), Entry("message", "c0000002", "c0000001", UserMsg(Q("b"))))...)),
		in("cycle-3", Lines(append(base,
			Entry("message", "c0000001", "c0000003", UserMsg(Q("a"))),
			Entry("message", "c0000002", "c0000001", UserMsg(Q("b"))),
			Entry("message", "c0000003", "c0000002", UserMsg(Q("c"))))...)),
		in("cycle-self", Lines(append(base, Entry("message", "c0000001", "c0000001", UserMsg(Q("a"))))...)),
		in("cycle-rho", Lines(append(base,
			Entry("message", "c0000001", "c0000002", UserMsg(Q("a"))),
			Entry("message", "c0000002", "c0000001", UserMsg(Q("b"))),
			Entry("message", "c0000003", "c0000002", UserMsg(Q("leaf hangs off the cycle"))))...)),
		in("cycle-header-only-entries", Lines(Header(3),
			Entry("message", "c0000001", "c0000002", UserMsg(Q("a"))),
			Entry("message", "c0000002", "c0000001", UserMsg(Q("b"))))),
		in("cycle-with-label-and-edit", Lines(append(base,
			Entry("message", "c0000001", "c0000003", UserMsg(Q("a"))),
			Entry("label", "c0000002", "c0000001", `"targetId":"c0000003"`, `"label":"loop"`),
			Entry("context_edit", "c0000003", "c0000002", `"targetId":"c0000001"`, `"replacement":null`))...)),
		in("cycle-compaction", Lines(append(base,
			Entry("compaction", "c0000001", "c0000002", `"summary":"s"`, `"tokensBefore":1`, `"firstKeptEntryId":"c0000002"`),
			Entry("message", "c0000002", "c0000001", UserMsg(Q("b"))))...)),
		in("forward-parent", Lines(append(base[:3:3], append([]string{Entry("message", "f0000001", "f0000002", UserMsg(Q("a")))}, append(base[3:], Entry("message", "f0000002", ID(14), UserMsg(Q("b"))))...)...)...)),
		in("missing-parent", Lines(append(base, Entry("message", "c0000001", "nowhere0", UserMsg(Q("a"))))...)),
	}
}

// structure holds references that point at themselves, forward, or
// nowhere.
func structure() []Input {
	base := BaseLines()
	more := func(lines ...string) []byte { return Lines(append(base, lines...)...) }
	return []Input{
		in("label-self", more(Entry("label", "s0000001", ID(14), `"targetId":"s0000001"`, `"label":"me"`))),
		in("label-forward", more(Entry("label", "s0000001", ID(14), `"targetId":"s0000002"`, `"label":"later"`), Entry("message", "s0000002", "s0000001", UserMsg(Q("x"))))),
		in("label-cleared", more(Entry("label", "s0000001", ID(14), `"targetId":"00000003"`))),
		in("edit-self", more(Entry("context_edit", "s0000001", ID(14), `"targetId":"s0000001"`, `"replacement":null`))),
		in("edit-header", more(Entry("context_edit", "s0000001", ID(14), `"targetId":`+Q(SessionID), `"replacement":{"content":"x"}`))),
		in("edit-no-replacement", more(Entry("context_edit", "s0000001", ID(14), `"targetId":"00000003"`))),
		in("branch-summary-root", more(Entry("branch_summary", "s0000001", "", `"fromId":"root"`, `"summary":"from root"`))),
		in("branch-summary-self", more(Entry("branch_summary", "s0000001", ID(14), `"fromId":"s0000001"`, `"summary":"s"`))),
		in("compaction-first-kept-self", more(Entry("compaction", "s0000001", ID(14), `"summary":"s"`, `"tokensBefore":1`, `"firstKeptEntryId":"s0000001"`))),
		in("compaction-first-kept-forward", more(Entry("compaction", "s0000001", ID(14), `"summary":"s"`, `"tokensBefore":1`, `"firstKeptEntryId":"s0000002"`), Entry("message", "s0000002", "s0000001", UserMsg(Q("x"))))),
		in("compaction-first-kept-missing", more(Entry("compaction", "s0000001", ID(14), `"summary":"s"`, `"tokensBefore":1`, `"firstKeptEntryId":"nowhere0"`))),
		in("compaction-retained-tail", more(Entry("compaction", "s0000001", ID(14), `"summary":"s"`, `"tokensBefore":1`, `"firstKeptEntryId":"s0000001"`, `"retainedTail":[{"role":"user","content":"x","timestamp":1},{"role":"toolResult","toolCallId":"nope","toolName":"bash","content":[],"isError":false,"timestamp":1}]`))),
		in("tool-result-orphan", more(Entry("message", "s0000001", ID(14), ToolResultMsg("nope", "bash", Q("x"))))),
		in("tool-call-args-null", more(Entry("message", "s0000001", ID(14), AssistantMsg(ToolCallBlock("c", "bash", "null"), Usage("1", "0"))))),
		in("tool-call-args-string", more(Entry("message", "s0000001", ID(14), AssistantMsg(ToolCallBlock("c", "bash", `"{}"`), Usage("1", "0"))))),
		in("unknown-type", more(Entry("mystery", "s0000001", ID(14)))),
		in("type-not-string", more(strings.Replace(Entry("x", "s0000001", ID(14)), `"type":"x"`, `"type":{"a":1}`, 1))),
		in("id-not-string", more(RawEntry("message", `12345678`, Q(ID(14)), UserMsg(Q("x"))))),
		in("id-empty", more(RawEntry("message", `""`, Q(ID(14)), UserMsg(Q("x"))))),
		in("parent-not-string", more(RawEntry("message", `"s0000001"`, `{"id":"00000003"}`, UserMsg(Q("x"))))),
		in("message-not-object", more(Entry("message", "s0000001", ID(14), `"message":"hello"`))),
		in("content-null", more(Entry("message", "s0000001", ID(14), `"message":{"role":"user","content":null,"timestamp":1}`))),
		in("image-huge-base64-ish", more(Entry("message", "s0000001", ID(14), `"message":{"role":"user","content":[{"type":"image","data":"`+strings.Repeat("QUJD", 4096)+`","mimeType":"image/png"}],"timestamp":1}`))),
		in("hook-message-v3", more(Entry("message", "s0000001", ID(14), `"message":{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}`))),
		in("parent-session-self", Lines(append([]string{Header(3, `"parentSession":"./parent-session-self.jsonl"`)}, base[1:]...)...)),
	}
}
