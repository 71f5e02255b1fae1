package fix

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/safefile"
)

// TestWithoutCallsReadsKeysAsPi: withoutCalls reads a message's keys as
// JSON.parse does, case and all. encoding/json, which it used, matched
// "Content" and "TYPE" to its untagged fields and so edited content pi
// never reads.
func TestWithoutCallsReadsKeysAsPi(t *testing.T) {
	call := `{"type":"toolCall","id":"t1","name":"bash","arguments":{}}`
	removed := `{"type":"text","text":"[tool call t1 (bash) removed by pisess unstick: no result was recorded for it]"}`
	tests := []struct{ name, msg, want string }{
		{"content", `{"role":"assistant","content":[` + call + `]}`, `[` + removed + `]`},
		{"a Content key is not content", `{"role":"assistant","content":[` + call + `],"Content":[{"type":"text","text":"x"}]}`, `[` + removed + `]`},
		{"a TYPE key is no type", `{"role":"assistant","content":[` + call + `,{"TYPE":"toolCall","id":"t1"}]}`, `[` + removed + `,{"TYPE":"toolCall","id":"t1"}]`},
		{"an ID key is no id", `{"role":"assistant","content":[` + call + `,{"type":"toolCall","ID":"t1"}]}`, `[` + removed + `,{"type":"toolCall","ID":"t1"}]`},
	}
	calls := []project.Unpaired{{Kind: project.CallWithoutResult, ToolCallID: "t1", ToolName: "bash"}}
	for _, tt := range tests {
		got, err := withoutCalls([]byte(tt.msg), calls)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: got %s, %v; want %s", tt.name, got, err, tt.want)
		}
	}
	for _, msg := range []string{`[]`, `{"role":"assistant","content":"text"}`, `{"role":"assistant"}`} {
		if _, err := withoutCalls([]byte(msg), calls); err == nil {
			t.Errorf("%s: no error", msg)
		}
	}
}

// TestRecoverHeaderReadsKeysAsPi: the first entry and the hookMessage
// search are read with pi's exact keys. encoding/json took a "Type"
// key for the header's type (so a file pi finds no header in was left
// "unchanged"), an "ID" key for an id (version 3, where pi gives the
// entries version-1 ids) and a "Message" key for the message.
func TestRecoverHeaderReadsKeysAsPi(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "--tmp--")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "2026-01-01T00-00-00-000Z_019c0000-0000-7000-8000-000000000009.jsonl")
	user := `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	hook := `{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"x","timestamp":2},"Message":{"role":"hookMessage"}}`
	for _, tt := range []struct {
		name, content string
		action        string // or the error code
		version       int
	}{
		{"a Type key is no header", `{"Type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}` + "\n" + user + "\n", "not_a_session", 0},
		{"an ID key is no id", `{"type":"message","ID":"a","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n", "recovered", 1},
		{"an id", user + "\n", "recovered", 3},
		{"a Message key is no message", user + "\n" + hook + "\n", "recovered", 3},
		// as before
		{"not JSON", "{\"type\":\n", "invalid_json", 0},
		{"glued objects", user + user + "\n", "invalid_json", 0},
		{"a type that is no string", `{"type":5}` + "\n", "invalid_json", 0},
		{"null", "null\n", "not_a_session", 0},
		{"a null type", `{"type":null}` + "\n", "not_a_session", 0},
		{"a kind", `{"type":"message","kind":"x"}` + "\n", "not_a_session", 0},
		{"a null kind", `{"type":"message","kind":null,"timestamp":"2026-01-01T00:00:01.000Z"}` + " \t\n", "recovered", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(path + BackupSuffix)
			os.WriteFile(path, []byte(tt.content), 0o644)
			rep, err := RecoverHeaderFile(safefile.OS(), path, Options{Validate: options(t).Validate, Cwd: "/tmp"})
			var me *safefile.Error
			switch {
			case errors.As(err, &me) && me.Finding != nil:
				if string(me.Finding.Code) != tt.action {
					t.Errorf("refused %s (%v), want %s", me.Finding.Code, err, tt.action)
				}
			case err != nil:
				t.Errorf("error %v, want %s", err, tt.action)
			case rep.Action != tt.action || rep.Header == nil || rep.Header.Version != tt.version:
				t.Errorf("report %+v (header %+v), want %s version %d", rep, rep.Header, tt.action, tt.version)
			}
		})
	}
}

// TestSlimReadsKeysAsPi: slim sizes, describes and rebuilds the content
// pi reads ("content", "type"), not a "Content" or "TYPE" key
// encoding/json matched to it.
func TestSlimReadsKeysAsPi(t *testing.T) {
	msg := []byte(`{"role":"user","content":"hi","Content":[{"type":"image","data":"AAAA"}],"ROLE":"x"}`)
	if role, content := roleAndContent(msg); role != "user" || string(content) != `"hi"` {
		t.Errorf("roleAndContent = %q, %s", role, content)
	}
	if k := kindOf(msg); k != "text" {
		t.Errorf("kindOf = %q, want text", k)
	}
	if k := kindOf([]byte(`{"content":[{"type":"image"},{"TYPE":"image"},1,{"type":"text"}]}`)); k != "text and 1 image" {
		t.Errorf("kindOf = %q", k)
	}
	asst := []byte(`{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall","id":"a","arguments":{}},{"TYPE":"toolCall","id":"b","arguments":{}}]}`)
	got, err := assistantPlaceholder(asst, "elided", 1<<20)
	if want := `[{"type":"text","text":"elided"},{"type":"toolCall","id":"a","arguments":{}}]`; err != nil || string(got) != want {
		t.Errorf("assistantPlaceholder = %s, %v; want %s", got, err, want)
	}
	for msg, ok := range map[string]bool{`{"role":"assistant"}`: true, `{"content":null}`: true, `{"content":"x"}`: false, `[]`: false} {
		if _, err := assistantPlaceholder([]byte(msg), "elided", 1<<20); (err == nil) != ok {
			t.Errorf("assistantPlaceholder(%s): error %v", msg, err)
		}
	}
}
