package schema

import (
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

func TestSchemaNames(t *testing.T) {
	want := []string{
		"defs", "entry-base",
		"entry-branch_summary", "entry-compaction", "entry-context_edit", "entry-custom",
		"entry-custom_message", "entry-label", "entry-message", "entry-model_change",
		"entry-session_info", "entry-thinking_level_change", "entry-usage",
		"header",
		"omp-entry-branch_summary", "omp-entry-compaction", "omp-entry-credential_pin",
		"omp-entry-custom", "omp-entry-custom_message", "omp-entry-label", "omp-entry-message",
		"omp-entry-mode_change", "omp-entry-model_change", "omp-entry-model_usage",
		"omp-entry-reset_boundary", "omp-entry-service_tier_change", "omp-entry-session_init",
		"omp-entry-thinking_level_change", "omp-entry-title_change", "omp-entry-ttsr_injection",
		"omp-header", "omp-message", "omp-title",
		"role-assistant", "role-bashExecution", "role-branchSummary", "role-compactionSummary",
		"role-custom", "role-hookMessage", "role-system", "role-toolResult", "role-user",
	}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %q\nwant %q", got, want)
	}
}

// TestSchemaSourcesAreDraft2020 checks every file: JSON, the 2020-12 dialect, a
// title, and no $id (files refer to each other by relative path).
func TestSchemaSourcesAreDraft2020(t *testing.T) {
	for _, name := range Names() {
		src, err := Source(name)
		if err != nil {
			t.Fatalf("Source(%q): %v", name, err)
		}
		var doc map[string]any
		if err := json.Unmarshal(src, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %v", name, doc["$schema"])
		}
		if title, _ := doc["title"].(string); title == "" {
			t.Errorf("%s: no title", name)
		}
		if _, ok := doc["$id"]; ok {
			t.Errorf("%s: has $id", name)
		}
	}
}

func TestSchemaSource(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"header", true},
		{"header.json", true},
		{"role-assistant", true},
		{"assistant", false},
		{"", false},
		{"../schema/header", false},
		{"nope", false},
	}
	for _, tc := range cases {
		src, err := Source(tc.name)
		if tc.ok != (err == nil) {
			t.Errorf("Source(%q) err = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrUnknown) {
			t.Errorf("Source(%q) err = %v, want ErrUnknown", tc.name, err)
		}
		if tc.ok && !strings.Contains(string(src), `"$schema"`) {
			t.Errorf("Source(%q) returned %q", tc.name, src)
		}
	}
}

func TestSchemaLookup(t *testing.T) {
	cases := []struct {
		word string
		want []string
	}{
		{"header", []string{"header"}},
		{"message", []string{"entry-message"}},
		{"assistant", []string{"role-assistant"}},
		{"custom", []string{"entry-custom", "role-custom"}},
		{"role-custom", []string{"role-custom"}},
		{"entry-label.json", []string{"entry-label"}},
		{"robot", nil},
	}
	for _, tc := range cases {
		if got := Lookup(tc.word); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Lookup(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestSchemaFS(t *testing.T) {
	matches, err := fs.Glob(FS(), "*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) != len(Names()) {
		t.Fatalf("FS holds %d files, Names lists %d", len(matches), len(Names()))
	}
}
