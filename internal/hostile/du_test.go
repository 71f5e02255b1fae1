//go:build unix

package hostile

import (
	"fmt"
	"path/filepath"
	"testing"
)

// checkDu runs du on the batch's directory, with one worker and with
// four (ranges): exit 0, and for every file its line kinds (type, blank,
// torn, invalid) add up to its file row, which is the file's size, the
// same rows either way.
func (s *suite) checkDu(t *testing.T, b *batch) {
	if _, missing := s.missing["du"]; missing {
		return
	}
	dir := b.materialise(t)
	var outs [2][]map[string]any
	for i, jobs := range []string{"1", "4"} {
		args := append([]string{"du", "--format", "json", "--jobs", jobs}, b.flags...)
		r, ok := s.try(t, timeoutFor(len(b.files)), []int{0}, append(args, dir)...)
		if !ok {
			s.isolate(t, dir, args, []int{0})
			return
		}
		outs[i] = jsonLines(t, r)
	}
	if fmt.Sprint(outs[0]) != fmt.Sprint(outs[1]) {
		t.Errorf("du --jobs 1 and --jobs 4 differ on %s", dir)
	}
	lines := map[string]float64{}
	for _, row := range outs[0] {
		file, _ := row["file"].(string)
		if total, _ := row["total"].(bool); total {
			continue
		}
		switch bytes, _ := row["bytes"].(float64); row["kind"] {
		case "file":
			name, _ := filepath.Rel(dir, file)
			if want := float64(len(b.files[name])); bytes != want {
				t.Errorf("du: %s: file row of %v bytes, the file has %v", file, bytes, want)
			}
			lines[file] -= bytes
		case "type", "blank", "torn", "invalid":
			lines[file] += bytes
		}
	}
	for file, diff := range lines {
		if diff != 0 {
			t.Errorf("du: %s: the line kinds differ from the file row by %v bytes", file, diff)
		}
	}
	s.tally.input("du", len(b.files))
}
