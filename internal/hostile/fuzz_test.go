//go:build unix

package hostile

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// fuzzLimits keep the fuzzers' lines small.
var fuzzLimits = session.Limits{MaxLineBytes: 1 << 16}

// fuzzSeeds are the catalogue's small inputs and cuts of the base
// sessions.
func fuzzSeeds(f *testing.F) {
	for _, in := range Catalogue() {
		if len(in.Data) <= 8<<10 {
			f.Add(in.Data)
		}
	}
	for _, src := range [][]byte{Base(), BaseV1()} {
		for _, cut := range Truncations("seed", src, 97) {
			f.Add(cut.Data)
		}
	}
}

// FuzzRepair: Repair either refuses the input (with a refusal, never an
// I/O code) or returns a file with no parse-level problem that holds every
// complete object of the input, in order, byte for byte; Changed tells the
// truth; and repairing the result changes nothing.
func FuzzRepair(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, zeroTail := range []bool{false, true} {
			opts := migrate.RepairOptions{ZeroTail: zeroTail, Limits: fuzzLimits}
			var out bytes.Buffer
			res, err := migrate.Repair(bytes.NewReader(data), &out, opts)
			if err != nil {
				refusal(t, err)
				continue
			}
			got := out.Bytes()
			if problem := parseProblemWith(got, fuzzLimits); problem != "" {
				t.Fatalf("zeroTail=%v: repaired output has %s:\n%q\nfrom\n%q", zeroTail, problem, got, data)
			}
			if in, outObjs := objects(data), objects(got); !equalAll(in, outObjs) {
				t.Fatalf("zeroTail=%v: objects changed: %d in, %d out\n%q\nfrom\n%q", zeroTail, len(in), len(outObjs), got, data)
			}
			if res.Changed == bytes.Equal(got, data) {
				t.Fatalf("zeroTail=%v: Changed=%v, but the output is %s the input", zeroTail, res.Changed, map[bool]string{true: "", false: "not"}[res.Changed])
			}
			var again bytes.Buffer
			res2, err := migrate.Repair(bytes.NewReader(got), &again, opts)
			if err != nil || res2.Changed || !bytes.Equal(again.Bytes(), got) {
				t.Fatalf("zeroTail=%v: repairing the repaired file: changed %v, %v", zeroTail, res2.Changed, err)
			}
		}
	})
}

// FuzzMigrate: Migrate either refuses the input or returns, the same way
// every time, a version-3 file with exactly the input's physical lines
// and objects, which migrating again leaves byte-identical.
func FuzzMigrate(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		_, err := migrate.Migrate(bytes.NewReader(data), &out, fuzzLimits)
		if err != nil {
			refusal(t, err)
			return
		}
		got := bytes.Clone(out.Bytes())
		var second bytes.Buffer
		if _, err := migrate.Migrate(bytes.NewReader(data), &second, fuzzLimits); err != nil || !bytes.Equal(second.Bytes(), got) {
			t.Fatalf("migrating the same bytes twice gave different results (%v)", err)
		}
		if v, err := migrate.PeekVersion(bytes.NewReader(got), fuzzLimits); err != nil || v != migrate.CurrentVersion {
			t.Fatalf("migrated file is version %d (%v):\n%q", v, err, got)
		}
		if a, b := lineCount(data), lineCount(got); a != b {
			t.Fatalf("%d lines in, %d out:\n%q\nfrom\n%q", a, b, got, data)
		}
		if a, b := len(objects(data)), len(objects(got)); a != b {
			t.Fatalf("%d objects in, %d out:\n%q\nfrom\n%q", a, b, got, data)
		}
		var again bytes.Buffer
		if _, err := migrate.Migrate(bytes.NewReader(got), &again, fuzzLimits); err != nil || !bytes.Equal(again.Bytes(), got) {
			t.Fatalf("migrating the migrated file changed it (%v):\n%q\n→\n%q", err, got, again.Bytes())
		}
	})
}

// refusal fails unless err is a migrate refusal.
func refusal(t *testing.T, err error) {
	t.Helper()
	var e *safefile.Error
	if !errors.As(err, &e) || !isRefusal(string(e.Code)) {
		t.Fatalf("not a refusal: %v", err)
	}
}

// objects lists the complete objects of a file, in order.
func objects(data []byte) [][]byte {
	var out [][]byte
	rd := session.NewReader(bytes.NewReader(data), fuzzLimits)
	for rd.Next() {
		l := rd.Line()
		if l.Class == session.Object || l.Class == session.Concatenated || l.Code == finding.ZeroFill {
			for k := range l.Objects {
				out = append(out, bytes.Clone(l.Object(k)))
			}
		}
	}
	return out
}

func equalAll(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// lineCount counts physical lines.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
