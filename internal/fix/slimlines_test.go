package fix

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pisess/pisess/internal/safefile"
)

// manyBatches is a session of thousands of lines, many batches' worth:
// images of three types and texts over and under the limit, a plan-state
// custom entry every few lines (superseded but the last), blank lines,
// and one text longer than slimAloneLine in the middle. It returns the
// lines, so that a test can damage some.
func manyBatches() []string {
	mimes := []string{"image/png", "image/jpeg", "image/webp"}
	var lines []string
	parent := ""
	for i := range 3000 {
		id := fmt.Sprintf("e%07d", i)
		var line string
		switch {
		case i == 1500:
			line = msgEntry(id, parent, userMsg(`[`+textBlockJSON(strings.Repeat("z", slimAloneLine+1))+`]`))
		case i%5 == 4:
			line = customEntry(id, parent, "plan-state", fmt.Sprintf(`{"n":%d}`, i))
		case i%3 == 0:
			data := strings.Repeat("QUJD", 100+i%700)
			line = msgEntry(id, parent, userMsg(`[`+textBlockJSON("look")+`,{"type":"image","data":"`+data+`","mimeType":"`+mimes[(i/3)%len(mimes)]+`"}]`))
		default:
			line = msgEntry(id, parent, userMsg(`[`+textBlockJSON(strings.Repeat("y", i%2000))+`]`))
		}
		lines = append(lines, line)
		if i%97 == 0 {
			lines = append(lines, "")
		}
		parent = id
	}
	return lines
}

// TestSlimRewriteOnTheCores: the lines slimmed on several workers give
// the file and the figures of one, byte for byte, dropped custom entries
// and a line slimmed alone included.
func TestSlimRewriteOnTheCores(t *testing.T) {
	path := sessionLines(t, manyBatches()...)
	slimmed := func(workers int) ([]byte, Report) {
		opts := options(t)
		opts.MaxBytes, opts.DropCustom, opts.Workers = 1024, []string{"plan-state"}, workers
		opts.Output = filepath.Join(t.TempDir(), "out.jsonl")
		rep, err := SlimRewriteFile(safefile.OS(), path, opts)
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		rep.Output = ""
		return mustRead(t, opts.Output), rep
	}
	want, wantRep := slimmed(1)
	if wantRep.BlocksRemoved < 1000 || wantRep.CustomDropped < 500 || len(wantRep.Removed) != 4 {
		t.Fatalf("the session is not what the test needs: %+v", wantRep.RewriteStats)
	}
	for _, workers := range []int{2, 3, 8} {
		got, rep := slimmed(workers)
		if !bytes.Equal(got, want) {
			t.Errorf("%d workers: the output differs from one worker's", workers)
		}
		if !reflect.DeepEqual(rep, wantRep) {
			t.Errorf("%d workers: %+v\none worker: %+v", workers, rep.RewriteStats, wantRep.RewriteStats)
		}
	}
}

// TestSlimRewriteOnTheCoresRefuses: a damaged line in a later batch is
// refused as one worker refuses it, the first of two.
func TestSlimRewriteOnTheCoresRefuses(t *testing.T) {
	lines := manyBatches()
	lines[2000] = `{"type":"message","id":"torn`
	lines[2500] = `not json`
	path := sessionLines(t, lines...)
	orig := mustRead(t, path)
	for _, workers := range []int{1, 2, 8} {
		opts := options(t)
		opts.MaxBytes, opts.Workers, opts.Backup = 1024, workers, true
		_, err := SlimRewriteFile(safefile.OS(), path, opts)
		var e *safefile.Error
		if !isCode(err, safefile.RefusedCorrupt) || !errors.As(err, &e) || e.Line != 2002 {
			t.Errorf("%d workers: %v, want %s at line 2002", workers, err, safefile.RefusedCorrupt)
		}
		if !bytes.Equal(mustRead(t, path), orig) {
			t.Fatalf("%d workers: the file changed", workers)
		}
	}
}
