package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// settingsSessionDir reads sessionDir as pi 1.6.0's SettingsManager does
// (JSON.parse after stripping a BOM): by its exact name, the last of
// duplicates; a file it cannot read as settings is an error the caller
// warns of.
func TestSettingsSessionDirReadsAsPi(t *testing.T) {
	for _, tc := range []struct {
		content, want string
		fails         bool
	}{
		{content: `{"theme":"dark","sessionDir":"elsewhere"}`, want: "elsewhere"},
		{content: "\n  {\n  \"sessionDir\": \"~/s\"\n}\n", want: "~/s"},
		{content: "\uFEFF{\"sessionDir\":\"bom\"}", want: "bom"},
		{content: `{"sessionDir":"a\u002fb"}`, want: "a/b"},
		{content: `{"sessionDir":"first","sessionDir":"last"}`, want: "last"},
		{content: `{"SessionDir":"x","SESSIONDIR":"y"}`}, // encoding/json read these
		{content: `{"sessionDir":null}`},
		{content: `{"sessionDir":""}`},
		{content: `{}`},
		{content: `null`},
		{content: `{"sessionDir":5}`, fails: true},
		{content: `{"sessionDir":"x"`, fails: true},
		{content: `{"sessionDir":"x"} {}`, fails: true},
		{content: `["sessionDir"]`, fails: true},
		{content: ``, fails: true},
	} {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := settingsSessionDir(path)
		if got != tc.want || (err != nil) != tc.fails {
			t.Errorf("%q: got %q, %v; want %q, fails %v", tc.content, got, err, tc.want, tc.fails)
		}
	}
	if got, err := settingsSessionDir(filepath.Join(t.TempDir(), "none.json")); got != "" || err != nil {
		t.Errorf("a missing file: got %q, %v; want \"\", nil", got, err)
	}
}
