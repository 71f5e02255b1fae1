package fix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/pisess/pisess/internal/session"

	"github.com/pisess/pisess/internal/project"
)

// builder makes the entries a repair appends: pi-shaped ids (8 hex
// characters, unique in the file, derived from the session id and the line
// each entry lands on, so the same file gives the same ids), ISO
// timestamps, each entry the child of the previous one.
type builder struct {
	ids    *session.IDs
	line   int       // physical line of the next entry
	leaf   string    // the entry the first one hangs from
	parent string    // the entry the next one hangs from
	now    time.Time // the time written into the entries
	out    bytes.Buffer
	added  []Added
}

// Added describes one appended entry.
type Added struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	Role       string `json:"role,omitempty"`       // message entries
	TargetID   string `json:"targetId,omitempty"`   // context_edit
	ToolCallID string `json:"toolCallId,omitempty"` // toolResult, or the call an edit removes
	ToolName   string `json:"toolName,omitempty"`
	Why        string `json:"why"`
}

// start projects the context of leaf and returns it with a builder that
// appends after the last line of s, hanging from leaf.
func start(s *project.Session, leaf *project.Entry, now time.Time) (*project.Context, *builder, error) {
	ctx, err := s.Context(leaf)
	if err != nil {
		return nil, nil, cycleRefusal(err)
	}
	return ctx, newBuilder(s, leaf, now), nil
}

// newBuilder starts the entries appended after leaf, with ids no entry of
// s has.
func newBuilder(s *project.Session, leaf *project.Entry, now time.Time) *builder {
	taken := make([]string, 0, len(s.Entries))
	for _, e := range s.Entries {
		if e.ID() != "" {
			taken = append(taken, e.ID())
		}
	}
	ids := session.NewIDs(s.Header.ID+"\x00pisess-fix", taken...)
	return &builder{ids: ids, line: lastLine(s) + 1, leaf: leaf.ID(), parent: leaf.ID(), now: now.UTC()}
}

// lastLine is the physical line the file of s ends with: appended lines
// follow it.
func lastLine(s *project.Session) int {
	last := s.Header.Line
	for _, e := range s.Entries {
		last = max(last, e.Line)
	}
	for _, n := range s.Skipped {
		last = max(last, n)
	}
	return last
}

// isoTime is the timestamp format pi writes (JavaScript's toISOString).
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// add writes one entry: type, id, parentId and timestamp first (pi's
// order), then the given members.
func (b *builder) add(a Added, members ...member) {
	a.ID = b.ids.For(b.line)
	b.line++
	var w session.ObjectWriter
	w.String("type", a.Type)
	w.String("id", a.ID)
	if b.parent == "" {
		w.Member("parentId", json.RawMessage("null"))
	} else {
		w.String("parentId", b.parent)
	}
	w.String("timestamp", isoTime(b.now))
	for _, m := range members {
		w.Member(m.key, m.value)
	}
	b.out.Write(w.Bytes())
	b.out.WriteByte('\n')
	b.parent = a.ID
	b.added = append(b.added, a)
}

// toolResult appends an error result for an unanswered call.
func (b *builder) toolResult(call project.Unpaired) {
	text := fmt.Sprintf("No result was recorded for this tool call: the session stopped before %s returned (pi was killed, crashed or lost the connection). Added by pisess unstick; run the tool again if its result is needed.", call.ToolName)
	var m session.ObjectWriter
	m.String("role", "toolResult")
	m.String("toolCallId", call.ToolCallID)
	m.String("toolName", call.ToolName)
	m.Member("content", textContent(text))
	m.Member("isError", json.RawMessage("true"))
	m.Member("timestamp", json.RawMessage(fmt.Sprint(b.now.UnixMilli())))
	b.add(Added{Type: "message", Role: "toolResult", ToolCallID: call.ToolCallID, ToolName: call.ToolName,
		Why: "no result was recorded for the call the context ends with"}, member{"message", m.Bytes()})
}

// contextEdit appends a context_edit of target: replacement null drops
// its messages, otherwise {content: replacement}.
func (b *builder) contextEdit(a Added, replacement json.RawMessage) {
	a.Type = "context_edit"
	repl := json.RawMessage("null")
	if replacement != nil {
		repl = json.RawMessage(`{"content":` + string(replacement) + `}`)
	}
	b.add(a, member{"targetId", jsonString(a.TargetID)}, member{"replacement", repl})
}

// textBlock is {"type":"text","text":text}; textContent the content of
// that one block.
func textBlock(text string) json.RawMessage {
	return json.RawMessage(`{"type":"text","text":` + string(jsonString(text)) + `}`)
}

func textContent(text string) json.RawMessage { return jsonArray([][]byte{textBlock(text)}) }

// jsonArray is the array of the raw JSON values.
func jsonArray(values [][]byte) json.RawMessage {
	return slices.Concat([]byte("["), bytes.Join(values, []byte(",")), []byte("]"))
}

// member is one key and raw value of an object.
type member struct {
	key   string
	value json.RawMessage
}

// jsonString encodes s as JSON.stringify does (session.Quote).
func jsonString(s string) json.RawMessage { return session.Quote(s) }

// setMembers returns the object t holds with the given members set as
// session.Editor sets them: the member JSON.parse reads (the last of
// duplicates) gets its value where it stands, an absent one is appended,
// as a JavaScript spread does; every other byte is kept.
func setMembers(t *session.Tape, set ...member) json.RawMessage {
	var e session.Editor
	e.Reset(t)
	for _, m := range set {
		e.Set(0, m.key, m.value)
	}
	b, _ := e.Bytes() // member edits of node 0, an object, do not overlap
	return b
}
