package fix

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/pisess/pisess/internal/parse"
	"github.com/pisess/pisess/internal/project"
)

// ForkPlan is a new session built from one leaf's path.
type ForkPlan struct {
	SessionID string // the new session's id (a UUIDv7, as pi's)
	Name      string // <timestamp>_<id>.jsonl, pi's file name for it
	Leaf      string // the source leaf
	Entries   int    // entries written (labels included)
	Labels    int    // label entries re-added at the end
	Content   []byte // the new file
}

// Fork builds the session pi 1.6.0's SessionManager.createBranchedSession
// writes for leaf (session-manager.js):
//
//   - the path from the root to leaf, each entry copied byte for byte
//     except parentId, which names the previous entry kept: label entries
//     are left out of the chain;
//   - a compaction's firstKeptEntryId that named a label left out names the
//     next entry kept instead;
//   - then, chained after the last entry, one label entry per labelled
//     entry of the path (pi's resolved labels, in the order pi's map keeps
//     them, with the timestamp of the label entry that set them);
//   - a header {type, version 3, id, timestamp, cwd (the source's),
//     parentSession: the absolute path of the source}.
//
// raw holds the source's bytes at version 3 (FileFork migrates older files
// in memory first), s the session loaded from them. id and now are the new
// session's id and time.
func Fork(raw []byte, s *project.Session, leaf *project.Entry, source, id string, now time.Time, random io.Reader) (*ForkPlan, error) {
	path, err := s.Path(leaf)
	if err != nil {
		return nil, cycleRefusal(err)
	}
	objects, err := rawObjects(raw)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	ts := isoTime(now)
	p := &ForkPlan{SessionID: id, Name: strings.NewReplacer(":", "-", ".", "-").Replace(ts) + "_" + id + ".jsonl", Leaf: leaf.ID()}
	var header objectWriter
	header.str("type", "session")
	header.raw("version", json.RawMessage("3"))
	header.str("id", id)
	header.str("timestamp", ts)
	if cwd, ok := s.Header.Field("cwd"); ok {
		header.raw("cwd", cwd)
	}
	header.str("parentSession", source)
	out.Write(header.bytes())
	out.WriteByte('\n')

	kept := map[string]bool{}
	replacement := map[string]string{} // label id -> the next entry kept
	var pending []string
	parent := json.RawMessage("null")
	for _, e := range path {
		if e.Type() == "label" {
			pending = append(pending, e.ID())
			continue
		}
		for _, l := range pending {
			replacement[l] = e.ID()
		}
		pending = pending[:0]
		set := []member{{"parentId", parent}}
		if e.Type() == "compaction" {
			if first, ok := e.Field("firstKeptEntryId"); ok {
				var fk string
				if json.Unmarshal(first, &fk) == nil && fk != e.ID() {
					if r, ok := replacement[fk]; ok {
						set = append(set, member{"firstKeptEntryId", jsonString(r)})
					}
				}
			}
		}
		line, err := setMembers(objects[objectKey{e.Line, e.Object}], set...)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", e.Line, err)
		}
		out.Write(line)
		out.WriteByte('\n')
		kept[e.ID()] = true
		parent = jsonString(e.ID())
		p.Entries++
	}
	for _, l := range resolvedLabels(s) {
		if !kept[l.target] {
			continue
		}
		lid := newEntryID(kept, random)
		kept[lid] = true
		var w objectWriter
		w.str("type", "label")
		w.str("id", lid)
		w.raw("parentId", parent)
		if l.timestamp != nil {
			w.raw("timestamp", l.timestamp)
		}
		w.str("targetId", l.target)
		w.raw("label", l.label)
		out.Write(w.bytes())
		out.WriteByte('\n')
		parent = jsonString(lid)
		p.Entries++
		p.Labels++
	}
	p.Content = out.Bytes()
	return p, nil
}

// label is one resolved label: its target, value and the timestamp of the
// label entry that set it.
type label struct {
	target    string
	label     json.RawMessage
	timestamp json.RawMessage
}

// resolvedLabels replays the label entries in file order as pi's
// _buildIndex does into a JavaScript Map: a truthy label sets it (a target
// already there keeps its place), anything else deletes it.
func resolvedLabels(s *project.Session) []label {
	var order []string
	byTarget := map[string]label{}
	for _, e := range s.Entries {
		if e.Type() != "label" {
			continue
		}
		target := e.StringField("targetId")
		value, _ := e.Field("label")
		if truthy(value) {
			if _, ok := byTarget[target]; !ok {
				order = append(order, target)
			}
			ts, _ := e.Field("timestamp")
			byTarget[target] = label{target: target, label: value, timestamp: ts}
			continue
		}
		if _, ok := byTarget[target]; ok {
			delete(byTarget, target)
			for i, t := range order {
				if t == target {
					order = append(order[:i], order[i+1:]...)
					break
				}
			}
		}
	}
	out := make([]label, 0, len(order))
	for _, t := range order {
		out = append(out, byTarget[t])
	}
	return out
}

// truthy is JavaScript truthiness of a raw JSON value (absent: false).
func truthy(raw json.RawMessage) bool {
	switch s := strings.TrimSpace(string(raw)); {
	case s == "", s == "null", s == "false", s == `""`, s == "0", s == "-0":
		return false
	}
	return true
}

// newEntryID draws a random 8-hex id not in taken, as pi's generateId.
func newEntryID(taken map[string]bool, random io.Reader) string {
	for {
		var b [4]byte
		readRandom(random, b[:])
		if id := hex.EncodeToString(b[:]); !taken[id] {
			return id
		}
	}
}

// readRandom fills b from random, else from crypto/rand (whose Read never
// fails since Go 1.24).
func readRandom(random io.Reader, b []byte) {
	if random != nil {
		if _, err := io.ReadFull(random, b); err == nil {
			return
		}
	}
	_, _ = rand.Read(b)
}

// NewSessionID returns a UUIDv7 (RFC 9562) for now, as pi's createSessionId.
func NewSessionID(now time.Time, random io.Reader) string {
	var u [16]byte
	readRandom(random, u[:])
	ms := uint64(now.UnixMilli())
	for i := 0; i < 6; i++ {
		u[i] = byte(ms >> (40 - 8*i))
	}
	u[6] = u[6]&0x0f | 0x70
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// ForkName is where pi puts a fork by default: beside the source.
func ForkName(source string, p *ForkPlan) string {
	return filepath.Join(filepath.Dir(source), p.Name)
}

// objectKey names one object of a file: its line and its place on it.
type objectKey struct{ line, object int }

// rawObjects maps each object of a file to its bytes.
func rawObjects(raw []byte) (map[objectKey][]byte, error) {
	rd := parse.NewReader(bytes.NewReader(raw), parse.Limits{MaxLineBytes: len(raw) + 1})
	out := map[objectKey][]byte{}
	for rd.Next() {
		l := rd.Line()
		if l.Class != parse.Object && l.Class != parse.Concatenated {
			continue
		}
		for k := range l.Objects {
			out[objectKey{l.Num, k}] = bytes.Clone(l.Object(k))
		}
	}
	return out, rd.Err()
}
