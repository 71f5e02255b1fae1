package secrets

import (
	"bytes"
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

//go:embed rules.toml
var defaultRules string

// Rule is one kind of secret.
type Rule struct {
	ID       string // the kind reported, e.g. "aws-access-key-id"
	re       *regexp.Regexp
	group    int      // the submatch that is the secret (0: the whole match)
	keywords []string // lower case; the rule runs only on text holding one (none: always)
	kwIndex  []int    // the keywords' indices in the rule set's keyword table
	// window, when not 0, says a match starts at most before bytes ahead
	// of a keyword and ends within window bytes after its start: the regex
	// is run on those spans only, not on the whole text.
	window, before int
	anchored       *regexp.Regexp // the regex as group 1, matching only from the start of a span (with window)
	required       *byteSet       // every match holds one of these bytes (nil: not known; with window)
	entropy        float64        // the secret's Shannon entropy (bits per byte) must reach this
	allow          []allowlist
}

// allowlist says when a match is not a secret after all.
type allowlist struct {
	regexes   []*regexp.Regexp // matched against the secret
	stopwords []string         // lower case; a secret containing one is not a secret
}

// allowed reports whether secret is allow-listed by the rule.
func (r *Rule) allowed(secret string) bool {
	lower := strings.ToLower(secret)
	for _, a := range r.allow {
		if slices.ContainsFunc(a.regexes, func(re *regexp.Regexp) bool { return re.MatchString(secret) }) ||
			slices.ContainsFunc(a.stopwords, func(w string) bool { return strings.Contains(lower, w) }) {
			return true
		}
	}
	return false
}

// accepts reports whether secret, found by the rule, counts.
func (r *Rule) accepts(secret string) bool {
	return secret != "" && entropy(secret) >= r.entropy && !r.allowed(secret)
}

// Rules is a rule set.
type Rules struct {
	rules    []*Rule
	keywords keywordSet // every rule's keywords
	always   bool       // a rule has no keyword: every text must be searched
	assign   *Rule      // the rule for values of secret-named keys (secret-assignment), or nil
	byWord   [][]int    // the indices in rules of the rules of each keyword
}

// assignmentRule is the rule whose value checks also apply to a JSON
// string whose own key names a secret ("apiKey": "…").
const assignmentRule = "secret-assignment"

// Default returns the embedded rule set.
func Default() (*Rules, error) {
	rules, err := LoadRules(strings.NewReader(defaultRules), "rules.toml (embedded)")
	if err != nil {
		return nil, err
	}
	return NewRules(rules), nil
}

// NewRules builds a rule set. A later rule with the ID of an earlier one
// replaces it. The set holds copies of the rules: those given stay as they
// were, free to go into other sets.
func NewRules(rules ...[]*Rule) *Rules {
	rs := &Rules{}
	byID := map[string]int{}
	for _, list := range rules {
		for _, r := range list {
			c := *r // (its kwIndex is the set's own)
			if i, ok := byID[r.ID]; ok {
				rs.rules[i] = &c
				continue
			}
			byID[r.ID] = len(rs.rules)
			rs.rules = append(rs.rules, &c)
		}
	}
	var words []string
	for _, r := range rs.rules {
		if len(r.keywords) == 0 {
			rs.always = true
		}
		words = append(words, r.keywords...)
		if r.ID == assignmentRule {
			rs.assign = r
		}
	}
	var keyed []string
	if rs.assign != nil {
		keyed = secretKeySuffixes
	}
	rs.keywords = newKeywordSet(words, keyed)
	rs.byWord = make([][]int, len(rs.keywords.words))
	for i, r := range rs.rules {
		r.kwIndex = nil
		for _, k := range r.keywords {
			w := rs.keywords.index[k]
			r.kwIndex = append(r.kwIndex, w)
			if !slices.Contains(rs.byWord[w], i) {
				rs.byWord[w] = append(rs.byWord[w], i)
			}
		}
	}
	return rs
}

// ruleFormat is one [[rules]] table of gitleaks' configuration file: the
// fields rules use.
type ruleFormat struct {
	ID          string
	Regex       string
	SecretGroup *int
	Entropy     float64
	Keywords    []string
	Path        string
	// PisessWindow and PisessBefore (pisess only; gitleaks ignores them):
	// a match starts at most PisessBefore bytes before a keyword and ends
	// within PisessWindow bytes after it, so the regex is run on those
	// spans only.
	PisessWindow, PisessBefore int
	Allowlist                  *allowFormat  // gitleaks 8.0-8.20
	Allowlists                 []allowFormat // gitleaks 8.21 and later
}

type allowFormat struct {
	Regexes     []string
	RegexTarget string
	Stopwords   []string
}

// RuleError is a rule file that cannot be used.
type RuleError struct {
	File string
	Rule string // the rule's id, "" for the file as a whole
	Err  error
}

func (e *RuleError) Error() string {
	if e.Rule == "" {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: rule %q: %v", e.File, e.Rule, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

// LoadRules reads rules in gitleaks' TOML format: [[rules]] tables with
// id, regex, secretGroup, entropy, keywords and allowlists (regexes
// matched against the secret, stopwords). Rules that match file paths
// only (path without regex) do not apply to a session and are skipped.
// name names the source in errors.
func LoadRules(r io.Reader, name string) ([]*Rule, error) {
	var f struct{ Rules []ruleFormat }
	if _, err := toml.NewDecoder(r).Decode(&f); err != nil {
		return nil, &RuleError{File: name, Err: err}
	}
	var rules []*Rule
	for i, fr := range f.Rules {
		if fr.Regex == "" && fr.Path != "" {
			continue
		}
		rule, err := fr.compile()
		if err != nil {
			return nil, &RuleError{File: name, Rule: cmp.Or(fr.ID, fmt.Sprintf("#%d", i+1)), Err: err}
		}
		rules = append(rules, rule)
	}
	if len(rules) == 0 {
		return nil, &RuleError{File: name, Err: errors.New("holds no [[rules]] with a regex")}
	}
	return rules, nil
}

// compile checks the rule and compiles its regexes.
func (fr *ruleFormat) compile() (*Rule, error) {
	switch {
	case fr.ID == "":
		return nil, errors.New("has no id")
	case !validKind(fr.ID):
		return nil, errors.New("id must be letters, digits, '-', '_' or '.', at most 64")
	case fr.Regex == "":
		return nil, errors.New("has no regex")
	}
	re, err := regexp.Compile(fr.Regex)
	if err != nil {
		return nil, err
	}
	r := &Rule{ID: fr.ID, re: re, entropy: fr.Entropy}
	if re.NumSubexp() > 0 {
		r.group = 1
	}
	if g := fr.SecretGroup; g != nil {
		if *g < 0 || *g > re.NumSubexp() {
			return nil, fmt.Errorf("secretGroup %d: the regex has %d groups", *g, re.NumSubexp())
		}
		r.group = *g
	}
	for _, k := range fr.Keywords {
		if k = strings.ToLower(k); k != "" {
			r.keywords = append(r.keywords, k)
		}
	}
	allowlists := fr.Allowlists
	if fr.Allowlist != nil {
		allowlists = append(allowlists, *fr.Allowlist)
	}
	for _, a := range allowlists {
		if a.RegexTarget != "" && a.RegexTarget != "secret" {
			return nil, fmt.Errorf("allowlist regexTarget %q: only \"secret\" applies to sessions", a.RegexTarget)
		}
		var al allowlist
		for _, s := range a.Regexes {
			are, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("allowlist: %w", err)
			}
			al.regexes = append(al.regexes, are)
		}
		for _, w := range a.Stopwords {
			al.stopwords = append(al.stopwords, strings.ToLower(w))
		}
		r.allow = append(r.allow, al)
	}
	if fr.PisessWindow > 0 {
		if len(r.keywords) == 0 {
			return nil, errors.New("pisessWindow needs keywords")
		}
		r.window, r.before = fr.PisessWindow, fr.PisessBefore
		// Any start up to before bytes (and one byte of context, for \b)
		// ahead of the keyword, earliest first. The regex is group 1, so
		// the context is never part of the secret: the rule's group g is
		// group g+1 here.
		r.anchored, err = regexp.Compile(fmt.Sprintf(`^[\s\S]{0,%d}?(%s)`, r.before+1, fr.Regex))
		if parsed, perr := syntax.Parse(fr.Regex, syntax.Perl); perr == nil {
			r.required = requiredBytes(parsed, r.keywords)
		}
	}
	return r, err
}

// validKind reports whether id can be shown and written in
// [REDACTED:<id>] without escaping.
func validKind(id string) bool {
	return len(id) <= 64 && strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == ""
}

// Match is one secret in a decoded text: its kind and byte span.
type Match struct {
	Kind       string
	Start, End int
}

// Find returns the secrets in text, sorted, overlapping matches merged.
func (rs *Rules) Find(text string) []Match {
	var sc finder
	return sc.find(rs, []byte(text), nil)
}

// finder searches texts with a rule set, reusing its buffers.
type finder struct {
	runs []ruleRun // per rule of the set, for the text being searched
	// work counts, over every text, the keyword occurrences looked at and
	// the bytes handed to the rules' regexes (tests check that it grows
	// with the text, not with its square).
	work int
}

// ruleRun is where the search of one rule in one text stands. The
// windows around its keywords are counted, then searched, as the keywords
// are found, in order: they are never all kept.
type ruleRun struct {
	ms   []Match // found in windows
	used bool    // a keyword of the rule occurs
	// all: search the whole text instead of windows (there are too many,
	// or one grew too long).
	all     bool
	next    int // keywords before next are inside a match found whole
	windows int // that may hold a match
	budget  int // bytes the windows that grow may still take
	req     reqScan
}

// occurrences says where the keywords of a text occur: anywhere in it, or
// (a string of a line) where the line's search found them.
type occurrences struct {
	line       []byte    // nil: anywhere in the text
	spans      []span    // of the keywords in line
	start, end int       // the text is line[start:end] decoded…
	offs       offsetMap // …with these escapes
}

// each calls visit(at, word) for every keyword occurrence in text (at its
// offset in text, word its index in k), in order.
func (o *occurrences) each(k *keywordSet, text []byte, visit func(at, word int)) {
	if o.line == nil {
		k.each(text, visit)
		return
	}
	k.eachIn(o.line, o.spans, o.start, o.end, func(at, word int) {
		visit(o.offs.dec(at-o.start), word)
	})
}

// find appends the secrets of text to dst.
func (f *finder) find(rs *Rules, text []byte, dst []Match) []Match {
	return f.findAt(rs, text, &occurrences{}, dst)
}

// findAt appends the secrets of text to dst, sorted and merged, given
// where the keywords occur in it: the matches of every rule one of whose
// keywords occurs, or that has none. The occurrences are gone through
// twice (each time found again, not kept): to count each rule's windows,
// then to search them.
func (f *finder) findAt(rs *Rules, text []byte, occs *occurrences, dst []Match) []Match {
	f.reset(len(rs.rules), len(text))
	occs.each(&rs.keywords, text, func(at, word int) {
		f.work++
		for _, i := range rs.byWord[word] {
			f.count(rs.rules[i], &f.runs[i], text, at)
		}
	})
	if f.plan(rs, len(text)) {
		occs.each(&rs.keywords, text, func(at, word int) {
			for _, i := range rs.byWord[word] {
				f.window(rs.rules[i], &f.runs[i], text, at)
			}
		})
	}
	start := len(dst)
	for i, r := range rs.rules {
		switch run := &f.runs[i]; {
		case len(r.kwIndex) == 0 || run.used && (r.window == 0 || run.all):
			dst = f.searchAll(r, text, dst)
		case run.used:
			dst = append(dst, run.ms...)
		}
	}
	return append(dst[:start], merge(dst[start:])...)
}

// reset readies the runs of n rules for a text of size bytes.
func (f *finder) reset(n, size int) {
	if len(f.runs) != n {
		f.runs = make([]ruleRun, n)
	}
	for i := range f.runs {
		f.runs[i] = ruleRun{ms: f.runs[i].ms[:0], budget: 2 * size}
	}
}

// count counts the window of rule r around its keyword at text[at] (the
// keywords come in order) if it may hold a match: a window that holds
// none of the bytes every match of the rule holds (r.required) cannot.
func (f *finder) count(r *Rule, run *ruleRun, text []byte, at int) {
	run.used = true
	if r.window == 0 {
		return
	}
	if from, end := r.span(len(text), at); r.required == nil || run.req.holds(text, r.required, from, end) {
		run.windows++
	}
}

// span returns the window of rule r around a keyword at text[at], in a
// text of size bytes: the match that starts near text[from] (within
// before+1 bytes) and ends by end.
func (r *Rule) span(size, at int) (from, end int) {
	return max(0, at-r.before-1), min(size, at+r.window+1)
}

// plan decides, once the windows are counted, which rules search the
// whole text: those whose windows would cover it more than twice over. It
// reports whether a rule searches windows.
func (f *finder) plan(rs *Rules, size int) (windowed bool) {
	for i, r := range rs.rules {
		run := &f.runs[i]
		run.req = reqScan{}
		run.all = run.windows > 2*size/(r.window+r.before+2)+1
		windowed = windowed || run.used && r.window != 0 && !run.all
	}
	return windowed
}

// window searches the window of rule r around its keyword at text[at]
// (the keywords come in order). A rule with a window runs around each of
// them, unless they are so many that the windows would cover the text
// more than twice over (plan): then, like a rule without a window, over
// the whole text once. A window that cannot hold a match (count) is
// skipped. A match that reaches the end of a window the text goes on
// after may be a longer secret cut short (a greedy run, a $ that matched
// at the cut): it is looked for again in a window twice as long, until it
// ends inside one, so that no tail of it is left; the keywords inside it
// are not looked at again. Either way the work is linear in the text: a
// line made of keywords costs no more than any other.
func (f *finder) window(r *Rule, run *ruleRun, text []byte, at int) {
	if r.window == 0 || run.all || at < run.next {
		return
	}
	from, end := r.span(len(text), at)
	if r.required != nil && !run.req.holds(text, r.required, from, end) {
		return
	}
	m := f.anchored(r, text, from, end)
	for m != nil && from+m[1] == end && end < len(text) {
		end = min(len(text), from+2*(end-from))
		if run.budget -= end - from; run.budget < 0 {
			run.all, run.ms = true, run.ms[:0]
			return
		}
		if m = f.anchored(r, text, from, end); m != nil {
			run.next = from + m[1]
		}
	}
	run.ms = r.accept(text, from, m, r.group+1, run.ms)
}

// reqScan tells, for windows that move on through a text, whether one
// holds a byte of a set, reading each byte once.
type reqScan struct {
	at    int  // found: text[at] is in the set; else no byte of the windows before at is
	found bool // (and none between the first window and at)
}

// holds reports whether text[from:end] holds a byte of set, from and end
// no less than in the call before.
func (s *reqScan) holds(text []byte, set *byteSet, from, end int) bool {
	if s.found && s.at >= from {
		return s.at < end
	}
	i := max(s.at, from)
	for ; i < end; i++ {
		if set[text[i]] {
			s.at, s.found = i, true
			return true
		}
	}
	s.at, s.found = i, false
	return false
}

// anchored returns the submatches of rule r's anchored regex in
// text[from:end] (nil for none).
func (f *finder) anchored(r *Rule, text []byte, from, end int) []int {
	f.work += end - from
	return r.anchored.FindSubmatchIndex(text[from:end])
}

// searchAll appends the matches of rule r in the whole of text to dst.
func (f *finder) searchAll(r *Rule, text []byte, dst []Match) []Match {
	f.work += len(text)
	for _, m := range r.re.FindAllSubmatchIndex(text, -1) {
		dst = r.accept(text, 0, m, r.group, dst)
	}
	return dst
}

// accept appends to dst the secret of the regex match m (submatch indices
// in text[from:], nil for none), its submatch group, if the rule accepts
// it.
func (r *Rule) accept(text []byte, from int, m []int, group int, dst []Match) []Match {
	if m == nil {
		return dst
	}
	s, e := m[2*group], m[2*group+1]
	if s < 0 || !r.accepts(string(text[from+s:from+e])) {
		return dst
	}
	return append(dst, Match{Kind: r.ID, Start: from + s, End: from + e})
}

// merge sorts matches and merges those that overlap (the first keeps its
// kind).
func merge(ms []Match) []Match {
	if len(ms) < 2 {
		return ms
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Start < ms[j].Start })
	out := ms[:1]
	for _, m := range ms[1:] {
		last := &out[len(out)-1]
		if m.Start < last.End {
			last.End = max(last.End, m.End)
			continue
		}
		out = append(out, m)
	}
	return out
}

// secretKeySuffixes end the (lower-case) JSON keys whose string value is
// itself a secret when it looks like one: password, apiKey, access_token…
var secretKeySuffixes = []string{"password", "passwd", "secret", "token", "apikey", "api_key", "api-key", "accesskey", "access_key", "privatekey", "private_key", "secretkey", "secret_key", "secret-key", "access-key", "private-key"}

// secretKey reports whether a member named key (its name decoded, escapes
// and all: "api\u004bey" is apiKey; in any case) may hold a secret as its
// whole value: password, apiKey, access_token…
func (rs *Rules) secretKey(key []byte) bool {
	return rs.assign != nil && slices.ContainsFunc(secretKeySuffixes, func(s string) bool {
		return len(key) >= len(s) && hasPrefixFold(key[len(key)-len(s):], s)
	})
}

// keyedSecret reports whether value, the string of a member secretKey
// accepts, is a secret by the secret-assignment rule's checks (of any
// length, as the rule's value is: a session token runs to a kilobyte).
func (rs *Rules) keyedSecret(value []byte) bool {
	return len(value) >= 8 && !bytes.ContainsAny(value, " \t\r\n\"'`;,(){}[]<>$\\") && rs.assign.accepts(string(value))
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// Join returns base with more added (a rule of more replaces the rule of
// base with its ID).
func Join(base *Rules, more []*Rule) *Rules { return NewRules(base.rules, more) }
