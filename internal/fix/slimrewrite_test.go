package fix

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"

	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// sessionLines writes a version-3 session of the given entry lines (each
// a JSON object without the header's fields) and returns its path.
func sessionLines(t *testing.T, lines ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Entry builders for the generated sessions.
func msgEntry(id, parent, message string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":%s}`, id, p, message)
}

func userMsg(content string) string {
	return `{"role":"user","content":` + content + `,"timestamp":1767225601000}`
}

func assistantMsg(content string) string {
	return `{"role":"assistant","content":` + content + `,"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1767225602000}`
}

func toolResultMsg(callID, content, details string) string {
	return `{"role":"toolResult","toolCallId":"` + callID + `","toolName":"read","content":` + content + `,"details":` + details + `,"isError":false,"timestamp":1767225603000}`
}

func customEntry(id, parent, typ, data string) string {
	return fmt.Sprintf(`{"type":"custom","id":"%s","parentId":"%s","timestamp":"2026-01-01T00:00:02.000Z","customType":"%s","data":%s}`, id, parent, typ, data)
}

func textBlockJSON(s string) string { return `{"type":"text","text":` + string(jsonString(s)) + `}` }

func imageBlockJSON(data string) string {
	return `{"type":"image","data":"` + data + `","mimeType":"image/png"}`
}

// pngData is n bytes of fake image, base64.
func pngData(n int) (raw []byte, b64 string) {
	raw = bytes.Repeat([]byte("\x89PNG\r\n\x1a\n"), n/8+1)[:n]
	return raw, base64.StdEncoding.EncodeToString(raw)
}

var placeholderRE = regexp.MustCompile(`\[pisess: removed ([^,]+), [0-9.]+ [KMG]?i?B(?: of base64)? \((\d+) bytes, sha256:([0-9a-f]{64})\), from entry ([^\]]+)\]`)

// TestSlimRewriteBlocks: every block over the limit, in every entry of
// every branch, becomes a placeholder with the kind, size and sha256 of
// what it held; everything else stays byte for byte.
func TestSlimRewriteBlocks(t *testing.T) {
	_, imgB64 := pngData(40 << 10)
	// escapes, multi-byte characters and surrogate pairs across the 64 KiB chunks
	text := strings.Repeat("line\t\"quoted\" é 😀 \\ end\n", 9000)
	small := textBlockJSON("small")
	lines := []string{
		msgEntry("a1", "", userMsg(`[`+small+`,`+imageBlockJSON(imgB64)+`]`)),
		msgEntry("a2", "a1", assistantMsg(`[`+textBlockJSON(text)+`,{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x.png"}}]`)),
		msgEntry("a3", "a2", toolResultMsg("c1", `[`+imageBlockJSON(imgB64)+`,`+imageBlockJSON("not*base64!"+strings.Repeat("A", 5000))+`]`,
			`{"nested":{"content":[`+imageBlockJSON(imgB64)+`]}}`)),
		// a second branch from a1, with a user message given as one string
		msgEntry("b2", "a1", userMsg(string(jsonString(text)))),
		`{"type":"custom_message","id":"b3","parentId":"b2","timestamp":"2026-01-01T00:00:03.000Z","customType":"ci","content":` + string(jsonString(text)) + `,"display":true}`,
		msgEntry("b4", "b3", assistantMsg(`[`+small+`]`)),
	}
	path := sessionLines(t, lines...)
	orig := mustRead(t, path)
	opts := options(t)
	opts.MaxBytes, opts.Backup = 4096, true
	rep, err := SlimRewriteFile(safefile.OS(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Action != "slimmed" || rep.RewriteStats == nil || rep.BlocksRemoved != 6 || rep.Backup == nil {
		t.Fatalf("report %+v", rep)
	}
	if bak := mustRead(t, path+BackupSuffix); !bytes.Equal(bak, orig) {
		t.Error("the backup is not the original")
	}
	got := mustRead(t, path)
	if rep.BytesBefore != int64(len(orig)) || rep.BytesAfter != int64(len(got)) || len(got) > len(orig)/10 {
		t.Errorf("bytes %d → %d, file %d → %d", rep.BytesBefore, rep.BytesAfter, len(orig), len(got))
	}
	noErrors(t, path)
	textSum := sha256.Sum256([]byte(text))
	imgSum := sha256.Sum256([]byte(imgB64)) // the base64 as jq -j prints it
	invalid := "not*base64!" + strings.Repeat("A", 5000)
	invalidSum := sha256.Sum256([]byte(invalid))
	want := []struct{ what, size, sum, entry string }{
		{"image/png", fmt.Sprint(len(imgB64)), hex.EncodeToString(imgSum[:]), "a1"},
		{"text", fmt.Sprint(len(text)), hex.EncodeToString(textSum[:]), "a2"},
		{"image/png", fmt.Sprint(len(imgB64)), hex.EncodeToString(imgSum[:]), "a3"},
		{"image/png", fmt.Sprint(len(invalid)), hex.EncodeToString(invalidSum[:]), "a3"},
		{"text", fmt.Sprint(len(text)), hex.EncodeToString(textSum[:]), "b2"},
		{"text", fmt.Sprint(len(text)), hex.EncodeToString(textSum[:]), "b3"},
	}
	found := placeholderRE.FindAllStringSubmatch(string(got), -1)
	if len(found) != len(want) {
		t.Fatalf("%d placeholders, want %d:\n%s", len(found), len(want), got)
	}
	for i, w := range want {
		if f := found[i]; f[1] != w.what || f[2] != w.size || f[3] != w.sum || f[4] != w.entry {
			t.Errorf("placeholder %d: %q, want %+v", i, f[0], w)
		}
	}
	// the details (not sent to the model) and the small blocks stay; the
	// header and b4 are copied verbatim
	if !bytes.Contains(got, []byte(`"details":{"nested":{"content":[`+imageBlockJSON(imgB64)+`]}}`)) {
		t.Error("the tool result's details changed")
	}
	gotLines, origLines := bytes.Split(got, []byte("\n")), bytes.Split(orig, []byte("\n"))
	for _, i := range []int{0, 6} {
		if !bytes.Equal(gotLines[i], origLines[i]) {
			t.Errorf("line %d changed:\n%s\n%s", i+1, origLines[i], gotLines[i])
		}
	}
	// an edited line keeps its keys in their order
	if !bytes.HasPrefix(gotLines[3], []byte(`{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"[pisess: removed image/png`)) ||
		!bytes.HasSuffix(gotLines[3], []byte(`"isError":false,"timestamp":1767225603000}}`)) {
		t.Errorf("line 4 lost its shape: %s", gotLines[3])
	}

	// A second run has nothing to do, and says the placeholders are there.
	again, err := SlimRewriteFile(safefile.OS(), path, opts)
	if err != nil || again.Action != "unchanged" || again.BlocksRemoved != 0 || again.Placeholders != 6 {
		t.Errorf("second run: %+v %v", again, err)
	}
	if !bytes.Equal(mustRead(t, path), got) {
		t.Error("the second run changed the file")
	}
}

// TestSlimRewriteNeedsAPlaceForTheOriginal: without --backup or --output
// nothing is read or written.
func TestSlimRewriteNeedsAPlaceForTheOriginal(t *testing.T) {
	path := bigSession(t)
	orig := mustRead(t, path)
	opts := options(t)
	opts.MaxBytes = 1024
	if _, err := SlimRewriteFile(safefile.OS(), path, opts); !errors.Is(err, ErrNoPlaceForOriginal) {
		t.Fatalf("err %v", err)
	}
	if !bytes.Equal(mustRead(t, path), orig) {
		t.Error("the file changed")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files beside it", len(entries)-1)
	}
}

// TestSlimRewriteOutput: --output writes the result to a new file and
// leaves the source as it is; a dry run writes nothing.
func TestSlimRewriteOutput(t *testing.T) {
	path := bigSession(t)
	orig := mustRead(t, path)
	opts := options(t)
	opts.MaxBytes = 1024
	opts.Output = filepath.Join(t.TempDir(), "small.jsonl")
	opts.DryRun = true
	rep, err := SlimRewriteFile(safefile.OS(), path, opts)
	if err != nil || rep.Action != "would-slim" || rep.BlocksRemoved == 0 {
		t.Fatalf("dry run: %+v %v", rep, err)
	}
	if _, err := os.Stat(opts.Output); err == nil {
		t.Fatal("the dry run wrote the output")
	}
	opts.DryRun = false
	rep, err = SlimRewriteFile(safefile.OS(), path, opts)
	if err != nil || rep.Action != "slimmed" || rep.Backup != nil {
		t.Fatalf("%+v %v", rep, err)
	}
	if !bytes.Equal(mustRead(t, path), orig) {
		t.Error("the source changed")
	}
	noErrors(t, opts.Output)
	if out := mustRead(t, opts.Output); int64(len(out)) != rep.BytesAfter || len(out) >= len(orig) {
		t.Errorf("output of %d bytes, reported %d, source %d", len(out), rep.BytesAfter, len(orig))
	}
	// never over an existing file
	if _, err := SlimRewriteFile(safefile.OS(), path, opts); !isCode(err, safefile.CreateFailed) {
		t.Errorf("over an existing output: %v", err)
	}
	// nothing to do: no output file
	opts.Output = filepath.Join(t.TempDir(), "none.jsonl")
	opts.MaxBytes = 1 << 20
	if rep, err := SlimRewriteFile(safefile.OS(), path, opts); err != nil || rep.Action != "unchanged" {
		t.Errorf("nothing to do: %+v %v", rep, err)
	}
	if _, err := os.Stat(opts.Output); err == nil {
		t.Error("nothing to do wrote an output")
	}
}

func isCode(err error, code safefile.Code) bool {
	var e *safefile.Error
	return errors.As(err, &e) && e.Code == code
}

// TestSlimRewriteRefuses: files with errors, older versions and oh-my-pi
// files are left alone.
func TestSlimRewriteRefuses(t *testing.T) {
	for _, tt := range []struct {
		file string
		code safefile.Code
	}{
		{"invalid/duplicate_id.jsonl", safefile.RefusedInvalid},
		{"valid/v1-linear.jsonl", safefile.Unsupported},
	} {
		path, orig := copyFile(t, tt.file)
		opts := options(t)
		opts.MaxBytes, opts.Backup = 1024, true
		if _, err := SlimRewriteFile(safefile.OS(), path, opts); !isCode(err, tt.code) {
			t.Errorf("%s: %v, want %s", tt.file, err, tt.code)
		}
		if !bytes.Equal(mustRead(t, path), orig) {
			t.Errorf("%s changed", tt.file)
		}
		if _, err := os.Stat(path + BackupSuffix); err == nil {
			t.Errorf("%s: a backup was made", tt.file)
		}
	}
}

// TestDropCustom: of the custom entries of a type, those a later one of the
// same type supersedes on every branch through them go; the last on each
// branch, other types, and the target of a label stay; children are
// re-parented to the nearest ancestor that stays.
func TestDropCustom(t *testing.T) {
	u := func(id, parent string) string { return msgEntry(id, parent, userMsg(`"hi"`)) }
	lines := []string{
		u("m1", ""),
		customEntry("s1", "m1", "state", `{"n":1}`), // superseded on both branches: s2, s3
		u("m2", "s1"),
		customEntry("s2", "m2", "state", `{"n":2}`), // last on branch m3
		u("m3", "s2"),
		customEntry("s3", "m2", "state", `{"n":3}`), // superseded by s4 on its only branch
		customEntry("o1", "s3", "other", `{}`),      // another type
		customEntry("s4", "o1", "state", `{"n":4}`), // labelled below, and superseded by s5
		u("m4", "s4"),
		`{"type":"label","id":"l1","parentId":"m4","timestamp":"2026-01-01T00:00:03.000Z","targetId":"s4","label":"keep"}`,
		customEntry("s5", "l1", "state", `{"n":5}`), // last
		u("m5", "s5"),
	}
	path := sessionLines(t, lines...)
	orig := mustRead(t, path)
	opts := options(t)
	opts.MaxBytes, opts.Output, opts.DropCustom = 1024, filepath.Join(t.TempDir(), "out.jsonl"), []string{"state"}
	rep, err := SlimRewriteFile(safefile.OS(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.CustomDropped != 2 || rep.Reparented != 2 {
		t.Errorf("dropped %d, re-parented %d; want 2 and 2", rep.CustomDropped, rep.Reparented)
	}
	got := string(mustRead(t, opts.Output))
	for _, gone := range []string{`"id":"s1"`, `"id":"s3"`} {
		if strings.Contains(got, gone) {
			t.Errorf("%s stayed", gone)
		}
	}
	for _, kept := range []string{`"id":"s2"`, `"id":"s4"`, `"id":"s5"`, `"id":"o1"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("%s was dropped", kept)
		}
	}
	for _, moved := range []string{`"id":"m2","parentId":"m1"`, `"id":"o1","parentId":"m2"`} {
		if !strings.Contains(got, moved) {
			t.Errorf("not re-parented: %s", moved)
		}
	}
	noErrors(t, opts.Output)
	// without --drop-custom no custom entry is touched
	opts.Output, opts.DropCustom = filepath.Join(t.TempDir(), "out.jsonl"), nil
	if rep, err := SlimRewriteFile(safefile.OS(), path, opts); err != nil || rep.Action != "unchanged" {
		t.Errorf("without --drop-custom: %+v %v", rep, err)
	}
	if !bytes.Equal(mustRead(t, path), orig) {
		t.Error("the source changed")
	}
}

// TestBlocksOfEveryPlace: session.Blocks finds the content of user, assistant,
// toolResult and custom messages, of custom_message entries and of a
// compaction's retained tail, and nothing else.
func TestBlocksOfEveryPlace(t *testing.T) {
	for _, tt := range []struct {
		entry string
		want  string // kinds, one letter each
	}{
		{msgEntry("a", "", userMsg(`"text"`)), "t"},
		{msgEntry("a", "", userMsg(`[{"type":"text","text":"x"},{"type":"image","data":"QQ==","mimeType":"image/png"}]`)), "ti"},
		{msgEntry("a", "", assistantMsg(`[{"type":"thinking","thinking":"x"},{"type":"toolCall","id":"c","name":"n","arguments":{}},{"type":"text","text":"y"}]`)), "t"},
		{msgEntry("a", "", `{"role":"bashExecution","command":"ls","output":"lots","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}`), ""},
		{msgEntry("a", "", `{"role":"custom","customType":"x","content":[{"type":"image","data":"QQ==","mimeType":"image/jpeg"}],"display":true,"timestamp":1}`), "i"},
		{`{"type":"custom_message","id":"a","parentId":null,"timestamp":"t","customType":"x","content":"text","display":true}`, "t"},
		{`{"type":"custom","id":"a","parentId":null,"timestamp":"t","customType":"x","data":{"content":"text"}}`, ""},
		{`{"type":"compaction","id":"a","parentId":null,"timestamp":"t","summary":"s","firstKeptEntryId":"a","tokensBefore":1,"retainedTail":[{"role":"user","content":"x","timestamp":1},{"role":"compactionSummary","summary":"s"}]}`, "t"},
		{`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"` + session.PlaceholderMark + `x]"}]}}`, "P"},
		// a person's text that starts as a placeholder does but is longer than any placeholder
		{msgEntry("a", "", userMsg(`[{"type":"text","text":"`+session.PlaceholderMark+`text, 4.0 KiB (4139 bytes, sha256:5c5c), from entry zz] `+strings.Repeat("x", 5000)+`"}]`)), "t"},
		{msgEntry("a", "", userMsg(`"`+session.PlaceholderMark+strings.Repeat("x", 5000)+`]"`)), "t"},
	} {
		var tp session.Tape
		if err := tp.Build([]byte(tt.entry)); err != nil {
			t.Fatal(err)
		}
		got := ""
		for b := range session.Blocks(&tp) {
			switch {
			case b.Placeholder:
				got += "P"
			case b.Kind == session.BlockImage:
				got += "i"
			default:
				got += "t"
			}
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.entry, got, tt.want)
		}
	}
}

// TestDropCustomKeepsWhatIsNamed: a superseded custom entry that a
// compaction's firstKeptEntryId or a branch summary's fromId names stays
// (pi keeps nothing before a compaction whose first kept entry is not on
// the path); one nothing names goes.
func TestDropCustomKeepsWhatIsNamed(t *testing.T) {
	u := func(id, parent string) string { return msgEntry(id, parent, userMsg(`"hi"`)) }
	path := sessionLines(t,
		u("m1", ""),
		customEntry("s1", "m1", "state", `{"n":1}`), // named by the compaction
		customEntry("s2", "s1", "state", `{"n":2}`), // named by the branch summary
		customEntry("s3", "s2", "state", `{"n":3}`), // named by nothing: goes
		u("m2", "s3"),
		`{"type":"compaction","id":"c1","parentId":"m2","timestamp":"2026-01-01T00:00:03.000Z","summary":"s","firstKeptEntryId":"s1","tokensBefore":10}`,
		`{"type":"branch_summary","id":"b1","parentId":"c1","timestamp":"2026-01-01T00:00:04.000Z","fromId":"s2","summary":"left"}`,
		customEntry("s4", "b1", "state", `{"n":4}`),
		u("m3", "s4"),
	)
	opts := options(t)
	opts.MaxBytes, opts.Output, opts.DropCustom = 1024, filepath.Join(t.TempDir(), "out.jsonl"), []string{"state"}
	rep, err := SlimRewriteFile(safefile.OS(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := string(mustRead(t, opts.Output))
	if rep.CustomDropped != 1 || strings.Contains(got, `"id":"s3"`) || !strings.Contains(got, `"id":"m2","parentId":"s2"`) {
		t.Errorf("dropped %d:\n%s", rep.CustomDropped, got)
	}
	for _, kept := range []string{`"id":"s1"`, `"id":"s2"`, `"id":"s4"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("%s was dropped", kept)
		}
	}
	noErrors(t, opts.Output)
}

// linklessFS is a file system without hard links.
type linklessFS struct{ safefile.FS }

func (linklessFS) Link(string, string) error { return errors.New("no hard links here") }

// TestSlimRewriteOutputWithoutHardLinks: where the output cannot be
// hard-linked into place it is written again under its name, from the
// start of the source.
func TestSlimRewriteOutputWithoutHardLinks(t *testing.T) {
	path := bigSession(t)
	opts := options(t)
	opts.MaxBytes, opts.Output = 1024, filepath.Join(t.TempDir(), "small.jsonl")
	rep, err := SlimRewriteFile(linklessFS{safefile.OS()}, path, opts)
	if err != nil || rep.Action != "slimmed" {
		t.Fatalf("%+v %v", rep, err)
	}
	if out := mustRead(t, opts.Output); int64(len(out)) != rep.BytesAfter || !bytes.Contains(out, []byte(session.PlaceholderMark)) {
		t.Errorf("output of %d bytes (reported %d)", len(out), rep.BytesAfter)
	}
	noErrors(t, opts.Output)
	entries, _ := os.ReadDir(filepath.Dir(opts.Output))
	if len(entries) != 1 {
		t.Errorf("%d files beside the output", len(entries)-1)
	}
}

// TestLongestPlaceholderIsOne: the longest placeholder slim can write (a
// MIME type and an entry id of control characters, each escaped to six
// bytes, the largest size) is still under session.MinSlimBytes, so it is taken
// for a placeholder and never removed again.
func TestLongestPlaceholderIsOne(t *testing.T) {
	mime, id := strings.Repeat("\x01", 64), strings.Repeat("\x01", 200)
	b := session.Block{Kind: session.BlockImage, MIME: mime}
	text := session.PlaceholderText(b, session.Digest{Size: 1<<63 - 1}, id)
	body := jsonString(text)
	body = body[1 : len(body)-1] // the raw body, without its quotes
	if !session.IsPlaceholder(body) {
		t.Errorf("a placeholder of %d bytes is not taken for one: %s", len(body), body)
	}
}
