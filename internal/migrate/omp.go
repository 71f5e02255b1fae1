package migrate

import "github.com/pisess/pisess/internal/session"

// isTitleSlot reports whether l is the title slot of an oh-my-pi file
// (docs/omp.md): line 1, before the header, exactly as omp wrote it. It is
// no record: migration skips it when it looks for the header and copies it
// byte for byte, so the slot stays 256 bytes on line 1 (omp rewrites it in
// place).
func isTitleSlot(l *session.Line) bool {
	return l.Num == 1 && l.Class == session.Object && !l.BOM && session.IsTitleSlot(l.Raw)
}
