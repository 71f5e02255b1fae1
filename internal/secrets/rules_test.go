package secrets

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

func mustDefault(t testing.TB) *Rules {
	t.Helper()
	rs, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// ruleCases has, for every rule, text that holds a secret of its kind
// (and the secret) and text that comes close but holds none.
var ruleCases = []struct {
	kind     string
	positive string
	secret   string
	negative string
}{
	{"aws-access-key-id", "export AWS_ACCESS_KEY_ID=" + fakeAWS + "\n", fakeAWS,
		"AKIA" + "IOSFODNN7EXAMPLE (the documented example) and AKIA" + "Z7FAKE (too short)"},
	{"anthropic-api-key", "ANTHROPIC_API_KEY=" + fakeAnthropic, fakeAnthropic,
		"sk-ant-" + "api03-" + repeatTo(mixed, 40) + "AA is cut short"},
	{"openai-api-key", `{"key": "` + fakeOpenAI + `"}`, fakeOpenAI,
		"sk-" + "proj-" + repeatTo(mixed, 90) + " has no marker"},
	{"gcp-api-key", "const key = '" + fakeGCP + "';", fakeGCP,
		"AI" + "za" + repeatTo("a", 35) + " has too little entropy"},
	{"github-pat", "git clone https://" + fakeGitHubPAT + "@github.com/x/y", fakeGitHubPAT,
		"gh" + "p_" + repeatTo(mixed, 20) + " is too short"},
	{"github-fine-grained-pat", "token " + fakeGitHubFine, fakeGitHubFine,
		"github_" + "pat_" + repeatTo(mixed, 40) + " is too short"},
	{"github-oauth", "gh auth token: " + fakeGitHubOAu, fakeGitHubOAu,
		"gh" + "o_" + "short"},
	{"github-app-token", "GITHUB_TOKEN=" + fakeGitHubApp, fakeGitHubApp,
		"gh" + "x_" + repeatTo(mixed, 36) + " is no GitHub prefix"},
	{"github-refresh-token", "refresh: " + fakeGitHubRef, fakeGitHubRef,
		"gh" + "r_" + repeatTo(mixed, 35) + "!"},
	{"slack-bot-token", "SLACK_BOT=" + fakeSlackBot, fakeSlackBot,
		"xo" + "xb-" + "12345-" + "notatoken"},
	{"slack-user-token", "user " + fakeSlackUser, fakeSlackUser,
		"xo" + "xp-" + "1234567890-" + repeatTo(mixed, 32)},
	{"slack-app-token", "app " + fakeSlackApp, fakeSlackApp,
		"xa" + "pp-x-nothing"},
	{"slack-webhook-url", "curl https://" + fakeSlackHook, fakeSlackHook,
		"see hooks.slack" + ".com/services/ for details"},
	{"stripe-access-token", "stripe.api_key = \"" + fakeStripe + "\"", fakeStripe,
		"sk_" + "live_" + "short and pk_" + "live_" + repeatTo(mixed, 24)},
	{"private-key", "$ cat id_rsa\n" + fakePrivateKey + "\n$ ", fakePrivateKey,
		"-----BEGIN" + " RSA PRIVATE KEY-----\n(cut)\n-----END RSA PRIVATE KEY-----"},
	{"jwt", "Authorization: Bearer " + fakeJWT + "\n", fakeJWT,
		"ey" + "Jfoo.eyJbar.baz is too short"},
	{"secret-assignment", "DB_PASS" + "WORD=" + fakePassword + "\n", fakePassword,
		"password=process.env.DB_PASSWORD; token: tokenFromRequest; PASS" + "WORD=changeme123; max_tokens=4096; secret=abcdefgh"},
}

func TestRulesPositiveAndNegative(t *testing.T) {
	rs := mustDefault(t)
	covered := map[string]bool{}
	for _, tc := range ruleCases {
		t.Run(tc.kind, func(t *testing.T) {
			covered[tc.kind] = true
			ms := rs.Find(tc.positive)
			if len(ms) != 1 {
				t.Fatalf("positive: %d matches %+v, want 1", len(ms), ms)
			}
			m := ms[0]
			if m.Kind != tc.kind || tc.positive[m.Start:m.End] != tc.secret {
				t.Errorf("positive: %s %q, want %s %q", m.Kind, tc.positive[m.Start:m.End], tc.kind, tc.secret)
			}
			if ms := rs.Find(tc.negative); len(ms) != 0 {
				t.Errorf("negative: %+v (%q)", ms, tc.negative[ms[0].Start:ms[0].End])
			}
		})
	}
	for _, r := range rs.rules {
		if !covered[r.ID] {
			t.Errorf("rule %s has no test case", r.ID)
		}
	}
}

func TestRedactedTextScansClean(t *testing.T) {
	rs := mustDefault(t)
	for _, tc := range ruleCases {
		redacted := strings.ReplaceAll(tc.positive, tc.secret, Redacted(tc.kind))
		if ms := rs.Find(redacted); len(ms) != 0 {
			t.Errorf("%s: the redacted text still matches: %q", tc.kind, redacted[ms[0].Start:ms[0].End])
		}
	}
}

func TestLoadRules(t *testing.T) {
	user := `
[[rules]]
id = "acme-key"
description = "ACME internal key"
regex = '''\b(acme_[0-9a-f]{16})\b'''
keywords = ["acme_"]

[[rules]]
id = "path-only"
path = '''\.pem$'''
`
	rules, err := LoadRules(strings.NewReader(user), "user.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 {
		t.Fatalf("%d rules, want 1 (a path-only rule does not apply)", len(rules))
	}
	rs := NewRules(rules)
	if ms := rs.Find("key acme_" + "0123456789abcdef here"); len(ms) != 1 || ms[0].Kind != "acme-key" {
		t.Errorf("user rule: %+v", ms)
	}
	if ms := rs.Find("acme_" + "0123"); len(ms) != 0 {
		t.Errorf("user rule negative: %+v", ms)
	}

	bad := []struct{ name, text, want string }{
		{"syntax", "[[rules]\n", "user.toml"},
		{"no id", "[[rules]]\nregex = 'x'\n", "has no id"},
		{"bad id", "[[rules]]\nid = 'a\"b'\nregex = 'x'\n", "id must be"},
		{"bad regex", "[[rules]]\nid = 'a'\nregex = '(x'\n", "missing closing )"},
		{"bad group", "[[rules]]\nid = 'a'\nregex = '(x)'\nsecretGroup = 2\n", "secretGroup 2"},
		{"empty", "title = 'x'\n", "holds no [[rules]]"},
		{"line target", "[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.allowlists]]\nregexTarget = 'line'\n", "regexTarget"},
		{"window without keywords", "[[rules]]\nid = 'a'\nregex = 'x'\npisessWindow = 10\n", "pisessWindow needs keywords"},
	}
	for _, tc := range bad {
		_, err := LoadRules(strings.NewReader(tc.text), "user.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestUserRuleReplacesDefault(t *testing.T) {
	user, err := LoadRules(strings.NewReader("[[rules]]\nid = 'aws-access-key-id'\nregex = '''never-(matches)'''\nkeywords=['never']\n"), "u")
	if err != nil {
		t.Fatal(err)
	}
	def := mustDefault(t)
	rs := NewRules(def.rules, user)
	if ms := rs.Find(fakeAWS); len(ms) != 0 {
		t.Errorf("the user's rule should replace the default one: %+v", ms)
	}
}

func TestMask(t *testing.T) {
	for secret, want := range map[string]string{
		fakeAWS: "AKIA…", "abcdefgh": "ab…", "abc": "…", "ééééééééé": "éé…",
	} {
		if got := mask([]byte(secret)); got != want {
			t.Errorf("mask(%q) = %q, want %q", secret, got, want)
		}
	}
}

// A user rule reports the same span whether or not it has a window and
// whether or not its regex has a group: the window's leading context is
// never part of the secret, and redaction removes the secret only.
func TestUserRuleSpans(t *testing.T) {
	rules := []struct{ name, toml string }{
		{"no group", "regex = '''zz-[a-z]{10}'''"},
		{"no group, bounded", `regex = '''\bzz-[a-z]{10}\b'''`},
		{"group", "regex = '''(zz-[a-z]{10})'''"},
		{"group inside", "regex = '''zz-([a-z]{10})'''"},
		{"secretGroup 0", "regex = '''zz-([a-z]{10})'''\nsecretGroup = 0"},
		{"secretGroup 2", "regex = '''(zz)-([a-z]{10})'''\nsecretGroup = 2"},
		{"case-insensitive", "regex = '''(?i)zz-[a-z]{10}'''"},
		{"alternation", "regex = '''zz-[a-z]{10}|yy-[0-9]{4}'''"},
	}
	texts := []struct{ text, secret string }{
		{"x zz-abcdefghij", "zz-abcdefghij"},
		{"zz-abcdefghij", "zz-abcdefghij"},
		{"é zz-abcdefghij y", "zz-abcdefghij"},
		{"éezz-abcdefghij", "zz-abcdefghij"},
		{"a long way in front of it: zz-abcdefghij.", "zz-abcdefghij"},
	}
	for _, rule := range rules {
		for _, window := range []string{"", "pisessWindow = 20", "pisessWindow = 20\npisessBefore = 6"} {
			file := "[[rules]]\nid = 'zz'\nkeywords = ['zz-']\n" + rule.toml + "\n" + window + "\n"
			user, err := LoadRules(strings.NewReader(file), "u")
			if err != nil {
				t.Fatalf("%s: %v", rule.name, err)
			}
			rs := NewRules(user)
			for _, tc := range texts {
				want := tc.secret
				switch rule.name {
				case "group inside", "secretGroup 2":
					want = strings.TrimPrefix(want, "zz-")
				case "no group, bounded":
					if strings.HasPrefix(tc.text, "éezz") {
						want = "" // no \b before zz
					}
				}
				name := fmt.Sprintf("%s/%q/%q", rule.name, window, tc.text)
				ms := rs.Find(tc.text)
				var got []string
				for _, m := range ms {
					got = append(got, tc.text[m.Start:m.End])
				}
				if want == "" && len(got) != 0 || want != "" && (len(got) != 1 || got[0] != want) {
					t.Errorf("%s: found %q, want %q", name, got, want)
				}
				var out bytes.Buffer
				if _, err := Redact(strings.NewReader(userLine("u", tc.text)+"\n"), &out, Options{Rules: rs, Limits: session.DefaultLimits()}); err != nil {
					t.Fatal(err)
				}
				wantText := tc.text
				if want != "" {
					wantText = strings.Replace(tc.text, want, Redacted("zz"), 1)
				}
				if wantLine := userLine("u", wantText) + "\n"; out.String() != wantLine {
					t.Errorf("%s: redacted to\n%s\nwant\n%s", name, out.String(), wantLine)
				}
			}
		}
	}
}

// NewRules leaves the rules it is given as they were: rule sets built
// from the same defaults (and the same user rules) all work, whatever was
// built after them.
func TestNewRulesKeepsItsInputs(t *testing.T) {
	load := func(text string) []*Rule {
		t.Helper()
		rules, err := LoadRules(strings.NewReader(text), "u")
		if err != nil {
			t.Fatal(err)
		}
		return rules
	}
	// A rule that replaces the first default one, with other keywords,
	// moves every other default keyword in the joined keyword table.
	replace := load("[[rules]]\nid = 'aws-access-key-id'\nregex = '''never-(matches)'''\nkeywords = ['never']\n")
	acme := load("[[rules]]\nid = 'acme-key'\nregex = '''\\b(acme_[0-9a-f]{16})\\b'''\nkeywords = ['acme_']\npisessWindow = 30\n")
	const acmeKey = "acme_" + "0123456789abcdef"
	def := mustDefault(t)
	first := Join(def, replace)
	second := Join(def, acme)
	third := NewRules(acme, replace, def.rules) // other orders too
	both := NewRules(def.rules, acme, replace)
	finds := func(name string, rs *Rules, text, kind string, want bool) {
		t.Helper()
		ms := rs.Find(text)
		found := len(ms) == 1 && ms[0].Kind == kind
		if found != want || len(ms) > 1 {
			t.Errorf("%s: %q: found %+v, want %s: %v", name, text, ms, kind, want)
		}
	}
	for _, tc := range ruleCases {
		finds("def", def, tc.positive, tc.kind, true)
		finds("second", second, tc.positive, tc.kind, true)
		isAWS := tc.kind == "aws-access-key-id"
		finds("first", first, tc.positive, tc.kind, !isAWS)
		finds("both", both, tc.positive, tc.kind, !isAWS)
		finds("third", third, tc.positive, tc.kind, true) // the defaults come last and win
	}
	finds("def", def, acmeKey, "acme-key", false)
	finds("first", first, acmeKey, "acme-key", false)
	for name, rs := range map[string]*Rules{"second": second, "third": third, "both": both} {
		finds(name, rs, "key "+acmeKey+" here", "acme-key", true)
	}
	// The sets can be built and used side by side.
	done := make(chan bool)
	for range 4 {
		go func() {
			rs := Join(def, acme)
			done <- len(rs.Find(fakeGitHubPAT+" "+acmeKey)) == 2 && len(def.Find(fakeGitHubPAT)) == 1
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("a rule set built beside others does not find what it should")
		}
	}
}

// A secret longer than its rule's window is found whole: the window
// bounds where the regex runs, not how long a match may be, so a match
// the window's end cut short (an AWS session token in `env` output, a
// JWT whose signature runs past the window, a long Slack token) is
// looked for again over the whole text instead of being cut.
func TestSecretsLongerThanTheWindowAreWhole(t *testing.T) {
	rs := mustDefault(t)
	session := "IQoJ" + repeatTo(mixed+"+/", 900) + "=="
	jwt := "ey" + "JhbGciOiJIUzI1NiJ9." + "ey" + repeatTo(mixed, 4060) + "." + repeatTo(mixed+"_-", 200)
	slack := "xo" + "xb-" + "1234567890-1234567890123-" + repeatTo(mixed, 600)
	cases := []struct{ text, secret, kind string }{
		{"$ env\nAWS_SESSION_" + "TOKEN=" + session + "\nHOME=/root\n", session, "secret-assignment"},
		{"Authorization: Bearer " + jwt + "\nnext", jwt, "jwt"},
		{"SLACK=" + slack + " end", slack, "slack-bot-token"},
	}
	for _, tc := range cases {
		for _, text := range []string{tc.text, tc.text + strings.Repeat(" padding", 3000)} {
			ms := rs.Find(text)
			if len(ms) != 1 || ms[0].Kind != tc.kind || text[ms[0].Start:ms[0].End] != tc.secret {
				var got []string
				for _, m := range ms {
					got = append(got, fmt.Sprintf("%s %d bytes", m.Kind, m.End-m.Start))
				}
				t.Errorf("%s: found %v, want one of %d bytes", tc.kind, got, len(tc.secret))
			}
		}
	}
}

// An assignment inside JSON that is itself inside a string (a curl
// command's -d "{\"password\":\"…\"}", a string literal of code) keeps
// its quotes escaped once the session's own JSON is decoded: the
// escapes do not hide it.
func TestAssignmentInEscapedJSON(t *testing.T) {
	rs := mustDefault(t)
	for _, text := range []string{
		`curl -d "{\"pass` + `word\":\"` + fakePassword + `\"}" https://x`,
		`curl -d "{\"pass` + `word\": \"` + fakePassword + `\"}"`,
		`json.loads("{\\\"api_` + `key\\\": \\\"` + fakePassword + `\\\"}")`,
		`echo 'TOK` + `EN=\'` + fakePassword + `\''`,
	} {
		ms := rs.Find(text)
		if len(ms) != 1 || ms[0].Kind != "secret-assignment" || text[ms[0].Start:ms[0].End] != fakePassword {
			t.Errorf("%s: found %+v, want the password", text, ms)
		}
		if ms := rs.Find(strings.ReplaceAll(text, fakePassword, Redacted("secret-assignment"))); len(ms) != 0 {
			t.Errorf("%s: the redacted text still matches: %+v", text, ms)
		}
	}
}

// A JWT of several kilobytes (an access token carrying many groups or
// roles) is found: the jwt rule's window holds it.
func TestLongJWTIsFound(t *testing.T) {
	rs := mustDefault(t)
	for _, n := range []int{5000, 12000} {
		jwt := "ey" + "JhbGciOiJSUzI1NiJ9." + "ey" + repeatTo(mixed, n) + "." + repeatTo(mixed+"_-", 342)
		text := "Authorization: Bearer " + jwt + "\n" + strings.Repeat("more output ", 2000)
		ms := rs.Find(text)
		if len(ms) != 1 || ms[0].Kind != "jwt" || text[ms[0].Start:ms[0].End] != jwt {
			t.Errorf("a JWT of %d bytes: found %+v", len(jwt), ms)
		}
	}
}
