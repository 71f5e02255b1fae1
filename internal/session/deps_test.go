package session

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependenciesOneWay: the packages stand on each other one way,
// parse -> session -> (validate | project) -> render -> cli, so the checker
// never links in the views or the file rewriter; the commands' own
// packages (secrets, fix) sit below render, which words their output, and
// export above it. `go list -deps` says what each package links.
func TestDependenciesOneWay(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list dependencies with")
	}
	const mod = "github.com/pisess/pisess/internal/"
	forbidden := map[string][]string{
		"edit":     {"session", "validate", "project", "migrate", "render", "audit", "fix", "export", "cli"},
		"parse":    {"session", "validate", "project", "migrate", "render", "audit", "fix", "cli"},
		"session":  {"validate", "project", "migrate", "render", "audit", "fix", "cli"},
		"validate": {"project", "migrate", "render", "fix", "cli"},
		"project":  {"validate", "migrate", "render", "audit", "fix", "cli"},
		"audit":    {"project", "migrate", "render", "fix", "cli"},
		"migrate":  {"validate", "project", "render", "audit", "fix", "cli"},
		"secrets":  {"session", "validate", "project", "migrate", "render", "audit", "fix", "export", "cli"},
		"fix":      {"render", "audit", "export", "cli"},
		"du":       {"render", "audit", "export", "cli"},
		"render":   {"export", "cli"},
		"export":   {"cli"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{.ImportPath}}", mod+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := map[string]bool{}
		for _, d := range strings.Fields(string(out)) {
			deps[strings.TrimPrefix(d, mod)] = true
		}
		if !deps[pkg] {
			t.Fatalf("go list -deps %s does not list the package itself: %s", pkg, out)
		}
		for _, b := range bad {
			if deps[b] {
				t.Errorf("%s imports %s (directly or through another package)", pkg, b)
			}
		}
	}
}
