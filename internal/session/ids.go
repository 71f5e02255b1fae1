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
