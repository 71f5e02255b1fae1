package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

func TestRepair(t *testing.T) {
	const h = `{"type":"session","version":3,"id":"s"}`
	const a = `{"type":"a","id":"1","parentId":null}`
	const b = `{"type":"b","id":"2","parentId":"1"}`
	tests := []struct {
		name     string
		in, want string
		zeroTail bool
		fixes    []finding.Code
		linesOut int
	}{
		{"clean file is copied unchanged", h + "\n" + a + "\n", h + "\n" + a + "\n", false, nil, 2},
		{"blank lines and CRLF are kept", h + "\r\n\n  \r\n" + a + "\r\n", h + "\r\n\n  \r\n" + a + "\r\n", false, nil, 4},
		{"torn last line is dropped", h + "\n" + a + "\n" + `{"type":"b","id":"2","par`, h + "\n" + a + "\n", false,
			[]finding.Code{finding.PartialTail}, 2},
		{"torn last line with a torn UTF-8 character", h + "\n" + `{"type":"a","x":"caf` + "\xc3", h + "\n", false,
			[]finding.Code{finding.PartialTail}, 1},
		{"missing final newline is added", h + "\n" + a, h + "\n" + a + "\n", false,
			[]finding.Code{finding.MissingFinalNewline}, 2},
		{"missing final newline in a CRLF file is CRLF", h + "\r\n" + a, h + "\r\n" + a + "\r\n", false,
			[]finding.Code{finding.MissingFinalNewline}, 2},
		{"concatenated objects are split", h + "\n" + a + b + "\n", h + "\n" + a + "\n" + b + "\n", false,
			[]finding.Code{finding.ConcatenatedObjects}, 3},
		{"concatenated with spaces, CRLF, three objects", h + "\r\n " + a + " \t" + b + a + " \r\n", h + "\r\n" + a + "\r\n" + b + "\r\n" + a + "\r\n", false,
			[]finding.Code{finding.ConcatenatedObjects}, 4},
		{"concatenated last line without newline", h + "\n" + a + b, h + "\n" + a + "\n" + b + "\n", false,
			[]finding.Code{finding.ConcatenatedObjects}, 3},
		{"concatenated header line", h + a + "\n", h + "\n" + a + "\n", false,
			[]finding.Code{finding.ConcatenatedObjects}, 2},
		{"zero tail is cut when asked", h + "\n" + a + "\n\x00\x00\x00\x00", h + "\n" + a + "\n", true,
			[]finding.Code{finding.ZeroFill}, 2},
		{"complete object and a torn one on the last line", h + "\n" + a + `{"type":"b","id":"2","par`, h + "\n" + a + "\n", false,
			[]finding.Code{finding.ConcatenatedObjects}, 2},
		{"two complete objects and a torn one, CRLF", h + "\r\n" + a + " " + b + `{"ty`, h + "\r\n" + a + "\r\n" + b + "\r\n", false,
			[]finding.Code{finding.ConcatenatedObjects}, 3},
		{"complete object then NULs, no newline", h + "\n" + a + "\x00\x00\x00", h + "\n" + a + "\n", true,
			[]finding.Code{finding.ZeroFill}, 2},
		{"complete object, torn one, NULs", h + "\r\n" + a + `{"type":"b"` + "\x00", h + "\r\n" + a + "\r\n", true,
			[]finding.Code{finding.ZeroFill}, 2},
		{"torn object then NULs", h + "\n" + a + "\n" + `{"type":"b","id":"2","x":"ab` + "\x00\x00", h + "\n" + a + "\n", true,
			[]finding.Code{finding.ZeroFill}, 2},
		{"several repairs at once", h + "\n" + a + b + "\n" + `{"type":`, h + "\n" + a + "\n" + b + "\n", false,
			[]finding.Code{finding.ConcatenatedObjects, finding.PartialTail}, 3},
		{"torn line mid-file is removed, every other byte kept", h + "\n" + a + "\n" + `{"type":"b","id":"9","parentId":"1","x":"cu` + "\n  \n" + b + "\r\n",
			h + "\n" + a + "\n  \n" + b + "\r\n", false, []finding.Code{finding.TornLine}, 4},
		{"torn line last, with its newline, is removed", h + "\n" + a + "\n" + `{"type":"b","id":"9` + "\n", h + "\n" + a + "\n", false,
			[]finding.Code{finding.TornLine}, 2},
		{"torn line with a cut character", h + "\n" + a + "\n" + "{\"type\":\"b\",\"x\":\"caf\xc3\r\n" + b + "\n", h + "\n" + a + "\n" + b + "\n", false,
			[]finding.Code{finding.TornLine}, 3},
		{"torn line whose id is cut off", h + "\n" + a + "\n" + `{"type":"b","id":"9` + "\n" + `{"type":"c","id":"3","parentId":"9"}` + "\n",
			h + "\n" + a + "\n" + `{"type":"c","id":"3","parentId":"9"}` + "\n", false, []finding.Code{finding.TornLine}, 3},
		{"a compaction keeping from the torn entry does not stop it", h + "\n" + a + "\n" + `{"type":"b","id":"9","x` + "\n" + `{"type":"compaction","id":"3","parentId":"1","firstKeptEntryId":"9"}` + "\n",
			h + "\n" + a + "\n" + `{"type":"compaction","id":"3","parentId":"1","firstKeptEntryId":"9"}` + "\n", false, []finding.Code{finding.TornLine}, 3},
		{"torn line whose id an earlier entry has", h + "\n" + a + "\n" + `{"type":"b","id":"1","parentId":null,"x":"cu` + "\n" + b + "\n",
			h + "\n" + a + "\n" + b + "\n", false, []finding.Code{finding.TornLine}, 3},
		{"second torn line whose id an entry between the torn lines has", h + "\n" + a + "\n" + `{"type":"b","id":"9","x` + "\n" + b + "\n" +
			`{"type":"b","id":"2","x` + "\n" + `{"type":"c","id":"3","parentId":"2"}` + "\n",
			h + "\n" + a + "\n" + b + "\n" + `{"type":"c","id":"3","parentId":"2"}` + "\n", false, []finding.Code{finding.TornLine, finding.TornLine}, 4},
		{"torn line and torn tail", h + "\n" + a + "\n" + `{"type":"b"` + "\n" + b + "\n" + `{"ty`, h + "\n" + a + "\n" + b + "\n", false,
			[]finding.Code{finding.TornLine, finding.PartialTail}, 3},
		{"byte order mark is removed", "\xef\xbb\xbf" + h + "\r\n" + a + "\r\n", h + "\r\n" + a + "\r\n", false,
			[]finding.Code{finding.BOM}, 2},
		{"byte order mark on a one-line file without newline", "\xef\xbb\xbf" + h, h + "\n", false,
			[]finding.Code{finding.BOM, finding.MissingFinalNewline}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := Repair(strings.NewReader(tt.in), &out, RepairOptions{ZeroTail: tt.zeroTail})
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("got %q, want %q", out.String(), tt.want)
			}
			var codes []finding.Code
			for _, f := range res.Fixes {
				codes = append(codes, f.Code)
			}
			if fmt.Sprint(codes) != fmt.Sprint(tt.fixes) || res.Changed != (len(tt.fixes) > 0) || res.LinesOut != tt.linesOut {
				t.Errorf("result %+v, want fixes %v, %d lines", res, tt.fixes, tt.linesOut)
			}
			again, err := Repair(bytes.NewReader(out.Bytes()), &bytes.Buffer{}, RepairOptions{})
			if err != nil || again.Changed {
				t.Errorf("repairing the output again: %+v, %v", again, err)
			}
		})
	}
}

func TestRepairRefuses(t *testing.T) {
	const h = `{"type":"session","version":3,"id":"s"}`
	tests := []struct {
		name   string
		in     string
		limits session.Limits
		code   finding.Code
		line   int
	}{
		{"invalid json", h + "\n{\"a\":}\n", session.Limits{}, finding.InvalidJSON, 2},
		{"invalid json as the complete last line", h + "\n{\"a\":}", session.Limits{}, finding.InvalidJSON, 2},
		{"impossible prefix at the end", h + "\nnot-json", session.Limits{}, finding.InvalidJSON, 2},
		{"torn line that is not the last", `{"type":"se` + "\n" + h + "\n", session.Limits{}, finding.InvalidJSON, 1},
		{"invalid utf8", h + "\n{\"a\":\"\xff\"}\n", session.Limits{}, finding.InvalidUTF8, 2},
		{"trailing data", h + "\n{\"a\":1}x\n", session.Limits{}, finding.TrailingData, 2},
		{"object then garbage then object", h + "\n{\"a\":1}x{\"b\":1}\n", session.Limits{}, finding.TrailingData, 2},
		{"not an object", h + "\n\"s\"\n", session.Limits{}, finding.NotObject, 2},
		{"zero tail without the option", h + "\n\x00\x00", session.Limits{}, finding.ZeroFill, 2},
		{"object then NULs without the option", h + "\n" + h + "\x00\x00", session.Limits{}, finding.ZeroFill, 2},
		{"torn object then NULs without the option", h + "\n{\"a\":\"b\x00\x00", session.Limits{}, finding.ZeroFill, 2},
		{"object then NULs mid-file", h + "\n" + h + "\x00\x00\n" + h + "\n", session.Limits{}, finding.TrailingData, 2},
		{"object and a torn one mid-file", h + "\n" + h + "{\"a\"\n" + h + "\n", session.Limits{}, finding.TrailingData, 2},
		{"torn object then NULs mid-file", h + "\n{\"a\":\"b\x00\x00\n" + h + "\n", session.Limits{}, finding.InvalidJSON, 2},
		{"line too long", h + "\n{\"a\":\"" + strings.Repeat("x", 64) + "\"}\n", session.Limits{MaxLineBytes: 48}, finding.LineTooLong, 2},
		{"file too large", h + "\n" + h + "\n", session.Limits{MaxFileBytes: 50}, finding.FileTooLarge, 2},
		{"nothing would remain", `{"type":"sess`, session.Limits{}, finding.MissingHeader, 1},
		{"torn entry with a child", h + "\n" + `{"type":"a","id":"1","parentId":null}` + "\n" + `{"type":"b","id":"2","parentId":"1","x":"cu` + "\n" +
			`{"type":"c","id":"3","parentId":"2"}` + "\n", session.Limits{}, finding.MissingParent, 4},
		{"torn entry named by a label", h + "\n" + `{"type":"a","id":"1","parentId":null}` + "\n" + `{"type":"b","id":"2","x` + "\n" +
			`{"type":"label","id":"3","parentId":"1","targetId":"2"}` + "\n", session.Limits{}, finding.DanglingReference, 4},
		{"torn entry named on a concatenated line", h + "\n" + `{"type":"a","id":"1","parentId":null}` + "\n" + `{"type":"b","id":"2","x` + "\n" +
			`{"type":"c","id":"3","parentId":"1"}{"type":"c","id":"4","parentId":"2"}` + "\n", session.Limits{}, finding.MissingParent, 4},
		{"torn entry named, its id on a complete entry only after the child", h + "\n" + `{"type":"a","id":"1","parentId":null}` + "\n" + `{"type":"b","id":"2","x` + "\n" +
			`{"type":"c","id":"3","parentId":"2"}` + "\n" + `{"type":"b","id":"2","parentId":"1"}` + "\n", session.Limits{}, finding.MissingParent, 4},
		{"byte order mark before garbage", "\xef\xbb\xbfnot-json\n" + h + "\n", session.Limits{}, finding.InvalidJSON, 1},
		{"empty file", ``, session.Limits{}, finding.MissingHeader, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Repair(strings.NewReader(tt.in), &bytes.Buffer{}, RepairOptions{Limits: tt.limits})
			var e *safefile.Error
			if !errors.As(err, &e) {
				t.Fatalf("want *safefile.Error, got %v", err)
			}
			if e.Code != safefile.RefusedCorrupt || e.Finding == nil || e.Finding.Code != tt.code || e.Line != tt.line || e.ExitCode() != 1 {
				t.Errorf("got %v, want refused %s at line %d", e, tt.code, tt.line)
			}
		})
	}
}
