package secrets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// jsonString encodes s as JSON.stringify would.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

const header = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`

func userLine(id, text string) string {
	return `{"type":"message","id":"` + id + `","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":` + jsonString(text) + `}],"timestamp":1}}`
}

// hostileSession holds secrets in every place a session keeps text, and
// lines of every shape.
func hostileSession() (string, []Finding) {
	lines := []string{
		"\uFEFF" + header,
		userLine("u1", "my key is "+fakeAWS+" ok"),
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"curl -H 'Authorization: Bearer ` + fakeJWT + `'","apiKey":"` + fakePassword + `"}}],"usage":{"totalTokens":5}}}`,
		`{"type":"message","id":"t1","parentId":"a1","message":{"role":"toolResult","content":[{"type":"text","text":` + jsonString("é\u2028\"x\"\n"+fakePrivateKey+"\n😀 done") + `}]}}` + "\r",
		`{"type":"custom","id":"e1","parentId":"t1","data":{"note":"\u0067h` + fakeGitHubPAT[2:] + `"}}`,
		`{"type":"custom","id":"c2","parentId":"e1"}{"type":"custom","id":"c3","parentId":"c2","data":"` + fakeStripe + `"}`,
		`{"type":"custom","id":"x1","data":"` + fakeSlackBot + `" broken`,
		userLine("u2", "nothing here, just tokens and passwords"),
		`{"type":"custom","id":"torn","data":"` + fakeGCP,
	}
	text := strings.Join(lines[:3], "\n") + "\n" + lines[3] + "\n" + strings.Join(lines[4:], "\n")
	want := []Finding{
		{Line: 2, EntryID: "u1", Pointer: "/message/content/0/text", Kind: "aws-access-key-id"},
		{Line: 3, EntryID: "a1", Pointer: "/message/content/0/arguments/command", Kind: "jwt"},
		{Line: 3, EntryID: "a1", Pointer: "/message/content/0/arguments/apiKey", Kind: "secret-assignment"},
		{Line: 4, EntryID: "t1", Pointer: "/message/content/0/text", Kind: "private-key"},
		{Line: 5, EntryID: "e1", Pointer: "/data/note", Kind: "github-pat"},
		{Line: 6, EntryID: "c3", Pointer: "/data", Kind: "stripe-access-token"},
		{Line: 7, EntryID: "x1", Pointer: "", Kind: "slack-bot-token"},
		{Line: 9, EntryID: "torn", Pointer: "", Kind: "gcp-api-key"},
	}
	return text, want
}

var allFakes = []string{fakeAWS, fakeAnthropic, fakeOpenAI, fakeGCP, fakeGitHubPAT, fakeGitHubFine, fakeGitHubOAu,
	fakeGitHubApp, fakeGitHubRef, fakeSlackBot, fakeSlackUser, fakeSlackApp, fakeSlackHook, fakeStripe, fakeKeyBody, fakeJWT, fakePassword}

func scanAll(t *testing.T, text string) []Finding {
	t.Helper()
	var got []Finding
	_, err := Scan("f.jsonl", strings.NewReader(text), Options{Rules: mustDefault(t), Limits: session.DefaultLimits()}, func(f Finding) { got = append(got, f) })
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestScanFindsEverywhere(t *testing.T) {
	text, want := hostileSession()
	got := scanAll(t, text)
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d:\n%+v", len(got), len(want), got)
	}
	for i, f := range got {
		w := want[i]
		if f.File != "f.jsonl" || f.Line != w.Line || f.EntryID != w.EntryID || f.Pointer != w.Pointer || f.Kind != w.Kind {
			t.Errorf("finding %d: %+v, want %+v", i, f, w)
		}
		for _, secret := range allFakes {
			if strings.Contains(f.Masked, secret[:8]) {
				t.Errorf("finding %d shows the secret: %q", i, f.Masked)
			}
		}
	}
}

func TestScanCleanSession(t *testing.T) {
	text := header + "\n" + userLine("u1", "the token budget is 4096; password fields are hashed") + "\n"
	if got := scanAll(t, text); len(got) != 0 {
		t.Errorf("findings in a clean session: %+v", got)
	}
}

func redactAll(t *testing.T, text string) (string, RedactResult) {
	t.Helper()
	var out bytes.Buffer
	res, err := Redact(strings.NewReader(text), &out, Options{Rules: mustDefault(t), Limits: session.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), res
}

func TestRedactKeepsEverythingElse(t *testing.T) {
	text, want := hostileSession()
	out, res := redactAll(t, text)
	if res.Count != len(want) {
		t.Errorf("%d redacted, want %d", res.Count, len(want))
	}
	for _, secret := range allFakes {
		if strings.Contains(out, secret) {
			t.Errorf("the output still holds %.12s…", secret)
		}
	}
	if got := scanAll(t, out); len(got) != 0 {
		t.Errorf("the redacted file still has secrets: %+v", got)
	}
	inLines, outLines := strings.Split(text, "\n"), strings.Split(out, "\n")
	if len(inLines) != len(outLines) {
		t.Fatalf("%d lines became %d", len(inLines), len(outLines))
	}
	for i := range inLines {
		in, o := inLines[i], outLines[i]
		if json.Valid([]byte(strings.TrimSuffix(strings.TrimPrefix(in, "\uFEFF"), "\r"))) != json.Valid([]byte(strings.TrimSuffix(strings.TrimPrefix(o, "\uFEFF"), "\r"))) {
			t.Errorf("line %d: JSON validity changed:\n%s", i+1, o)
		}
		// Outside the [REDACTED:…] markers, the bytes are the original's.
		prefix := commonPrefix(in, o)
		suffix := commonSuffix(in[len(prefix):], o[len(prefix):])
		mid := o[len(prefix) : len(o)-len(suffix)]
		if in != o && !strings.HasPrefix(mid, "[REDACTED:") {
			t.Errorf("line %d: changed outside a secret: %q", i+1, mid)
		}
	}
	if !strings.HasPrefix(out, "\uFEFF") || !strings.Contains(out, "}\r\n") || strings.HasSuffix(out, "\n") {
		t.Errorf("BOM, CRLF or the missing final newline were not kept")
	}
	// The decoded JSON around the secret is unchanged.
	var entry struct {
		Message struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSuffix(outLines[3], "\r")), &entry); err != nil {
		t.Fatal(err)
	}
	wantText := "é\u2028\"x\"\n" + Redacted("private-key") + "\n😀 done"
	if entry.Message.Content[0].Text != wantText {
		t.Errorf("decoded text %q, want %q", entry.Message.Content[0].Text, wantText)
	}
}

func commonPrefix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[:i]
}

func commonSuffix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return a[len(a)-i:]
}

func TestRedactCleanIsIdentical(t *testing.T) {
	text := header + "\r\n" + userLine("u1", "nothing secret \u00e9 \\u0041") + "\n\n"
	out, res := redactAll(t, text)
	if out != text || res.Count != 0 {
		t.Errorf("a clean file changed: %q", out)
	}
}

func TestRedactRefusesLongLine(t *testing.T) {
	text := header + "\n" + userLine("u1", strings.Repeat("x", 200)) + "\n"
	var out bytes.Buffer
	_, err := Redact(strings.NewReader(text), &out, Options{Rules: mustDefault(t), Limits: session.Limits{MaxLineBytes: 150}})
	if _, ok := err.(*LineError); !ok {
		t.Errorf("error %v, want a *LineError", err)
	}
}

func TestDecodeStringOffsets(t *testing.T) {
	raw := []byte(`a\n\u00e9\ud83d\ude00\"b`)
	text, offs := decodeString(raw, nil, nil)
	if string(text) != "a\né😀\"b" {
		t.Fatalf("decoded %q", text)
	}
	wantOffs := []int{0, 1, 3, 3, 9, 9, 9, 9, 21, 23, 24}
	for i, want := range wantOffs {
		if got := offs.raw(i); got != want {
			t.Errorf("offset %d maps to %d, want %d", i, got, want)
		}
	}
}

func TestWalkerPointers(t *testing.T) {
	raw := []byte(`{"a":[1,"x",{"b/c~":"y","n":null}],"d":{"":"z"},"e\u0041":"w"}`)
	var w walker
	var got []string
	err := w.walk(raw, func(s, e int, _ bool) { got = append(got, w.pointerWith(nil)+"="+string(raw[s:e])) })
	if err != nil {
		t.Fatal(err)
	}
	want := "/a/1=x /a/2/b~1c~0=y /d/=z /eA=w"
	if strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
	for _, bad := range []string{`{"a":"x`, `{"a":1}}`, `{"a":[1}`} {
		if err := w.walk([]byte(bad), func(int, int, bool) {}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// A member name written with escapes is decoded as encoding/json decoded
// it before keyString stopped using it: lone and paired surrogates, the
// short escapes, a \u0000.
func TestKeyStringDecodesEscapes(t *testing.T) {
	for _, key := range []string{`e\u0041`, `\ud83d\ude00`, `\ud800`, `\ud800\u0041`, `\ud800\ud800`, `\udc00x`,
		`\"\\\/\b\f\n\r\t`, `\u0000`, `a\u00e9b`, `passw\u006frd`} {
		raw := []byte(`{"` + key + `":"v"}`)
		var want string
		if err := json.Unmarshal([]byte(`"`+key+`"`), &want); err != nil {
			t.Fatal(err)
		}
		w := walker{raw: raw}
		if got := w.keyString([2]int{2, 2 + len(key)}); got != want {
			t.Errorf("%s: keyString %q, encoding/json %q", key, got, want)
		}
	}
}

// The fast path (keywords found once per line, strings without one
// skipped) finds what searching every string in full finds.
func TestFastPathAgreesWithFullSearch(t *testing.T) {
	rs := mustDefault(t)
	full := *rs
	full.always = true
	var b strings.Builder
	b.WriteString(header + "\n")
	for i, tc := range ruleCases {
		for j, text := range []string{tc.positive, tc.negative, "é\n\"" + tc.positive + "\"\t😀", "x\\" + tc.positive, strings.ToUpper(tc.positive)} {
			b.WriteString(userLine(fmt.Sprintf("u%d-%d", i, j), text) + "\n")
		}
	}
	text := b.String()
	collect := func(rules *Rules) []Finding {
		var got []Finding
		if _, err := Scan("f", strings.NewReader(text), Options{Rules: rules, Limits: session.DefaultLimits()}, func(f Finding) { got = append(got, f) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	fast, slow := collect(rs), collect(&full)
	if len(fast) < len(ruleCases)*2 {
		t.Errorf("only %d findings", len(fast))
	}
	if fmt.Sprint(fast) != fmt.Sprint(slow) {
		t.Errorf("fast path:\n%v\nfull search:\n%v", fast, slow)
	}
}

// A line made of keywords costs work linear in its length, not its
// square, and little of it: a byte is handed to the regexes and looked at
// for a member name a few times at most. The work is counted (keyword
// occurrences looked at, bytes handed to a regex, bytes read to tell
// member names), not timed, so a loaded machine cannot fail the test.
// Without the windows' fallback to one pass over the text, the work per
// byte of these lines is 7 to 1,300 (it is at most 2.4); with a run of
// word characters read again for each keyword in it, it grows with the
// line (500 to 670 per byte at 4 kB, ten times that at 40 kB).
func TestDenseKeywordsCostLinearWork(t *testing.T) {
	rules := mustDefault(t)
	work := func(text string) int {
		ls := &lineScanner{rules: rules}
		rd := session.NewReader(strings.NewReader(text), session.DefaultLimits())
		rd.DeferClassify()
		for rd.Next() {
			ls.scanLine(rd.Line())
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		return ls.finder.work + ls.names.read
	}
	shapes := map[string]func(kw string, n int) string{
		"one string": func(kw string, n int) string { return userLine("u", strings.Repeat(kw, n/len(kw))) },
		"text":       func(kw string, n int) string { return strings.Repeat(kw, n/len(kw)) },
		"strings": func(kw string, n int) string {
			return `{"type":"custom","id":"c","data":["` + strings.Repeat(kw+`","`, n/(len(kw)+3)) + `"]}`
		},
	}
	for _, kw := range []string{"-----BEGIN ", "eyJ", "token=", "AKIA", "ghp_", "xoxb-", "password: ", "aB3", "\\u0041", "\\u0041KIA"} {
		for name, shape := range shapes {
			small, big := 4_000, 40_000
			ws, wb := work(header+"\n"+shape(kw, small)+"\n"), work(header+"\n"+shape(kw, big)+"\n")
			if ws > 4*small || wb > 4*big || wb > 12*ws {
				t.Errorf("%q, %s: work %d for %d bytes, %d for %d: not linear", kw, name, ws, small, wb, big)
			}
		}
	}
}

// A long line dense with keywords near which no secret can be (the
// brief's 50 MB line of "token token …": no "=" or ":" follows any) costs
// little work and little memory: no rule's regex runs over it, and the
// keyword occurrences are not all kept at once. Work is counted and
// memory measured (bytes allocated by scanning the line, which is read
// first), not time, so a loaded machine cannot fail the test. Before,
// the secret-assignment rule's regex ran over the whole text (work 1.2
// per byte, 46 s for 50 MB) and the line's occurrences were kept in lists
// of 16 bytes each (8 bytes allocated per byte of the line, 1 GB).
func TestDenseKeywordsWithoutSecretsCostLittle(t *testing.T) {
	rules := mustDefault(t)
	const n = 1 << 20
	shapes := map[string]func(kw string) string{
		"one string": func(kw string) string { return userLine("u", strings.Repeat(kw, n/len(kw))) },
		"text":       func(kw string) string { return strings.Repeat(kw, n/len(kw)) },
		"strings": func(kw string) string {
			return `{"type":"custom","id":"c","data":["` + strings.Repeat(kw+`","`, n/(len(kw)+3)) + `"]}`
		},
	}
	for _, kw := range []string{"token ", "Password, ", "secret-", "API_KEY ", "-----BEGIN ", "eyJ", "credential; "} {
		for name, shape := range shapes {
			rd := session.NewReader(strings.NewReader(header+"\n"+shape(kw)+"\n"), session.DefaultLimits())
			rd.DeferClassify()
			rd.Next()
			rd.Next()
			l := rd.Line()
			ls := &lineScanner{rules: rules}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			hits := len(ls.scanLine(l))
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			if hits != 0 || ls.finder.work > n/2 || alloc > n/8 {
				t.Errorf("%q, %s: %d secrets, work %d, %d bytes allocated for a line of %d bytes", kw, name, hits, ls.finder.work, alloc, len(l.Raw))
			}
		}
	}
}

// A finding's pointer names the members on the way to the string, and a
// member's name may itself be a secret (an object keyed by token): the
// pointer shows it redacted, as scan never shows a secret.
func TestPointerNeverShowsASecret(t *testing.T) {
	text := header + "\n" + `{"type":"custom","id":"c1","parentId":null,"data":{"` + fakeAWS + `":[{"x/` + fakeStripe + `~":"` + fakeGitHubPAT + `"}]}}` + "\n"
	got := scanAll(t, text)
	want := "/data/" + Redacted("aws-access-key-id") + "/0/x~1" + Redacted("stripe-access-token") + "~0"
	if len(got) != 1 || got[0].Pointer != want || got[0].Kind != "github-pat" {
		t.Errorf("findings %+v, want one github-pat at %s", got, want)
	}
}

// A member named like a secret is known by its name decoded: escapes in
// the name (which JSON.stringify does not write, but JSON allows) do not
// hide it.
func TestEscapedMemberNameIsKeyed(t *testing.T) {
	for _, name := range []string{`api\u004bey`, `\u0070assword`, `access_\u0074oken`} {
		text := header + "\n" + `{"type":"custom","id":"c1","parentId":null,"data":{"` + name + `":"` + fakePassword + `"}}` + "\n"
		got := scanAll(t, text)
		if len(got) != 1 || got[0].Kind != "secret-assignment" {
			t.Errorf("%s: findings %+v, want one secret-assignment", name, got)
		}
		if out, _ := redactAll(t, text); strings.Contains(out, fakePassword) {
			t.Errorf("%s: redacted to %s", name, out)
		}
	}
}

// A line that holds no object (a torn last line, a corrupt line) is
// searched with its escapes decoded, as the strings of an object are: a
// key at the start of a line of output (after \n or \t) is a key there
// too, and the escapes around it stay as they were.
func TestTornLineIsSearchedDecoded(t *testing.T) {
	torn := `{"type":"message","id":"t1","message":{"role":"toolResult","content":[{"type":"text","text":"$ cat keys\n` +
		fakeAWS + `\n\t` + fakeGitHubPAT + `\r\n\u0041KIA` + fakeAWS[4:] + ` end\n`
	text := header + "\n" + torn
	got := scanAll(t, text)
	if len(got) != 3 {
		t.Fatalf("%d findings, want 3: %+v", len(got), got)
	}
	for i, kind := range []string{"aws-access-key-id", "github-pat", "aws-access-key-id"} {
		if f := got[i]; f.Line != 2 || f.Kind != kind || f.EntryID != "t1" || f.Pointer != "" || f.Length != 20+20*(i%2) {
			t.Errorf("finding %d: %+v, want %s", i, f, kind)
		}
	}
	out, res := redactAll(t, text)
	want := header + "\n" + `{"type":"message","id":"t1","message":{"role":"toolResult","content":[{"type":"text","text":"$ cat keys\n` +
		Redacted("aws-access-key-id") + `\n\t` + Redacted("github-pat") + `\r\n` + Redacted("aws-access-key-id") + ` end\n`
	if res.Count != 3 || out != want {
		t.Errorf("redacted %d to\n%s\nwant\n%s", res.Count, out, want)
	}
}

// A finding names its entry by id, and an id may itself be a secret (a
// crafted or foreign file): it is shown redacted, on an object line and
// on a line searched as text.
func TestEntryIDNeverShowsASecret(t *testing.T) {
	text := header + "\n" + `{"type":"custom","id":"` + fakeAWS + `","parentId":null,"data":"` + fakeGitHubPAT + `"}` + "\n" +
		`{"type":"custom","id":"` + fakeStripe + `","data":"torn ` + fakeGitHubPAT
	got := scanAll(t, text)
	if len(got) != 4 {
		t.Fatalf("%d findings, want 4: %+v", len(got), got)
	}
	for _, f := range got {
		for _, secret := range allFakes {
			if strings.Contains(f.EntryID, secret) {
				t.Errorf("line %d: the entry id shows a secret: %s", f.Line, f.EntryID)
			}
		}
	}
	if got[0].EntryID != Redacted("aws-access-key-id") || got[3].EntryID != Redacted("stripe-access-token") {
		t.Errorf("entry ids %q and %q", got[0].EntryID, got[3].EntryID)
	}
}

// A member named like a secret holds it however long it is (an AWS
// session token, an OAuth access token of several hundred bytes), as the
// same assignment written as text does.
func TestLongKeyedValueIsFound(t *testing.T) {
	session := "IQoJ" + repeatTo(mixed+"+/", 900) + "=="
	for _, value := range []string{repeatTo(mixed, 201), session} {
		for _, name := range []string{"sessionToken", "access_token", "clientSecret"} {
			text := header + "\n" + `{"type":"custom","id":"c1","parentId":null,"data":{"` + name + `":"` + value + `"}}` + "\n"
			got := scanAll(t, text)
			if len(got) != 1 || got[0].Kind != "secret-assignment" || got[0].Length != len(value) {
				t.Errorf("%s of %d bytes: findings %+v", name, len(value), got)
			}
		}
	}
}

// A member named secretKey (MinIO, S3-compatible and many SDK
// configurations), secret_key or secret-key holds a secret as its whole
// value, as one named secret or accessKey does; so do access-key and
// private-key, as api-key does.
func TestSecretKeyMemberIsKeyed(t *testing.T) {
	for _, name := range []string{"secretKey", "secret_key", "AWS_SECRET_KEY", "secret-key", "x-access-key", "gpg-private-key"} {
		text := header + "\n" + `{"type":"custom","id":"c1","parentId":null,"data":{"` + name + `":"` + fakePassword + `"}}` + "\n"
		if got := scanAll(t, text); len(got) != 1 || got[0].Kind != "secret-assignment" {
			t.Errorf("%s: findings %+v, want one secret-assignment", name, got)
		}
	}
}
