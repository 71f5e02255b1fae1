package cli

import (
	"runtime/debug"
	"testing"
)

// Every way pisess is built names a version or a commit: what make build
// and the release stamp, else the module version go install …@version
// records, else the VCS revision of a go build in a checkout.
func TestBuildString(t *testing.T) {
	const hash = "223a4ac1d6f1b2c3d4e5f60718293a4b5c6d7e8f"
	stamped := []struct {
		build Build
		want  string
	}{
		{Build{Version: "v1.2.0", Commit: hash, Date: "2026-12-01T23:00:00Z"}, "v1.2.0 (commit 223a4ac1d6f1, 2026-12-01T23:00:00Z)"},
		{Build{Version: "223a4ac", Commit: hash, Date: "2026-12-01T23:00:00Z"}, "223a4ac (2026-12-01T23:00:00Z)"},
		{Build{Version: "223a4ac-dirty", Commit: hash}, "223a4ac-dirty"},
		{Build{Version: "v1.2.0-3-g223a4ac", Commit: hash}, "v1.2.0-3-g223a4ac (commit 223a4ac1d6f1)"},
		{Build{Commit: hash}, "devel (commit 223a4ac1d6f1)"},
	}
	for _, tt := range stamped {
		if got := tt.build.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.build, got, tt.want)
		}
	}
	info := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"go install @version", debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"go build in a checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: hash}, {Key: "vcs.time", Value: "2026-12-01T23:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"devel (revision 223a4ac1d6f1, 2026-12-01T23:00:00Z, modified)"},
		{"-buildvcs=false", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			"devel (built without version control information: make build or go install …@version stamps one)"},
	}
	for _, tt := range info {
		if got := fromBuildInfo(&tt.info); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
