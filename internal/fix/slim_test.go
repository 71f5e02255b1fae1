package fix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// callSession is a session whose assistant message (aaaa0002) holds text
// and one tool call per arguments, each call answered.
func callSession(t *testing.T, text string, args ...string) string {
	t.Helper()
	lines := []string{
		`{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"go","timestamp":1}}`,
	}
	blocks := []string{`{"type":"text","text":"` + text + `"}`}
	for i, a := range args {
		blocks = append(blocks, fmt.Sprintf(`{"type":"toolCall","id":"call_%02d_8GN8VQywgpygGZQQYzKa3695","name":"resolve_citation","arguments":%s}`, i, a))
	}
	lines = append(lines, `{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[`+strings.Join(blocks, ",")+`],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}}`)
	parent := "aaaa0002"
	for i := range args {
		id := fmt.Sprintf("bbbb%04d", i)
		lines = append(lines, fmt.Sprintf(`{"type":"message","id":"%s","parentId":"%s","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"call_%02d_8GN8VQywgpygGZQQYzKa3695","toolName":"resolve_citation","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":3}}`, id, parent, i))
		parent = id
	}
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// argsOf is tool call arguments of n bytes as JSON.
func argsOf(n int) string { return `{"q":"` + strings.Repeat("a", n-8) + `"}` }

// repeat is n times the same arguments.
func repeat(args string, n int) []string { return slices.Repeat([]string{args}, n) }

// TestSlimManyToolCalls: an assistant message whose tool calls keep its
// placeholder over the limit has its largest arguments elided (those of
// 256 bytes or less too) until it fits; when the calls alone keep it over,
// it is edited all the same and listed in over with the size it keeps, or,
// when a placeholder would save nothing, only listed. slim succeeds in
// every case.
func TestSlimManyToolCalls(t *testing.T) {
	for _, tt := range []struct {
		name   string
		text   string
		args   []string
		action string
		edited bool   // aaaa0002 has a context_edit
		elided string // per call of the placeholder: x arguments elided, . kept
		over   string // aaaa0002's why in over ("": not over)
	}{
		{"one call, big text", strings.Repeat("y", 2000), []string{`{"c":"x"}`}, "slimmed", true, ".", ""},
		{"large arguments", strings.Repeat("y", 2000), []string{argsOf(40), argsOf(257), argsOf(40)}, "slimmed", true, ".x.", ""},
		{"small arguments, largest first", strings.Repeat("y", 300), []string{argsOf(60), argsOf(250), argsOf(60), argsOf(240), argsOf(60)}, "slimmed", true, ".x.x.", ""},
		{"small arguments, all", strings.Repeat("y", 300), repeat(argsOf(170), 5), "slimmed", true, "xxxxx", ""},
		{"too many calls", strings.Repeat("y", 2000), repeat(`{"c":"x"}`, 12), "slimmed", true, "............", "edited, but the tool calls it keeps"},
		{"too many calls, arguments elided", strings.Repeat("y", 2000), repeat(argsOf(100), 12), "slimmed", true, "xxxxxxxxxxxx", "edited, but the tool calls it keeps"},
		{"too many calls, 10 KiB of text", strings.Repeat("y", 11000), repeat(`{"c":"x"}`, 12), "slimmed", true, "............", "edited, but the tool calls it keeps"},
		{"nothing to save", "y", repeat(`{"c":"x"}`, 12), "unchanged", false, "............", "a placeholder would save nothing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := callSession(t, tt.text, tt.args...)
			orig := mustRead(t, path)
			opts := options(t)
			opts.MaxBytes = 1024
			rep, err := SlimFile(safefile.OS(), path, opts)
			if err != nil || rep.Action != tt.action {
				t.Fatalf("report %+v, %v; want %s", rep, err, tt.action)
			}
			if !bytes.HasPrefix(mustRead(t, path), orig) {
				t.Fatal("the original is not a prefix of the file")
			}
			noErrors(t, path)
			if edited := len(rep.Elided) == 1 && rep.Elided[0].EntryID == "aaaa0002"; edited != tt.edited || len(rep.Elided) > 1 {
				t.Errorf("elided %+v, want aaaa0002 edited %v", rep.Elided, tt.edited)
			}
			_, content := roleAndContent(contextAt(t, path).Messages[1])
			if edited := !bytes.Equal(content, contentOf(t, orig, "aaaa0002")); edited != tt.edited {
				t.Errorf("aaaa0002 in the context edited %v, want %v", edited, tt.edited)
			}
			if got := elisions(t, content); got != tt.elided {
				t.Errorf("arguments elided %q, want %q", got, tt.elided)
			}
			switch {
			case tt.over == "" && len(rep.Over) > 0:
				t.Errorf("over %+v, want none", rep.Over)
			case tt.over == "" && len(content) > 1024:
				t.Errorf("aaaa0002 is still %d bytes", len(content))
			case tt.over != "" && (len(rep.Over) != 1 || rep.Over[0].EntryID != "aaaa0002" || !strings.HasPrefix(rep.Over[0].Why, tt.over)):
				t.Errorf("over %+v, want aaaa0002: %s", rep.Over, tt.over)
			case tt.over != "" && (rep.Over[0].Bytes != len(content) || len(content) <= 1024):
				t.Errorf("over says %d bytes, the context has %d", rep.Over[0].Bytes, len(content))
			}
			// A second run has nothing to do, and says the same of what
			// stays over.
			again, err := SlimFile(safefile.OS(), path, opts)
			if err != nil || again.Action != "unchanged" || len(again.Over) != len(rep.Over) {
				t.Fatalf("second run: %+v, %v", again, err)
			}
			if len(again.Over) > 0 && (again.Over[0].Bytes != len(content) || tt.edited != strings.HasPrefix(again.Over[0].Why, "already slim's placeholder")) {
				t.Errorf("second run: over %+v", again.Over)
			}
		})
	}
}

// elisions says for each toolCall block of content whether its arguments
// were elided (x) or kept (.).
func elisions(t *testing.T, content []byte) string {
	t.Helper()
	var blocks []struct {
		Type      string          `json:"type"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(content, &blocks); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, blk := range blocks {
		switch {
		case blk.Type != "toolCall":
		case bytes.HasPrefix(blk.Arguments, []byte(`{"elided":`)):
			b.WriteByte('x')
		default:
			b.WriteByte('.')
		}
	}
	return b.String()
}

// contextAt is the context of the file's default leaf.
func contextAt(t *testing.T, path string) *project.Context {
	t.Helper()
	s, err := project.LoadFile(path, session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := s.Context(s.DefaultLeaf())
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// contentOf is the content of entry id's message in the session data.
func contentOf(t *testing.T, data []byte, id string) []byte {
	t.Helper()
	s, err := project.Load(bytes.NewReader(data), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	e, _ := s.Lookup(id)
	ctx, err := s.Context(e)
	if err != nil {
		t.Fatal(err)
	}
	_, c := roleAndContent(ctx.Messages[len(ctx.Messages)-1])
	return c
}

// TestSlimCheckRefusesWrongPlans: the self-check fails a plan whose result
// is not what it says: a message over the limit that it does not report,
// a size in over that is not the message's, a message it reports over that
// is not.
func TestSlimCheckRefusesWrongPlans(t *testing.T) {
	path := callSession(t, strings.Repeat("y", 2000), repeat(`{"c":"x"}`, 12)...)
	s, err := project.Open(path, session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	leaf, _ := s.Leaf("")
	plan, err := Slim(s, leaf, 1024, now)
	if err != nil || len(plan.Over) != 1 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	l := &loaded{s: s, leaf: leaf}
	after, err := contextAfter(l, plan.Lines, plan.NewLeaf)
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.Context(leaf)
	if err != nil {
		t.Fatal(err)
	}
	over := plan.Over[0]
	for _, tt := range []struct {
		name string
		ctx  *project.Context
		over []Over
		want string // the error's start ("": none)
	}{
		{"the plan", after, plan.Over, ""},
		{"over not reported", after, nil, "message 1 (entry aaaa0002) is still"},
		{"nothing applied", before, plan.Over, "message 1 (entry aaaa0002) is"},
		{"wrong size", after, []Over{{EntryID: over.EntryID, Role: over.Role, Bytes: over.Bytes - 1, Why: over.Why}}, "message 1 (entry aaaa0002) is"},
		{"reported over, is not", after, append([]Over{{EntryID: "bbbb0000", Role: "toolResult", Bytes: 2000}}, plan.Over...), "message 2 (entry bbbb0000) is"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := slimmed(tt.ctx, 1024, tt.over)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%v", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// slimmed is slimCheck over a whole context.
func slimmed(ctx *project.Context, maxBytes int64, over []Over) error {
	check := newSlimCheck(maxBytes, over)
	for i, msg := range ctx.Messages {
		if err := check.message(msg, ctx.Sources[i]); err != nil {
			return err
		}
	}
	return nil
}
