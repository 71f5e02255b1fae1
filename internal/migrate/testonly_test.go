package migrate

import "github.com/pisess/pisess/internal/session"

// Helpers only the tests use: the production code never asks whether a
// value is null.

// isNull reports whether value node v is JSON null.
func isNull(t *session.Tape, v int) bool { return t.Kind(v) == session.KindNull }
