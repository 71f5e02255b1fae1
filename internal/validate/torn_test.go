package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// Lines for the small sessions of TestTornLineBOMAndVersionNull.
const (
	hdr3   = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
	user1  = `{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	asst2  = `{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`
	torn3  = `{"type":"message","id":"aaaa0003","parentId":"aaaa0002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"and th`
	user4  = `{"type":"message","id":"aaaa0004","parentId":"aaaa0002","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"again","timestamp":4}}`
	child4 = `{"type":"message","id":"aaaa0004","parentId":"aaaa0003","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"again","timestamp":4}}`
	label4 = `{"type":"label","id":"aaaa0004","parentId":"aaaa0002","timestamp":"2026-01-01T00:00:04.000Z","targetId":"aaaa0003","label":"x"}`
	hdr1   = `{"type":"session","id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
	v1user = `{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
)

func TestTornLineBOMAndVersionNull(t *testing.T) {
	schemas, err := CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		line int
		code finding.Code
		sev  finding.Severity
		text string // a part of the message ("" = not checked)
	}
	tests := []struct {
		name    string
		lines   []string
		status  Status
		version int
		want    []want
	}{
		{"torn line, resumed after", []string{hdr3, user1, asst2, torn3, user4}, Tolerated, 3,
			[]want{{4, finding.TornLine, finding.Warning, "pi skips the line"}}},
		{"torn line last, with its newline", []string{hdr3, user1, asst2, torn3}, Tolerated, 3,
			[]want{{4, finding.TornLine, finding.Warning, ""}}},
		{"torn line with a cut character", []string{hdr3, user1, asst2, "{\"type\":\"message\",\"id\":\"aaaa0003\",\"x\":\"caf\xc3", user4}, Tolerated, 3,
			[]want{{4, finding.TornLine, finding.Warning, ""}}},
		{"two torn lines", []string{hdr3, user1, torn3, asst2, torn3, user4}, Tolerated, 3,
			[]want{{3, finding.TornLine, finding.Warning, ""}, {5, finding.TornLine, finding.Warning, ""}}},
		{"torn entry with a child", []string{hdr3, user1, asst2, torn3, child4}, Invalid, 3,
			[]want{{4, finding.TornLine, finding.Warning, ""}, {5, finding.MissingParent, finding.Error, "torn on line 4"}}},
		{"torn entry named by a label", []string{hdr3, user1, asst2, torn3, label4}, Invalid, 3,
			[]want{{4, finding.TornLine, finding.Warning, ""}, {5, finding.DanglingReference, finding.Error, "torn on line 4"}}},
		{"torn id unreadable, child names nothing", []string{hdr3, user1, asst2, torn3[:30], child4}, Invalid, 3,
			[]want{{4, finding.TornLine, finding.Warning, ""}, {5, finding.MissingParent, finding.Error, "names no entry in this file"}}},
		{"torn line in a version 1 file", []string{hdr1, v1user, `{"type":"message","timest`, v1user}, Tolerated, 1,
			[]want{{1, finding.NeedsMigration, finding.Warning, ""}, {3, finding.TornLine, finding.Warning, ""}}},
		{"torn header", []string{hdr3[:40], user1, asst2}, Invalid, 0,
			[]want{{1, finding.InvalidJSON, finding.Error, "and more lines follow: a torn write before any session header"}}},
		{"torn header, the only line", []string{hdr3[:40]}, Invalid, 0,
			[]want{{1, finding.InvalidJSON, finding.Error, "(40 bytes) and is the last line: a torn write before any session header"}}},
		{"garbage mid-file is fatal", []string{hdr3, user1, "not-json", child4}, Invalid, 3,
			[]want{{3, finding.InvalidJSON, finding.Error, ""}}},
		{"impossible prefix mid-file is fatal", []string{hdr3, user1, `{"type":"message",,`, child4}, Invalid, 3,
			[]want{{3, finding.InvalidJSON, finding.Error, ""}}},
		{"invalid UTF-8 in a torn line is fatal", []string{hdr3, user1, "{\"type\":\"message\",\"x\":\"\xff abc", child4}, Invalid, 3,
			[]want{{3, finding.InvalidUTF8, finding.Error, ""}}},
		{"torn line after an unsupported header", []string{`{"type":"session","version":9,"id":"s1"}`, torn3, user4}, Invalid, 9,
			[]want{{1, finding.UnsupportedVersion, finding.Error, ""}, {2, finding.TornLine, finding.Warning, ""}}},

		{"bom", []string{"\xef\xbb\xbf" + hdr3, user1, asst2}, Invalid, 3,
			[]want{{1, finding.BOM, finding.Error, "pisess repair"}}},
		{"bom, and the rest is checked", []string{"\xef\xbb\xbf" + hdr3, user1, child4}, Invalid, 3,
			[]want{{1, finding.BOM, finding.Error, ""}, {3, finding.MissingParent, finding.Error, ""}}},
		{"bom before a torn line", []string{"\xef\xbb\xbf" + hdr3, user1, asst2, torn3, user4}, Invalid, 3,
			[]want{{1, finding.BOM, finding.Error, ""}, {4, finding.TornLine, finding.Warning, ""}}},
		{"a bom alone on line 1 is a blank line", []string{"\xef\xbb\xbf", hdr3, user1, asst2}, Valid, 3,
			[]want{{1, finding.BlankLine, finding.Warning, "byte order mark"}}},
		{"a bom and white space on line 1 is a blank line", []string{"\xef\xbb\xbf \r", hdr3, user1, asst2}, Valid, 3,
			[]want{{1, finding.BlankLine, finding.Warning, "pi 1.6.0 skips the line"}}},
		{"bom on line 2 is not a bom", []string{hdr3, "\xef\xbb\xbf" + user1}, Invalid, 3,
			[]want{{2, finding.InvalidJSON, finding.Error, ""}}},

		{"version null is version 1", []string{strings.Replace(hdr1, `"id"`, `"version":null,"id"`, 1), v1user}, Valid, 1,
			[]want{{1, finding.NeedsMigration, finding.Warning, ""}}},
		{"version \"1\" is unsupported", []string{strings.Replace(hdr1, `"id"`, `"version":"1","id"`, 1), v1user}, Invalid, 0,
			[]want{{1, finding.UnsupportedVersion, finding.Error, ""}}},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", tt.name, workers), func(t *testing.T) {
				input := strings.Join(tt.lines, "\n") + "\n"
				rep, err := Stream("t.jsonl", strings.NewReader(input), Options{Limits: session.DefaultLimits(), Schemas: schemas, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Status != tt.status || rep.Version != tt.version {
					t.Errorf("status %s version %d, want %s %d", rep.Status, rep.Version, tt.status, tt.version)
				}
				if len(rep.Findings) != len(tt.want) {
					t.Fatalf("findings %v, want %v", rep.Findings, tt.want)
				}
				for i, w := range tt.want {
					f := rep.Findings[i]
					if f.Line != w.line || f.Code != w.code || f.Severity != w.sev || !strings.Contains(f.Message, w.text) {
						t.Errorf("finding %d = %s, want line %d %s %s containing %q", i, f, w.line, w.sev, w.code, w.text)
					}
				}
			})
		}
	}
}
