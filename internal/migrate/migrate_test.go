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

const sid = "s1"

// withIDs replaces {L<n>} in want with the id a v1 migration gives the
// record on physical line n; ids are drawn in order of recordLines, as
// Migrate does.
func withIDs(want string, recordLines ...int) string {
	gen := session.NewIDs(sid)
	for _, n := range recordLines {
		want = strings.ReplaceAll(want, fmt.Sprintf("{L%d}", n), gen.For(n))
	}
	return want
}

func migrateString(t *testing.T, in string) (string, Result, error) {
	t.Helper()
	var out bytes.Buffer
	res, err := Migrate(strings.NewReader(in), &out, session.DefaultLimits())
	return out.String(), res, err
}

func TestMigrate(t *testing.T) {
	const h1 = `{"type":"session","id":"s1","timestamp":"t","cwd":"/"}`
	const h1v3 = `{"type":"session","id":"s1","timestamp":"t","cwd":"/","version":3}`
	tests := []struct {
		name     string
		in, want string
		records  []int // record lines (for {Ln} ids)
		from     int
		notes    []finding.Code
	}{
		{
			name: "v1 header and entries get version, ids and a parent chain at the end",
			in:   h1 + "\n" + `{"type":"message","message":{"role":"user","content":"hi","timestamp":1}}` + "\n" + `{"type":"model_change","provider":"p","modelId":"m"}` + "\n",
			want: h1v3 + "\n" + `{"type":"message","message":{"role":"user","content":"hi","timestamp":1},"id":"{L2}","parentId":null}` + "\n" +
				`{"type":"model_change","provider":"p","modelId":"m","id":"{L3}","parentId":"{L2}"}` + "\n",
			records: []int{2, 3}, from: 1,
		},
		{
			name:    "v1 explicit version 1 is edited in place",
			in:      `{"type":"session","version":1,"id":"s1"}` + "\n" + `{"type":"x"}` + "\n",
			want:    `{"type":"session","version":3,"id":"s1"}` + "\n" + `{"type":"x","id":"{L2}","parentId":null}` + "\n",
			records: []int{2}, from: 1,
		},
		{
			name:    "version null is version 1, edited in place",
			in:      `{"type":"session","version":null,"id":"s1"}` + "\n" + `{"type":"x"}` + "\n",
			want:    `{"type":"session","version":3,"id":"s1"}` + "\n" + `{"type":"x","id":"{L2}","parentId":null}` + "\n",
			records: []int{2}, from: 1,
		},
		{
			name: "numbers, escapes, whitespace and key order are kept",
			in:   h1 + "\n" + `{ "type" : "usage" , "n" : 1.50e+2 , "s" : "\u00e9\"\\" }` + "\n",
			want: h1v3 + "\n" + `{ "type" : "usage" , "n" : 1.50e+2 , "s" : "\u00e9\"\\","id":"{L2}","parentId":null }` + "\n",
			// the pairs go right after the last value, before its whitespace
			records: []int{2}, from: 1,
		},
		{
			name:    "empty entry object",
			in:      h1 + "\n{}\n{ }\n",
			want:    h1v3 + "\n" + `{"id":"{L2}","parentId":null}` + "\n" + `{"id":"{L3}","parentId":"{L2}" }` + "\n",
			records: []int{2, 3}, from: 1,
		},
		{
			name:    "existing id and parentId keys are assigned in place, like pi",
			in:      h1 + "\n" + `{"id":"old","type":"x","parentId":"zz"}` + "\n",
			want:    h1v3 + "\n" + `{"id":"{L2}","type":"x","parentId":null}` + "\n",
			records: []int{2}, from: 1,
		},
		{
			name:    "escaped id key is the id key",
			in:      h1 + "\n" + `{"\u0069d":"old","type":"x"}` + "\n",
			want:    h1v3 + "\n" + `{"\u0069d":"{L2}","type":"x","parentId":null}` + "\n",
			records: []int{2}, from: 1,
		},
		{
			name: "blank lines are kept and not counted by firstKeptEntryIndex; CRLF kept; torn tail kept",
			in: h1 + "\r\n\r\n" + `{"type":"message"}` + "\r\n" + "   \n" + `{"type":"compaction","summary":"s","firstKeptEntryIndex":1,"tokensBefore":5}` + "\n" +
				`{"type":"message","id":"cu`,
			want: h1v3 + "\r\n\r\n" + `{"type":"message","id":"{L3}","parentId":null}` + "\r\n" + "   \n" +
				`{"type":"compaction","summary":"s","tokensBefore":5,"id":"{L5}","parentId":"{L3}","firstKeptEntryId":"{L3}"}` + "\n" +
				`{"type":"message","id":"cu`,
			records: []int{3, 5}, from: 1,
		},
		{
			name:    "firstKeptEntryIndex may name the compaction itself",
			in:      h1 + "\n" + `{"type":"a"}` + "\n" + `{"type":"compaction","firstKeptEntryIndex":2}`,
			want:    h1v3 + "\n" + `{"type":"a","id":"{L2}","parentId":null}` + "\n" + `{"type":"compaction","id":"{L3}","parentId":"{L2}","firstKeptEntryId":"{L3}"}`,
			records: []int{2, 3}, from: 1,
		},
		{
			name:    "firstKeptEntryIndex may name a later record (two passes)",
			in:      h1 + "\n" + `{"firstKeptEntryIndex":2,"type":"compaction","summary":"s"}` + "\n" + `{"type":"a"}` + "\n",
			want:    h1v3 + "\n" + `{"type":"compaction","summary":"s","id":"{L2}","parentId":null,"firstKeptEntryId":"{L3}"}` + "\n" + `{"type":"a","id":"{L3}","parentId":"{L2}"}` + "\n",
			records: []int{2, 3}, from: 1,
		},
		{
			name:    "firstKeptEntryIndex in the middle; existing firstKeptEntryId assigned in place",
			in:      h1 + "\n" + `{"type":"compaction","firstKeptEntryId":"x","firstKeptEntryIndex":1,"summary":"s"}` + "\n",
			want:    h1v3 + "\n" + `{"type":"compaction","firstKeptEntryId":"{L2}","summary":"s","id":"{L2}","parentId":null}` + "\n",
			records: []int{2}, from: 1,
		},
		{
			name:    "firstKeptEntryIndex outside a compaction is not touched",
			in:      h1 + "\n" + `{ "firstKeptEntryIndex" : 1 }` + "\n",
			want:    h1v3 + "\n" + `{ "firstKeptEntryIndex" : 1,"id":"{L2}","parentId":null }` + "\n",
			records: []int{2}, from: 1,
		},
		{
			name: "index naming the header or nothing keeps nothing before the compaction, with a note",
			in: h1 + "\n" + `{"type":"compaction","firstKeptEntryIndex":0}` + "\n" + `{"type":"compaction","firstKeptEntryIndex":99}` + "\n" +
				`{"type":"compaction","firstKeptEntryIndex":1.5}` + "\n",
			want: h1v3 + "\n" + `{"type":"compaction","id":"{L2}","parentId":null,"firstKeptEntryId":"{L2}"}` + "\n" +
				`{"type":"compaction","id":"{L3}","parentId":"{L2}","firstKeptEntryId":"{L3}"}` + "\n" +
				`{"type":"compaction","id":"{L4}","parentId":"{L3}","firstKeptEntryId":"{L4}"}` + "\n",
			records: []int{2, 3, 4}, from: 1,
			notes: []finding.Code{finding.DanglingFirstKept, finding.DanglingFirstKept, finding.DanglingFirstKept},
		},
		{
			// JSON.parse reads 1e400 as Infinity, a number naming no entry
			// (validate: a dangling_first_kept warning); it was refused as
			// "not a number".
			name: "index too large for a double names no entry",
			in: h1 + "\n" + `{"type":"compaction","firstKeptEntryIndex":1e400}` + "\n" +
				`{"type":"compaction","firstKeptEntryIndex":-1E+999}` + "\n",
			want: h1v3 + "\n" + `{"type":"compaction","id":"{L2}","parentId":null,"firstKeptEntryId":"{L2}"}` + "\n" +
				`{"type":"compaction","id":"{L3}","parentId":"{L2}","firstKeptEntryId":"{L3}"}` + "\n",
			records: []int{2, 3}, from: 1,
			notes: []finding.Code{finding.DanglingFirstKept, finding.DanglingFirstKept},
		},
		{
			name:    "float index that is an integer counts",
			in:      h1 + "\n" + `{"type":"a"}` + "\n" + `{"type":"compaction","firstKeptEntryIndex":1.0e0}` + "\n",
			want:    h1v3 + "\n" + `{"type":"a","id":"{L2}","parentId":null}` + "\n" + `{"type":"compaction","id":"{L3}","parentId":"{L2}","firstKeptEntryId":"{L2}"}` + "\n",
			records: []int{2, 3}, from: 1,
		},
		{
			name:    "v1 hookMessage also becomes custom",
			in:      h1 + "\n" + `{"type":"message","message":{"role":"hookMessage","customType":"c"}}` + "\n",
			want:    h1v3 + "\n" + `{"type":"message","message":{"role":"custom","customType":"c"},"id":"{L2}","parentId":null}` + "\n",
			records: []int{2}, from: 1,
		},
		{
			name: "v1: a torn line is copied unchanged and is not a record",
			in: h1 + "\n" + `{"type":"a"}` + "\n" + `{"type":"b","x":"cu` + "\n" + `{"type":"c"}` + "\n" +
				`{"type":"compaction","firstKeptEntryIndex":2}` + "\n",
			want: h1v3 + "\n" + `{"type":"a","id":"{L2}","parentId":null}` + "\n" + `{"type":"b","x":"cu` + "\n" +
				`{"type":"c","id":"{L4}","parentId":"{L2}"}` + "\n" + `{"type":"compaction","id":"{L5}","parentId":"{L4}","firstKeptEntryId":"{L4}"}` + "\n",
			records: []int{2, 4, 5}, from: 1,
		},
		{
			name:    "missing final newline stays missing",
			in:      h1 + "\n" + `{"type":"a"}`,
			want:    h1v3 + "\n" + `{"type":"a","id":"{L2}","parentId":null}`,
			records: []int{2}, from: 1,
		},
		{
			name: "v2: version edited in place, hookMessage role becomes custom, nothing else",
			in: `{"type":"session","version":2,"id":"s1"}` + "\n" +
				`{"type":"message","id":"a","parentId":null,"message":{"content":"hookMessage","role" : "hookMessage","x":{"role":"hookMessage"}}}` + "\n" +
				`{"type":"custom","id":"b","parentId":"a","message":{"role":"hookMessage"}}` + "\n" +
				`{"type":"message","id":"c","parentId":"b","message":{"role":"user"}}` + "\n",
			want: `{"type":"session","version":3,"id":"s1"}` + "\n" +
				`{"type":"message","id":"a","parentId":null,"message":{"content":"hookMessage","role" : "custom","x":{"role":"hookMessage"}}}` + "\n" +
				`{"type":"custom","id":"b","parentId":"a","message":{"role":"hookMessage"}}` + "\n" +
				`{"type":"message","id":"c","parentId":"b","message":{"role":"user"}}` + "\n",
			from: 2,
		},
		{
			name: "v3 is copied unchanged",
			in:   `{"type":"session","version":3,"id":"s1"}` + "\r\n\n" + `{"type":"message","id":"a","parentId":null,"message":{"role":"hookMessage"}}`,
			want: `{"type":"session","version":3,"id":"s1"}` + "\r\n\n" + `{"type":"message","id":"a","parentId":null,"message":{"role":"hookMessage"}}`,
			from: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, res, err := migrateString(t, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if want := withIDs(tt.want, tt.records...); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if res.From != tt.from || res.To != 3 || res.Changed != (tt.from < 3) {
				t.Errorf("result %+v, want from %d", res, tt.from)
			}
			var notes []finding.Code
			for _, n := range res.Notes {
				notes = append(notes, n.Code)
			}
			if fmt.Sprint(notes) != fmt.Sprint(tt.notes) {
				t.Errorf("notes %v, want %v", res.Notes, tt.notes)
			}
			again, res2, err := migrateString(t, got)
			if err != nil || again != got || res2.Changed {
				t.Errorf("migrating the output again: changed=%v err=%v", res2.Changed, err)
			}
		})
	}
}

func TestMigrateRefuses(t *testing.T) {
	const h1 = `{"type":"session","id":"s1"}`
	tests := []struct {
		name string
		in   string
		code safefile.Code
		fc   finding.Code
		line int
	}{
		{"empty file", "", safefile.RefusedCorrupt, finding.MissingHeader, 1},
		{"only blank lines", "\n\n", safefile.RefusedCorrupt, finding.MissingHeader, 1},
		{"concatenated objects", h1 + "\n" + `{"type":"a"}{"type":"b"}` + "\n", safefile.RefusedCorrupt, finding.ConcatenatedObjects, 2},
		{"invalid json", h1 + "\n{\"type\":}\n", safefile.RefusedCorrupt, finding.InvalidJSON, 2},
		{"invalid json as the last line", h1 + "\n" + `{"type":"a"}` + "\nnot-json", safefile.RefusedCorrupt, finding.InvalidJSON, 3},
		{"invalid utf8", h1 + "\n{\"type\":\"\xff\"}\n", safefile.RefusedCorrupt, finding.InvalidUTF8, 2},
		{"trailing data", h1 + "\n{\"type\":\"a\"} x\n", safefile.RefusedCorrupt, finding.TrailingData, 2},
		{"not an object", h1 + "\n[1]\n", safefile.RefusedCorrupt, finding.NotObject, 2},
		{"zero fill", h1 + "\n\x00\x00\x00", safefile.RefusedCorrupt, finding.ZeroFill, 2},
		{"misplaced header", h1 + "\n" + h1 + "\n", safefile.RefusedCorrupt, finding.MisplacedHeader, 2},
		{"not a session", `{"version":1,"recordType":"message"}` + "\n", safefile.Unsupported, finding.NotASession, 1},
		{"v4 header", `{"kind":"header","version":4}` + "\n", safefile.Unsupported, finding.UnsupportedVersion, 1},
		{"version 4", `{"type":"session","version":4,"id":"s1"}` + "\n", safefile.Unsupported, finding.UnsupportedVersion, 1},
		{"version as string", `{"type":"session","version":"2","id":"s1"}` + "\n", safefile.Unsupported, finding.UnsupportedVersion, 1},
		{"version 2.5", `{"type":"session","version":2.5,"id":"s1"}` + "\n", safefile.Unsupported, finding.UnsupportedVersion, 1},
		{"header without id", `{"type":"session"}` + "\n", safefile.RefusedCorrupt, finding.Schema, 1},
		{"duplicate id key", h1 + "\n" + `{"type":"a","id":"x","id":"y"}` + "\n", safefile.RefusedCorrupt, finding.Schema, 2},
		{"duplicate parentId key", h1 + "\n" + `{"type":"a","parentId":null,"parentId":null}` + "\n", safefile.RefusedCorrupt, finding.Schema, 2},
		{"duplicate firstKeptEntryIndex key", h1 + "\n" + `{"type":"compaction","firstKeptEntryIndex":1,"firstKeptEntryIndex":1}` + "\n", safefile.RefusedCorrupt, finding.Schema, 2},
		{"duplicate version key", `{"type":"session","version":2,"version":3,"id":"s1"}` + "\n", safefile.RefusedCorrupt, finding.Schema, 1},
		{"byte order mark", "\xef\xbb\xbf" + h1 + "\n", safefile.RefusedCorrupt, finding.BOM, 1},
		{"torn header", `{"type":"sess` + "\n" + `{"type":"a"}` + "\n", safefile.RefusedCorrupt, finding.InvalidJSON, 1},
		{"firstKeptEntryIndex not a number", h1 + "\n" + `{"type":"compaction","firstKeptEntryIndex":"1"}` + "\n", safefile.RefusedCorrupt, finding.Schema, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := migrateString(t, tt.in)
			var e *safefile.Error
			if !errors.As(err, &e) {
				t.Fatalf("want *safefile.Error, got %v", err)
			}
			if e.Code != tt.code || e.Finding == nil || e.Finding.Code != tt.fc || e.Line != tt.line || e.ExitCode() != 1 {
				t.Errorf("got %v (finding %+v), want %s/%s at line %d", e, e.Finding, tt.code, tt.fc, tt.line)
			}
		})
	}
}

func TestMigrateLineTooLongIsRefused(t *testing.T) {
	in := `{"type":"session","id":"s1"}` + "\n" + `{"type":"message","pad":"` + strings.Repeat("x", 100) + `"}` + "\n"
	_, err := Migrate(strings.NewReader(in), &bytes.Buffer{}, session.Limits{MaxLineBytes: 64})
	var e *safefile.Error
	if !errors.As(err, &e) || e.Finding == nil || e.Finding.Code != finding.LineTooLong || e.Line != 2 {
		t.Fatalf("got %v", err)
	}
}

func TestMigrateDetectsChangeBetweenPasses(t *testing.T) {
	first := `{"type":"session","id":"s1"}` + "\n" + `{"type":"a"}` + "\n"
	second := first + `{"type":"b"}` + "\n"
	in := &swappingReader{first: first, second: second}
	_, err := Migrate(in, &bytes.Buffer{}, session.DefaultLimits())
	var e *safefile.Error
	if !errors.As(err, &e) || e.Code != safefile.ChangedDuringRewrite {
		t.Fatalf("got %v, want changed_during_rewrite", err)
	}
}

// swappingReader serves first until the first Seek, then second.
type swappingReader struct {
	first, second string
	r             *strings.Reader
}

func (s *swappingReader) Read(p []byte) (int, error) {
	if s.r == nil {
		s.r = strings.NewReader(s.first)
	}
	return s.r.Read(p)
}

func (s *swappingReader) Seek(off int64, whence int) (int64, error) {
	s.r = strings.NewReader(s.second)
	return s.r.Seek(off, whence)
}

func TestMigrateWriteFailureIsTyped(t *testing.T) {
	in := `{"type":"session","id":"s1"}` + "\n" + `{"type":"a"}` + "\n"
	_, err := Migrate(strings.NewReader(in), failingWriter{}, session.DefaultLimits())
	var e *safefile.Error
	if !errors.As(err, &e) || e.Code != safefile.WriteFailed || e.ExitCode() != 2 {
		t.Fatalf("got %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("boom") }

func TestPeekVersion(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`{"type":"session","id":"s"}` + "\n" + "garbage", 1},
		{"\n" + `{"type":"session","version":2,"id":"s"}`, 2},
		{`{"type":"session","version":3,"id":"s"}` + "\n", 3},
	}
	for _, tt := range tests {
		got, err := PeekVersion(strings.NewReader(tt.in), session.Limits{})
		if err != nil || got != tt.want {
			t.Errorf("%q: got %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	if _, err := PeekVersion(strings.NewReader(`{"kind":"header","version":4}`), session.Limits{}); err == nil {
		t.Error("v4 header: no error")
	}
	var e *safefile.Error
	if _, err := PeekVersion(strings.NewReader("\xef\xbb\xbf"+`{"type":"session","id":"s"}`), session.Limits{}); !errors.As(err, &e) || e.Finding == nil || e.Finding.Code != finding.BOM {
		t.Errorf("byte order mark: got %v, want a bom refusal", err)
	}
}
