package migrate

import "github.com/pisess/pisess/internal/parse"

// Helpers only the tests use: the production code never asks whether a
// value is null.

// isNull reports whether value node v is JSON null.
func isNull(t *parse.Tape, v int) bool { return t.Kind(v) == parse.KindNull }
