package migrate

import (
	"bytes"

	"github.com/pisess/pisess/internal/parse"
)

// Helpers only the tests use: the production code writes edits with
// writeTo and never asks whether a value is null.

// apply returns line with the edits applied, appended to dst[:0]: sort and
// writeTo, as the rewriter uses them.
func (e *editor) apply(dst, line []byte) ([]byte, error) {
	if err := e.sort(len(line)); err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(dst[:0])
	if err := e.writeTo(buf, line); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// isNull reports whether the value of m is JSON null.
func isNull(t *parse.Tape, m member) bool { return t.Kind(m.value) == parse.KindNull }
