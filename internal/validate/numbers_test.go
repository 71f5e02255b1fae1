package validate

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/session"
)

// v1Compaction is a version-1 compaction whose firstKeptEntryIndex is %s.
const v1Compaction = `{"type":"compaction","timestamp":"2026-01-01T00:00:02.000Z","summary":"s","firstKeptEntryIndex":%s,"tokensBefore":10}`

// streamLines validates lines joined by newlines, with the schemas.
func streamLines(t *testing.T, schemas *Schemas, workers int, lines ...string) *Report {
	t.Helper()
	input := strings.Join(lines, "\n") + "\n"
	rep, err := Stream("t.jsonl", strings.NewReader(input), Options{Limits: session.DefaultLimits(), Schemas: schemas, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// findingKeys lists the findings as "LINE CODE POINTER".
func findingKeys(rep *Report) []string {
	out := []string{}
	for _, f := range rep.Findings {
		out = append(out, fmt.Sprintf("%d %s %s", f.Line, f.Code, f.Pointer))
	}
	return out
}

// TestExtremeNumbers: numbers that big.Rat cannot read (an exponent past
// its limit) made jsonschema panic (nil *big.Rat) on an "integer" or
// "minimum" keyword, and numbers with a huge exponent or a million digits
// took seconds each (big.Rat's decimal conversion), in the quick check and
// again in jsonschema. They are read in linear time, with the verdict
// their exact value deserves, and the quick check agrees with jsonschema.
func TestExtremeNumbers(t *testing.T) {
	schemas := compileForTest(t)
	digits := strings.Repeat("7", 1_000_000)
	tests := []struct {
		index string
		want  []string // besides needs_migration
	}{
		{"1e10000000", []string{"3 dangling_first_kept /firstKeptEntryIndex"}},
		{"-1e10000000", []string{"3 schema /firstKeptEntryIndex", "3 dangling_first_kept /firstKeptEntryIndex"}},
		{"1e-10000000", []string{"3 schema /firstKeptEntryIndex", "3 dangling_first_kept /firstKeptEntryIndex"}},
		{"0e10000000", []string{"3 dangling_first_kept /firstKeptEntryIndex"}},
		{"1e999999", []string{"3 dangling_first_kept /firstKeptEntryIndex"}},
		{digits, []string{"3 dangling_first_kept /firstKeptEntryIndex"}},
		{"-" + digits, []string{"3 schema /firstKeptEntryIndex", "3 dangling_first_kept /firstKeptEntryIndex"}},
		{digits + ".5", []string{"3 schema /firstKeptEntryIndex", "3 dangling_first_kept /firstKeptEntryIndex"}},
		{"0." + digits, []string{"3 schema /firstKeptEntryIndex", "3 dangling_first_kept /firstKeptEntryIndex"}},
	}
	for _, tt := range tests {
		name := tt.index
		if len(name) > 24 {
			name = fmt.Sprintf("%s…(%d bytes)", name[:12], len(name))
		}
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			rep := streamLines(t, schemas, 1, hdr1, v1user, fmt.Sprintf(v1Compaction, tt.index))
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			for _, f := range rep.Findings {
				if f.Code == finding.Schema && strings.Contains(f.Message, "111111111") {
					t.Errorf("message quotes the stand-in, not the number: %s", f.Message)
				}
			}
			got := findingKeys(rep)[1:] // after needs_migration
			if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
		})
	}
}

// TestExtremeNumbersQuickAgrees: the quick check's verdict on extreme
// numbers is jsonschema's.
func TestExtremeNumbersQuickAgrees(t *testing.T) {
	schemas := compileForTest(t)
	for _, lit := range []string{"1e10000000", "-1e10000000", "1e-10000000", "-1e-10000000", "0e10000000", "-0.0e-99999999999999999999",
		"1e999999", "7" + strings.Repeat("0", 5000), "7" + strings.Repeat("0", 5000) + ".5", "0.5e1", "-0", "5E-1", "12345678901234567890123456789012345678901234567890"} {
		v := decodeForTest(t, []byte(fmt.Sprintf(v1Compaction, lit)))
		if !quickAgrees(t, schemas, 1, v) {
			t.Errorf("quick check and jsonschema disagree on firstKeptEntryIndex %.40s", lit)
		}
	}
}

// TestTameNumber: a tamed literal is the number itself when it is short,
// else keeps its sign, zero-ness, integer-ness and side of 1, and equals
// no short number.
func TestTameNumber(t *testing.T) {
	long := strings.Repeat("3", 60)
	for _, lit := range []string{"0", "-0", "1", "-1", "1.5", "3.0", "1e2", "1E+2", "25e-1", "0.000", "-0.0e-5",
		"123456789012345678901234567890", "1.0000000000000000000000000000000e0", "12e-30", "120000000000000000000000000000e-30",
		long, "-" + long, long + ".5", "0." + long, "-0." + long, long + "e-30", long + "e-59", long + "e-60", long + "e-61",
		"1e100", "1e-100", "-1e41", "1e40", "1e-40", "1e-41"} {
		want, ok := new(big.Rat).SetString(lit)
		tamed := tameNumber(lit)
		got, okT := new(big.Rat).SetString(tamed)
		if !ok || !okT {
			t.Errorf("%s: tamed %s: read %v %v", lit, tamed, ok, okT)
			continue
		}
		abs := func(r *big.Rat) *big.Rat { return new(big.Rat).Abs(r) }
		one := big.NewRat(1, 1)
		if got.Sign() != want.Sign() || got.IsInt() != want.IsInt() || (abs(got).Cmp(one) >= 0) != (abs(want).Cmp(one) >= 0) {
			t.Errorf("%s: tamed %s: sign, integer or size differ", lit, tamed)
		}
		d, _ := decimalOf(lit)
		short := len(d.digits) <= tameDigits && d.exp >= -tameDigits && d.exp <= tameDigits
		if (short || tamed == lit) != (got.Cmp(want) == 0) {
			t.Errorf("%s: tamed %s: equal %v, want %v", lit, tamed, got.Cmp(want) == 0, short)
		}
		if len(tamed) > 64 {
			t.Errorf("%s: tamed %s: too long", lit, tamed)
		}
	}
	// big.Rat cannot read these at all.
	for lit, want := range map[string]string{"0e999999999999999999999": "0", "-5e-99999999999999999999": "-0.11111111111111111111111111111111111111111",
		"5e99999999999999999999": "11111111111111111111111111111111111111111", "5.5e-999999999999": "0.11111111111111111111111111111111111111111"} {
		if got := tameNumber(lit); got != want {
			t.Errorf("%s: tamed %s, want %s", lit, got, want)
		}
	}
}

// TestFirstKeptIndexAsJavaScriptReadsIt: pi 1.6.0 reads a version-1
// firstKeptEntryIndex with JSON.parse, so 7.0, 7e0 and 70e-1 are the
// index 7 (migrateV1ToV2 takes entries[7]); the schema agrees (an
// integer), but the linkage check read them with strconv.ParseInt and
// warned dangling_first_kept.
func TestFirstKeptIndexAsJavaScriptReadsIt(t *testing.T) {
	schemas := compileForTest(t)
	v1asst := `{"type":"message","timestamp":"2026-01-01T00:00:01.500Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`
	tests := []struct {
		index string
		want  []string // besides needs_migration
	}{
		{"2", nil},
		{"2.0", nil},
		{"2e0", nil},
		{"20e-1", nil},
		{"0.2e1", nil},
		{"-0", []string{"4 dangling_first_kept /firstKeptEntryIndex"}}, // the header
		{"1.5", []string{"4 schema /firstKeptEntryIndex", "4 dangling_first_kept /firstKeptEntryIndex"}},
		{"4.0", []string{"4 dangling_first_kept /firstKeptEntryIndex"}}, // past the compaction
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%.12s/workers=%d", tt.index, workers), func(t *testing.T) {
				rep := streamLines(t, schemas, workers, hdr1, v1user, v1asst, fmt.Sprintf(v1Compaction, tt.index))
				got := findingKeys(rep)[1:] // after needs_migration
				if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
					t.Errorf("findings %v, want %v", got, tt.want)
				}
			})
		}
	}
}

// TestFirstKeptIndexTapeAgrees: the tape path and the map reference read
// a whole number written with a fraction or an exponent alike.
func TestFirstKeptIndexTapeAgrees(t *testing.T) {
	schemas := compileForTest(t)
	for _, lit := range []string{"7", "7.0", "7e0", "70e-1", "7.5", "-0", "1e400"} {
		line := fmt.Sprintf(v1Compaction, lit)
		checkTapeAgrees(t, schemas, 1, 3, decodeForTest(t, []byte(line)), line)
	}
}
