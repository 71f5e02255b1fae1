package audit_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Builders of schema-valid session lines for the tests. Times are given
// in minutes after 2026-01-01T00:00Z.

func at(minute int) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(minute) * time.Minute)
}

func ms(minute int) int64 { return at(minute).UnixMilli() }

// header is a version-3 header; extra is more JSON members (",…").
func header(id, cwd, extra string) string {
	return fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-01-01T00:00:00.000Z","cwd":%q%s}`, id, cwd, extra)
}

func base(typ, id, parent string, minute int) string {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	return fmt.Sprintf(`"type":%q,"id":%q,"parentId":%s,"timestamp":%q`, typ, id, p, at(minute).Format("2006-01-02T15:04:05.000Z"))
}

// usage is a usage record with totalTokens (total >= 0) or without it.
func usage(in, out, cacheRead, cacheWrite, total int, cost float64) string {
	tot := ""
	if total >= 0 {
		tot = fmt.Sprintf(`,"totalTokens":%d`, total)
	}
	return fmt.Sprintf(`{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":%d%s,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":%v}}`,
		in, out, cacheRead, cacheWrite, tot, cost)
}

func user(id, parent string, minute int, text string) string {
	return fmt.Sprintf(`{%s,"message":{"role":"user","content":%q,"timestamp":%d}}`, base("message", id, parent, minute), text, ms(minute))
}

// assistant answers with text, or with a tool call when call is not "".
func assistant(id, parent string, minute int, provider, model, u, call string) string {
	content := `[{"type":"text","text":"ok"}]`
	stop := "stop"
	if call != "" {
		content = fmt.Sprintf(`[{"type":"toolCall","id":%q,"name":"read","arguments":{"path":"a"}}]`, call)
		stop = "toolUse"
	}
	return fmt.Sprintf(`{%s,"message":{"role":"assistant","content":%s,"api":"messages","provider":%q,"model":%q,"usage":%s,"stopReason":%q,"timestamp":%d}}`,
		base("message", id, parent, minute), content, provider, model, u, stop, ms(minute))
}

func toolResult(id, parent string, minute int, call, u string) string {
	extra := ""
	if u != "" {
		extra = `,"usage":` + u
	}
	return fmt.Sprintf(`{%s,"message":{"role":"toolResult","toolCallId":%q,"toolName":"read","content":[{"type":"text","text":"data"}],"isError":false,"timestamp":%d%s}}`,
		base("message", id, parent, minute), call, ms(minute), extra)
}

// compaction carries its own usage and a retainedTail whose assistant
// usage must never be counted.
func compaction(id, parent string, minute int, u, tailUsage string) string {
	tail := fmt.Sprintf(`[{"role":"user","content":"kept","timestamp":%d},{"role":"assistant","content":[{"type":"text","text":"kept"}],"api":"messages","provider":"tail","model":"tail","usage":%s,"stopReason":"stop","timestamp":%d}]`,
		ms(minute), tailUsage, ms(minute))
	return fmt.Sprintf(`{%s,"summary":"s","tokensBefore":1000,"retainedTail":%s,"usage":%s}`, base("compaction", id, parent, minute), tail, u)
}

func branchSummary(id, parent string, minute int, from, u string) string {
	return fmt.Sprintf(`{%s,"fromId":%q,"summary":"left","usage":%s}`, base("branch_summary", id, parent, minute), from, u)
}

func usageEntry(id, parent string, minute int, provider, model, u string) string {
	return fmt.Sprintf(`{%s,"kind":"title","provider":%q,"model":%q,"usage":%s}`, base("usage", id, parent, minute), provider, model, u)
}

func sessionInfo(id, parent string, minute int, name string) string {
	return fmt.Sprintf(`{%s,"name":%q}`, base("session_info", id, parent, minute), name)
}

// write writes lines (each ending in a newline) to dir/name.
func write(t testing.TB, dir, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
