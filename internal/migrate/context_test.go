package migrate_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/session"
)

// TestMigrationKeepsTheContext: for every real version-1 file (the two
// damaged ones after repair), the migrated version-3 file projects exactly
// the context of the original, for every leaf, ids included (pisess derives
// the same ids in memory as on disk).
func TestMigrationKeepsTheContext(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/real/v1-*.jsonl")
	files = append(files, "../../testdata/corpus/valid/v1-linear.jsonl", "../../testdata/corpus/valid/v2-hook-message.jsonl")
	if len(files) == 2 {
		t.Log("no real corpus at ../../../shared/corpus/real: checking testdata only")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var repaired bytes.Buffer
			if _, err := migrate.Repair(bytes.NewReader(orig), &repaired, migrate.RepairOptions{Limits: session.DefaultLimits()}); err != nil {
				t.Fatal(err)
			}
			var migrated bytes.Buffer
			if _, err := migrate.Migrate(bytes.NewReader(repaired.Bytes()), &migrated, session.DefaultLimits()); err != nil {
				t.Fatal(err)
			}
			before := contexts(t, repaired.Bytes())
			after := contexts(t, migrated.Bytes())
			if len(before) == 0 || !reflect.DeepEqual(before, after) {
				t.Errorf("the migrated file projects another context (%d leaves before, %d after)", len(before), len(after))
			}
		})
	}
}

// contexts projects every leaf of a session: leaf id -> the context's JSON.
func contexts(t *testing.T, data []byte) map[string]string {
	t.Helper()
	s, err := project.Load(bytes.NewReader(data), session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, leaf := range s.Leaves() {
		c, err := s.Context(leaf)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(c.View())
		if err != nil {
			t.Fatal(err)
		}
		out[leaf.ID()] = string(b)
	}
	return out
}
