package secrets

import "strings"

// The fake secrets of the tests. Each is obviously fake but matches its
// rule; they are built by concatenation so that this file itself does not
// look like it holds secrets to a scanner.

// repeatTo repeats pattern to exactly n bytes.
func repeatTo(pattern string, n int) string {
	return strings.Repeat(pattern, n/len(pattern)+1)[:n]
}

const mixed = "FAKEfake0123456789abcdefGHIJKLmnopqrSTUVWXyz"

var (
	fakeAWS        = "AKIA" + "Z7FAKEQ2TESTK3YW"
	fakeAnthropic  = "sk-ant-" + "api03-" + repeatTo(mixed+"_-", 93) + "AA"
	fakeOpenAI     = "sk-" + "proj-" + repeatTo(mixed, 40) + "T3Blbk" + "FJ" + repeatTo(mixed, 40)
	fakeGCP        = "AI" + "za" + repeatTo("Sy"+mixed, 35)
	fakeGitHubPAT  = "gh" + "p_" + repeatTo(mixed, 36)
	fakeGitHubFine = "github_" + "pat_" + repeatTo(mixed+"_", 82)
	fakeGitHubOAu  = "gh" + "o_" + repeatTo(mixed, 36)
	fakeGitHubApp  = "gh" + "s_" + repeatTo(mixed, 36)
	fakeGitHubRef  = "gh" + "r_" + repeatTo(mixed, 36)
	fakeSlackBot   = "xo" + "xb-" + "1234567890-1234567890123-" + repeatTo(mixed, 24)
	fakeSlackUser  = "xo" + "xp-" + "1234567890-1234567890-1234567890-" + repeatTo(mixed, 32)
	fakeSlackApp   = "xa" + "pp-1-A0FAKE1234-1234567890-" + repeatTo("abcdef0123456789", 40)
	fakeSlackHook  = "hooks.slack" + ".com/services/" + "T0FAKE000/B0FAKE000/" + repeatTo(mixed, 24)
	fakeStripe     = "sk_" + "live_" + repeatTo(mixed, 24)
	fakeKeyBody    = repeatTo("MIIEfakeFAKE0123456789+/", 64) + "\n" + repeatTo("abcdFAKEkey+/", 64)
	fakePrivateKey = "-----BEGIN" + " RSA PRIVATE KEY-----\n" + fakeKeyBody + "\n-----END RSA PRIVATE KEY-----"
	fakeJWT        = "ey" + "JhbGciOiJIUzI1NiJ9" + "." + "ey" + "JzdWIiOiJmYWtlIn0fake" + "." + "FAKEsignature0123_-"
	fakePassword   = "Zq8fake7Rt2Lm9wX"
)
