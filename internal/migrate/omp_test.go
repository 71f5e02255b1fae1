package migrate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// TestMigrateOmp: an oh-my-pi file (testdata/corpus/omp, written by omp's
// own code) is version 3 behind its title slot: Migrate copies it byte for
// byte, PeekVersion finds the header on line 2. A version-2 omp file is
// migrated with its slot kept exactly as it was on line 1.
func TestMigrateOmp(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/omp/*.jsonl")
	sources := map[string][]byte{"inline": []byte(ompMinimal())}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources[f] = b
	}
	for f, src := range sources {
		v, err := PeekVersion(bytes.NewReader(src), session.Limits{})
		if err != nil || v != 3 {
			t.Errorf("%s: PeekVersion = %d, %v", f, v, err)
		}
		var out bytes.Buffer
		res, err := Migrate(bytes.NewReader(src), &out, session.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if res.Changed || !bytes.Equal(out.Bytes(), src) {
			t.Errorf("%s: changed (%v) or not byte-identical", f, res.Changed)
		}
	}

	slot, rest, _ := bytes.Cut([]byte(ompMinimal()), []byte("\n"))
	v2 := strings.Replace(string(rest), `"version":3`, `"version":2`, 1)
	var out bytes.Buffer
	res, err := Migrate(strings.NewReader(string(slot)+"\n"+v2), &out, session.Limits{})
	if err != nil || !res.Changed || res.From != 2 {
		t.Fatalf("v2 omp file: %+v, %v", res, err)
	}
	gotSlot, gotRest, _ := bytes.Cut(out.Bytes(), []byte("\n"))
	if !bytes.Equal(gotSlot, slot) || len(gotSlot)+1 != session.TitleSlotBytes {
		t.Errorf("slot changed: %q", gotSlot)
	}
	if !bytes.Contains(gotRest, []byte(`"version":3`)) {
		t.Errorf("header not migrated: %q", gotRest)
	}
}

// ompMinimal is the start of a file omp 18's SessionManager wrote
// (testdata/corpus/omp/omp-minimal.jsonl): the 256-byte title slot, the
// header, omp's model_change and a model_usage entry.
func ompMinimal() string {
	slot := `{"type":"title","v":1,"title":"Cart total rounding","source":"auto","updatedAt":"2026-12-01T05:57:37.870Z","pad":"`
	slot += strings.Repeat(" ", session.TitleSlotBytes-len(slot)-3) + `"}` + "\n"
	return slot +
		`{"type":"session","version":3,"id":"01a2302e-1bac-772f-a21f-6eb6b51e834e","timestamp":"2026-12-01T05:57:37.836Z","cwd":"/home/ana/src/shop"}` + "\n" +
		`{"type":"model_change","id":"9cf9cb36","parentId":null,"timestamp":"2026-12-01T05:57:37.856Z","model":"anthropic/claude-sonnet-4-5","resolvedModelIsFallback":false}` + "\n" +
		`{"type":"model_usage","id":"c7cf3461","parentId":"9cf9cb36","timestamp":"2026-12-01T05:57:37.866Z","purpose":"title","role":"smol","api":"anthropic-messages","provider":"anthropic","model":"claude-haiku-4-5","usage":{"input":310,"output":12,"cacheRead":0,"cacheWrite":0,"totalTokens":322,"cost":{"input":0.00093,"output":0.00018,"cacheRead":0,"cacheWrite":0,"total":0.00111}},"stopReason":"stop"}` + "\n"
}
