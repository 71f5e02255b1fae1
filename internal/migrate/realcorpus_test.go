package migrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// realCorpus is pi's own files, beside the project; CI has it.
const realCorpus = "../../../shared/corpus/real"

// damaged are the real files with a lost newline: the line holding two
// objects.
var damaged = map[string]int{
	"v1-pi-mono-compact-root-concatenated-line.jsonl": 1013,
	"v1-pi-mono-session-root-concatenated-line.jsonl": 440,
}

func realFiles(t *testing.T, pattern string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(realCorpus, pattern))
	if len(files) == 0 {
		t.Skipf("no real corpus at %s: skipping (CI has it)", realCorpus)
	}
	return files
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func migrateBytes(t *testing.T, in []byte) ([]byte, Result) {
	t.Helper()
	var out bytes.Buffer
	res, err := Migrate(bytes.NewReader(in), &out, session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), res
}

func TestRealV1FilesMigrate(t *testing.T) {
	for _, path := range realFiles(t, "v1-*.jsonl") {
		name := filepath.Base(path)
		if _, ok := damaged[name]; ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			in := readFile(t, path)
			out, res := migrateBytes(t, in)
			if res.From != 1 || res.To != 3 || !res.Changed || len(res.Notes) != 0 {
				t.Errorf("result %+v", res)
			}
			checkMigratedV1(t, in, out)
			checkDeterministicAndIdempotent(t, in, out)
		})
	}
}

func TestRealV3FilesAreUnchanged(t *testing.T) {
	for _, path := range realFiles(t, "v3-*.jsonl") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in := readFile(t, path)
			out, res := migrateBytes(t, in)
			if res.Changed || res.From != 3 || !bytes.Equal(in, out) {
				t.Errorf("v3 file changed: %+v", res)
			}
			var rep bytes.Buffer
			if r, err := Repair(bytes.NewReader(in), &rep, RepairOptions{}); err != nil || r.Changed || !bytes.Equal(in, rep.Bytes()) {
				t.Errorf("repair of an intact file: %+v, %v", r, err)
			}
		})
	}
}

func TestRealDamagedFilesRepairThenMigrate(t *testing.T) {
	realFiles(t, "v1-*.jsonl")
	for name, line := range damaged {
		t.Run(name, func(t *testing.T) {
			in := readFile(t, filepath.Join(realCorpus, name))
			_, err := Migrate(bytes.NewReader(in), &bytes.Buffer{}, session.DefaultLimits())
			var e *safefile.Error
			if !errors.As(err, &e) || e.Finding == nil || e.Finding.Code != finding.ConcatenatedObjects || e.Line != line {
				t.Fatalf("migrate of the damaged file: got %v, want concatenated_objects at %d", err, line)
			}
			var out bytes.Buffer
			res, err := Repair(bytes.NewReader(in), &out, RepairOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Fixes) != 1 || res.Fixes[0].Line != line || res.Fixes[0].Code != finding.ConcatenatedObjects {
				t.Errorf("fixes %+v", res.Fixes)
			}
			wantObjects := objectsOf(t, in)
			gotLines := linesOf(out.Bytes())
			if len(gotLines) != bytes.Count(in, []byte("\n"))+1 || res.LinesOut != len(gotLines) {
				t.Errorf("repaired file has %d lines, want one more than %d", len(gotLines), bytes.Count(in, []byte("\n")))
			}
			if !reflect.DeepEqual(gotLines, wantObjects) {
				t.Error("the repaired lines are not exactly the objects of the input, in order")
			}
			migrated, mres := migrateBytes(t, out.Bytes())
			if mres.From != 1 || len(mres.Notes) != 0 {
				t.Errorf("migrate after repair: %+v", mres)
			}
			checkMigratedV1(t, out.Bytes(), migrated)
			checkDeterministicAndIdempotent(t, out.Bytes(), migrated)
		})
	}
}

// The compaction on the damaged line of compact-root keeps from index 1013,
// which after the split is the compaction itself.
func TestRealCompactionIndexNamingItself(t *testing.T) {
	realFiles(t, "v1-*.jsonl")
	in := readFile(t, filepath.Join(realCorpus, "v1-pi-mono-compact-root-concatenated-line.jsonl"))
	var repaired bytes.Buffer
	if _, err := Repair(bytes.NewReader(in), &repaired, RepairOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _ := migrateBytes(t, repaired.Bytes())
	lines := linesOf(out)
	var last map[string]any
	if err := json.Unmarshal(lines[len(lines)-1], &last); err != nil {
		t.Fatal(err)
	}
	if last["type"] != "compaction" || last["firstKeptEntryId"] != last["id"] {
		t.Errorf("last record: type %v, id %v, firstKeptEntryId %v", last["type"], last["id"], last["firstKeptEntryId"])
	}
}

var appended = regexp.MustCompile(`^(.*),"id":"([0-9a-f]{8})","parentId":(null|"([0-9a-f]{8})")(,"firstKeptEntryId":"([0-9a-f]{8})")?\}$`)
var indexMember = regexp.MustCompile(`,"firstKeptEntryIndex":([0-9]+)`)

// checkMigratedV1 proves that out is in with only the migrated keys
// changed: each entry line is its input line (minus firstKeptEntryIndex)
// plus the appended keys, the header gains "version":3 at the end, the
// ids chain, and decoded values are otherwise equal.
func checkMigratedV1(t *testing.T, in, out []byte) {
	t.Helper()
	inLines, outLines := linesOf(in), linesOf(out)
	if len(inLines) != len(outLines) {
		t.Fatalf("%d lines in, %d out", len(inLines), len(outLines))
	}
	if want := string(inLines[0][:len(inLines[0])-1]) + `,"version":3}`; string(outLines[0]) != want {
		t.Errorf("header: got %s", outLines[0])
	}
	ids := []string{""} // record index → id
	seen := map[string]bool{}
	var kept [][2]string // compaction line's wanted index, got id
	for i := 1; i < len(inLines); i++ {
		m := appended.FindSubmatch(outLines[i])
		if m == nil {
			t.Fatalf("line %d: appended keys not found at the end: %.200s", i+1, outLines[i][max(0, len(outLines[i])-200):])
		}
		id, parent := string(m[2]), string(m[4])
		if parent != ids[len(ids)-1] {
			t.Errorf("line %d: parentId %q, want %q", i+1, parent, ids[len(ids)-1])
		}
		if seen[id] {
			t.Errorf("line %d: duplicate id %s", i+1, id)
		}
		seen[id] = true
		ids = append(ids, id)
		inLine := inLines[i]
		if idx := indexMember.FindSubmatch(inLine); idx != nil {
			inLine = indexMember.ReplaceAll(inLine, nil)
			kept = append(kept, [2]string{string(idx[1]), string(m[6])})
		}
		if string(m[1])+"}" != string(inLine) {
			t.Errorf("line %d: bytes other than the migrated keys changed", i+1)
		}
		checkSameValues(t, i+1, inLines[i], outLines[i])
	}
	if n := bytes.Count(in, []byte(`"type":"compaction"`)); len(kept) != n {
		t.Errorf("%d firstKeptEntryIndex converted, want one per compaction (%d)", len(kept), n)
	}
	for _, k := range kept {
		var idx int
		if err := json.Unmarshal([]byte(k[0]), &idx); err != nil || idx >= len(ids) || ids[idx] != k[1] {
			t.Errorf("firstKeptEntryIndex %s became %s, want %s", k[0], k[1], ids[min(idx, len(ids)-1)])
		}
	}
	r := session.NewReader(bytes.NewReader(out), session.DefaultLimits())
	for r.Next() {
		if f, ok := r.Line().Finding(); ok {
			t.Errorf("migrated output has a parse finding: %v", f)
		}
	}
}

// checkSameValues decodes both lines and compares them without the keys
// migration may change.
func checkSameValues(t *testing.T, line int, in, out []byte) {
	t.Helper()
	var a, b map[string]any
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatalf("line %d: output is not JSON: %v", line, err)
	}
	delete(a, "firstKeptEntryIndex")
	for _, k := range []string{"id", "parentId", "firstKeptEntryId"} {
		delete(b, k)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("line %d: decoded values differ", line)
	}
}

func checkDeterministicAndIdempotent(t *testing.T, in, out []byte) {
	t.Helper()
	if again, _ := migrateBytes(t, in); !bytes.Equal(again, out) {
		t.Error("two migrations of the same bytes differ")
	}
	if twice, res := migrateBytes(t, out); res.Changed || !bytes.Equal(twice, out) {
		t.Error("migrating the migrated file changed it")
	}
}

// linesOf splits newline-terminated content into lines.
func linesOf(b []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// objectsOf lists every complete object of every line, in order.
func objectsOf(t *testing.T, in []byte) [][]byte {
	t.Helper()
	var objs [][]byte
	r := session.NewReader(bytes.NewReader(in), session.DefaultLimits())
	for r.Next() {
		l := r.Line()
		for k := range l.Objects {
			objs = append(objs, append([]byte(nil), l.Object(k)...))
		}
	}
	if len(objs) != bytes.Count(in, []byte("\n"))+1 {
		t.Fatalf("%d objects: the damaged file should hold one more object than lines", len(objs))
	}
	return objs
}
