package session

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// IDs derives entry ids for a version-1 file deterministically (migrate
// writes them, project and fix read v1 files with them): the same
// session id and line numbers always give the same ids, so migrating the same
// bytes twice gives the same output. Each id is 8 lowercase hex characters
// (the shape pi draws at random); on a collision with an id already given or
// listed in taken, the next counter value is hashed instead.
type IDs struct {
	sessionID string
	used      map[string]bool
}

// NewIDs returns an id source for one session. taken lists ids that already
// exist in the file and must not be reused.
func NewIDs(sessionID string, taken ...string) *IDs {
	used := make(map[string]bool, len(taken))
	for _, id := range taken {
		used[id] = true
	}
	return &IDs{sessionID: sessionID, used: used}
}

// For returns the id of the entry on the given 1-based physical line.
func (g *IDs) For(line int) string {
	for attempt := uint64(0); ; attempt++ {
		id := derive(g.sessionID, uint64(line), attempt)
		if !g.used[id] {
			g.used[id] = true
			return id
		}
	}
}

func derive(sessionID string, line, attempt uint64) string {
	b := binary.BigEndian.AppendUint64([]byte("pisess-migrate-v1\x00"+sessionID), line)
	sum := sha256.Sum256(binary.BigEndian.AppendUint64(b, attempt))
	return hex.EncodeToString(sum[:4])
}

// HexID reads an id of exactly 8 lowercase hex digits, the shape pi draws
// and IDs derives, as a number: a compact key for the entry.
func HexID(id string) (uint32, bool) {
	if len(id) != 8 {
		return 0, false
	}
	var v uint32
	for i := 0; i < 8; i++ {
		c := id[i]
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint32(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
