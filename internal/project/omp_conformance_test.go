package project

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/pisess/pisess/internal/session"
)

// TestOmpConformance runs oh-my-pi 18's own code (conformance/omp/
// omp-context.ts, with the Bun from that directory's node_modules) on every
// file of testdata/corpus/omp and on the omp fixtures, and compares, for
// every leaf, the context of omp files (messages, model per role, thinking
// level) and the leaves themselves with what omp's buildSessionContext
// gives.
//
//	cd conformance/omp && npm ci --ignore-scripts && cd ../..
//	PISESS_CONFORMANCE=1 go test ./internal/project -run OmpConformance -v
//
// With PISESS_CONFORMANCE_REPORT=FILE the counts are written to FILE.
func TestOmpConformance(t *testing.T) {
	if os.Getenv(conformanceEnv) != "1" {
		t.Skipf("conformance with omp is off: set %s=1 (after `npm ci --ignore-scripts` in conformance/omp) to compare with omp 18", conformanceEnv)
	}
	bun, err := filepath.Abs(filepath.Join(conformanceDir, "omp", "node_modules/@oven/bun-linux-x64/bin/bun"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bun); err != nil {
		t.Fatalf("%s=1 but omp's Bun is not installed: run `npm ci --ignore-scripts` in conformance/omp (%v)", conformanceEnv, err)
	}
	files, _ := filepath.Glob(filepath.Join(testCorpus, "omp", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no omp corpus files found")
	}
	nCorpus := len(files)
	files = append(files, writeOmpFixtures(t, t.TempDir())...)
	results := runOmp(t, bun, files)
	pairs, differing := 0, 0
	for i, path := range files {
		group := "corpus"
		if i >= nCorpus {
			group = "fixtures"
		}
		t.Run(group+"/"+filepath.Base(path), func(t *testing.T) {
			omp, ok := results[path]
			if !ok {
				t.Fatalf("omp printed nothing for %s", path)
			}
			p, d := compareOmpFile(t, path, omp)
			pairs += p
			differing += d
		})
	}
	report := fmt.Sprintf("omp 18.2.3: %d (file, leaf) pairs compared on %d files (%d corpus, %d fixtures), %d with differences\n",
		pairs, len(files), nCorpus, len(files)-nCorpus, differing)
	t.Log(report)
	if path := os.Getenv(reportEnv); path != "" {
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
			t.Error(err)
		}
	}
	if pairs == 0 {
		t.Error("no (file, leaf) pair was compared")
	}
}

// ompFile and ompLeaf are what omp-context.ts prints of a file.
type ompFile struct {
	File   string    `json:"file"`
	Leaves []ompLeaf `json:"leaves"`
}

type ompLeaf struct {
	Leaf          string            `json:"leaf"`
	Models        map[string]string `json:"models"`
	ThinkingLevel json.RawMessage   `json:"thinkingLevel"`
	Messages      []json.RawMessage `json:"messages"`
}

// runOmp runs omp-context.ts on the files (one Bun for all of them).
func runOmp(t *testing.T, bun string, files []string) map[string]*ompFile {
	ctx, cancel := context.WithTimeout(context.Background(), piTimeout)
	defer cancel()
	var args []string
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, abs)
	}
	cmd := exec.CommandContext(ctx, bun, append([]string{"run", "omp-context.ts"}, args...)...)
	cmd.Dir = filepath.Join(conformanceDir, "omp")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // omp reads and writes ~/.omp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("omp-context.ts: %v\n%s", err, stderr.Bytes())
	}
	results := map[string]*ompFile{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var f ompFile
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("omp-context.ts printed %.200q: %v", sc.Bytes(), err)
		}
		for i, abs := range args {
			if abs == f.File {
				results[files[i]] = &f
			}
		}
	}
	return results
}

// compareOmpFile compares every leaf omp printed; it returns the pairs
// compared and how many differed.
func compareOmpFile(t *testing.T, path string, omp *ompFile) (pairs, differing int) {
	s, err := LoadFile(path, session.DefaultLimits())
	if err != nil {
		t.Fatalf("pisess cannot read it: %v", err)
	}
	if s.Dialect != session.Omp {
		t.Errorf("dialect %q, want omp", s.Dialect)
	}
	var ours, theirs []string
	for _, e := range s.Leaves() {
		ours = append(ours, e.ID())
	}
	for _, l := range omp.Leaves {
		theirs = append(theirs, l.Leaf)
	}
	sort.Strings(ours)
	sort.Strings(theirs)
	if !reflect.DeepEqual(ours, theirs) {
		t.Errorf("leaves %v, omp %v", ours, theirs)
	}
	for _, want := range omp.Leaves {
		pairs++
		if diff := compareOmpLeaf(s, want); diff != "" {
			differing++
			t.Errorf("leaf %s: %s", want.Leaf, diff)
		}
	}
	return pairs, differing
}

// compareOmpLeaf returns the first difference between our context of a
// leaf and omp's, or "".
func compareOmpLeaf(s *Session, want ompLeaf) string {
	leaf, err := s.Leaf(want.Leaf)
	if err != nil {
		return err.Error()
	}
	c, err := s.Context(leaf)
	if err != nil {
		return err.Error()
	}
	if got := c.ModelNames(); !reflect.DeepEqual(got, want.Models) && !(len(got) == 0 && len(want.Models) == 0) {
		return fmt.Sprintf("models %v, omp %v", got, want.Models)
	}
	if !jsonEqual(c.ThinkingLevel, want.ThinkingLevel) {
		return fmt.Sprintf("thinking level %s, omp %s", c.ThinkingLevel, want.ThinkingLevel)
	}
	if len(c.Messages) != len(want.Messages) {
		return fmt.Sprintf("%d messages %v, omp %d %v", len(c.Messages), rolesOf(c.Messages), len(want.Messages), rolesOf(want.Messages))
	}
	for i := range c.Messages {
		if !jsonEqual(c.Messages[i], want.Messages[i]) {
			return fmt.Sprintf("message %d:\n ours %s\n omp  %s", i, c.Messages[i], want.Messages[i])
		}
	}
	return ""
}

func rolesOf(msgs []json.RawMessage) []string {
	var roles []string
	for _, m := range msgs {
		var r struct{ Role string }
		_ = json.Unmarshal(m, &r)
		roles = append(roles, r.Role)
	}
	return roles
}
