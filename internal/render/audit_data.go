package render

import (
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pisess/pisess/internal/audit"
	"github.com/pisess/pisess/internal/text"
	"github.com/pisess/pisess/internal/validate"
)

// The data formats of `pisess audit`: JSON lines and CSV.

// ---- JSON ----

// tokensJSON is audit.Tokens with the names of pi's usage records.
type tokensJSON struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Total      int64 `json:"total"`
}

// auditFile is one file's `audit --format json` object: validate's report
// fields, then the audit's.
type auditFile struct {
	*validate.Report
	Verdict       audit.Verdict  `json:"verdict"`
	Stuck         bool           `json:"stuck,omitempty"`       // only on stuck files: `pisess unstick`
	Interleaved   bool           `json:"interleaved,omitempty"` // only where two writers appended: `pisess fork --leaf`
	CWD           string         `json:"cwd"`
	Name          string         `json:"name"`
	Messages      map[string]int `json:"messages"`
	Branches      int            `json:"branches"`
	LeafCount     int            `json:"leafCount"`
	Tokens        tokensJSON     `json:"tokens"`
	Cost          float64        `json:"cost"`
	CostMissing   int            `json:"costMissing"`
	CostZero      int            `json:"costZero"`
	Models        []string       `json:"models"`
	Bytes         int64          `json:"bytes"`
	Modified      string         `json:"modified"`
	FirstActivity string         `json:"firstActivity"`
	LastActivity  string         `json:"lastActivity"`
	Compactions   int            `json:"compactions"`
	UsageRecords  int            `json:"usageRecords"`
	ParentSession *string        `json:"parentSession"`
	FirstMessage  string         `json:"firstMessage"`
}

func fileJSON(row AuditRow) auditFile {
	r, u := row.Record, row.Usage
	f := auditFile{
		Report: row.Report, Verdict: r.Verdict, Stuck: r.Stuck, Interleaved: r.Interleaved, CWD: r.CWD, Name: r.Name,
		Messages: r.Messages, Branches: r.Branches, LeafCount: r.Leaves,
		Tokens: tokensJSON(u.Tokens), Cost: money(u.Cost), CostMissing: u.CostMissing, CostZero: u.CostZero,
		Models: r.Models, Bytes: r.Bytes, Modified: isoTime(r.Modified),
		FirstActivity: isoTime(r.FirstActivity), LastActivity: isoTime(r.LastActivity),
		Compactions: r.Compactions, UsageRecords: u.Records, FirstMessage: r.FirstMessage,
	}
	if f.Models == nil {
		f.Models = []string{}
	}
	if r.ParentSession != "" {
		f.ParentSession = &r.ParentSession
	}
	return f
}

// auditSummary is the last line of `audit --format json`.
type auditSummary struct {
	Summary auditTotals `json:"summary"`
}

type auditTotals struct {
	Files            int            `json:"files"`
	Verdicts         verdictCounts  `json:"verdicts"`
	Entries          int            `json:"entries"`
	UsageRecords     int            `json:"usageRecords"`
	Tokens           tokensJSON     `json:"tokens"`
	Cost             float64        `json:"cost"`
	CostMissing      int            `json:"costMissing"`
	CostZero         int            `json:"costZero"`
	DuplicateEntries int            `json:"duplicateEntries"`
	DuplicateTokens  tokensJSON     `json:"duplicateTokens"`
	DuplicateCost    float64        `json:"duplicateCost"`
	Versions         map[string]int `json:"versions"`
	Omp              int            `json:"omp,omitempty"` // files of the oh-my-pi dialect, when there are any
	Bytes            int64          `json:"bytes"`
	Unreadable       int            `json:"unreadable"`
	Stuck            int            `json:"stuck,omitempty"`      // stuck files, when there are any
	StaleTemps       []string       `json:"staleTemps,omitempty"` // temp files an interrupted rewrite left
	Since            string         `json:"since,omitempty"`
	Until            string         `json:"until,omitempty"` // exclusive
	TZ               string         `json:"tz,omitempty"`
	By               string         `json:"by,omitempty"`
	Groups           []groupTotals  `json:"groups,omitempty"`
}

// verdictCounts keeps the verdicts in a fixed order, all present.
type verdictCounts struct {
	OK             int `json:"ok"`
	NeedsMigration int `json:"needs-migration"`
	Repairable     int `json:"repairable"`
	Corrupt        int `json:"corrupt"`
	TooNew         int `json:"too-new"`
	NotSession     int `json:"not-a-session"`
}

type groupTotals struct {
	Key         string     `json:"key"`
	Project     string     `json:"project,omitempty"`
	Title       string     `json:"title,omitempty"`
	Files       int        `json:"files"`
	Usages      int        `json:"usages"`
	Tokens      tokensJSON `json:"tokens"`
	Cost        float64    `json:"cost"`
	CostMissing int        `json:"costMissing"`
	CostZero    int        `json:"costZero"`
}

func summaryJSON(s audit.Summary, opts audit.Options, unreadable int) auditSummary {
	v := s.Verdicts
	t := auditTotals{
		Files: s.Files,
		Verdicts: verdictCounts{OK: v[audit.OK], NeedsMigration: v[audit.NeedsMigration], Repairable: v[audit.Repairable],
			Corrupt: v[audit.Corrupt], TooNew: v[audit.TooNew], NotSession: v[audit.NotSession]},
		Entries: s.Entries, UsageRecords: s.Usage.Records, Tokens: tokensJSON(s.Usage.Tokens), Cost: money(s.Usage.Cost),
		CostMissing: s.Usage.CostMissing, CostZero: s.Usage.CostZero,
		DuplicateEntries: s.Duplicates.Entries, DuplicateTokens: tokensJSON(s.Duplicates.Usage.Tokens),
		DuplicateCost: money(s.Duplicates.Usage.Cost),
		Versions:      map[string]int{}, Omp: s.Omp, Bytes: s.Bytes, Unreadable: unreadable, Stuck: s.Stuck, By: string(opts.By),
		Since: isoTime(opts.Window.From), Until: isoTime(opts.Window.To),
	}
	if !opts.Window.Open() || opts.By.ByTime() {
		t.TZ = zoneName(opts.Location)
	}
	for ver, n := range s.Versions {
		t.Versions[strconv.Itoa(ver)] = n
	}
	for _, g := range s.Groups {
		t.Groups = append(t.Groups, groupTotals{Key: g.Key, Project: g.Project, Title: g.Title, Files: g.Files,
			Usages: g.Usage.Records, Tokens: tokensJSON(g.Usage.Tokens), Cost: money(g.Usage.Cost),
			CostMissing: g.Usage.CostMissing, CostZero: g.Usage.CostZero})
	}
	return auditSummary{Summary: t}
}

// zoneName names a time zone: its IANA name, or for the local zone the
// abbreviation in use now (CET, UTC).
func zoneName(loc *time.Location) string {
	if loc == nil {
		return "UTC"
	}
	if loc.String() != "Local" {
		return loc.String()
	}
	name, _ := time.Now().In(loc).Zone()
	return name
}

// money rounds a sum of dollars to nano-dollars, dropping float noise
// (0.30000000000000004 → 0.3).
func money(x float64) float64 {
	if r := math.Round(x*1e9) / 1e9; !math.IsInf(r, 0) {
		return r
	}
	return x // too large to have nano-dollar noise (x*1e9 overflows)
}

// isoTime formats a time in UTC, RFC 3339 with milliseconds; "" for zero.
func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// ---- CSV ----

// tokenColumns are the CSV columns of a usage total.
var tokenColumns = []string{"input", "output", "cacheRead", "cacheWrite", "tokens", "cost", "costMissing", "costZero"}

// usageCells are a usage total's CSV cells, in tokenColumns' order.
func usageCells(u audit.Usage) []string {
	t := u.Tokens
	return []string{strconv.FormatInt(t.Input, 10), strconv.FormatInt(t.Output, 10), strconv.FormatInt(t.CacheRead, 10),
		strconv.FormatInt(t.CacheWrite, 10), strconv.FormatInt(t.Total, 10), moneyText(u.Cost),
		strconv.Itoa(u.CostMissing), strconv.Itoa(u.CostZero)}
}

// fileCSV writes one row per file under a header row.
func fileCSV(cw *csv.Writer, rows []AuditRow) {
	head := []string{"file", "verdict", "status", "version", "sessionId", "cwd", "name",
		"entries", "messages", "user", "assistant", "toolResult", "branches", "leafCount", "compactions", "usageRecords"}
	head = append(head, tokenColumns...)
	cw.Write(append(head, "models", "bytes", "modified", "firstActivity", "lastActivity", "parentSession", "firstError", "firstMessage"))
	for _, row := range rows {
		r, u := row.Record, row.Usage
		cells := []string{csvText(r.Path), string(r.Verdict), string(r.Status), strconv.Itoa(r.Version), csvText(r.SessionID),
			csvText(r.CWD), csvText(r.Name), strconv.Itoa(r.Entries), strconv.Itoa(r.MessageCount()), strconv.Itoa(r.Messages["user"]),
			strconv.Itoa(r.Messages["assistant"]), strconv.Itoa(r.Messages["toolResult"]),
			strconv.Itoa(r.Branches), strconv.Itoa(r.Leaves), strconv.Itoa(r.Compactions), strconv.Itoa(u.Records)}
		cells = append(cells, usageCells(u)...)
		cw.Write(append(cells, csvText(strings.Join(r.Models, ";")), strconv.FormatInt(r.Bytes, 10), isoTime(r.Modified),
			isoTime(r.FirstActivity), isoTime(r.LastActivity), csvText(r.ParentSession), csvText(firstErrorText(r)), csvText(r.FirstMessage)))
	}
}

// groupCSV writes the grouped totals under a header row.
func groupCSV(cw *csv.Writer, by audit.Grouping, groups []audit.Group) {
	head := []string{string(by)}
	if by == audit.BySession {
		head = append(head, "project", "title")
	}
	cw.Write(append(append(head, "files", "usages"), tokenColumns...))
	for _, g := range groups {
		cells := []string{csvText(g.Key)}
		if by == audit.BySession {
			cells = append(cells, csvText(g.Project), csvText(g.Title))
		}
		cells = append(cells, strconv.Itoa(g.Files), strconv.Itoa(g.Usage.Records))
		cw.Write(append(cells, usageCells(g.Usage)...))
	}
}

// summaryCSV writes the totals as one row under a header row (--summary).
func summaryCSV(cw *csv.Writer, s audit.Summary) {
	cw.Write(append(append([]string{"files", "entries", "usages"}, tokenColumns...),
		"duplicateEntries", "duplicateTokens", "duplicateCost", "bytes"))
	cells := append([]string{strconv.Itoa(s.Files), strconv.Itoa(s.Entries), strconv.Itoa(s.Usage.Records)}, usageCells(s.Usage)...)
	cw.Write(append(cells, strconv.Itoa(s.Duplicates.Entries), strconv.FormatInt(s.Duplicates.Usage.Tokens.Total, 10),
		moneyText(s.Duplicates.Usage.Cost), strconv.FormatInt(s.Bytes, 10)))
}

// csvText makes a cell from text the files hold (paths, names, messages):
// control characters are escaped, as in every text output, and a cell
// that a spreadsheet would run as a formula (it starts with = + - @, a tab
// or a carriage return) is neutralised with a leading apostrophe, as OWASP
// recommends against CSV injection.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		s = "'" + s
	}
	return text.Safe(s)
}

func moneyText(x float64) string { return strconv.FormatFloat(money(x), 'f', -1, 64) }

// firstErrorText is "line code", or "".
func firstErrorText(r *audit.Record) string {
	if r.FirstError == nil {
		return ""
	}
	return fmt.Sprintf("%d %s", r.FirstError.Line, r.FirstError.Code)
}
