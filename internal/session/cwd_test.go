package session

import (
	"path/filepath"
	"testing"
)

// TestDirName: pi 1.6.0's getDefaultSessionDirPath, Windows paths
// included (the function reads them with their own separators whatever
// the system).
func TestDirName(t *testing.T) {
	tests := []struct{ cwd, want string }{
		{"/home/u/project", "--home-u-project--"},
		{`C:\Users\x`, "--C--Users-x--"},
		{`C:\Users\x\my proj`, "--C--Users-x-my proj--"},
		{"C:/Users/x", "--C--Users-x--"},
		{`\\server\share\p`, "---server-share-p--"},
		{"/", "----"},
		{"/a-b/c", "--a-b-c--"},
		{"/a/b-c", "--a-b-c--"}, // the collision pi's encoding makes
		{"/srv/café:8080/x", "--srv-café-8080-x--"},
		{"//double", "---double--"}, // one leading separator only
		{"relative/p", "--relative-p--"},
	}
	for _, tt := range tests {
		if got := DirName(tt.cwd); got != tt.want {
			t.Errorf("DirName(%q) = %q, want %q", tt.cwd, got, tt.want)
		}
	}
}

func TestPiCwd(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	wd, _ := filepath.Abs(".")
	tests := []struct{ cwd, want string }{
		{"/a/b/", "/a/b"},
		{"/a/./b/../c", "/a/c"},
		{"~", "/home/u"},
		{"~/p", "/home/u/p"},
		{"file:///srv/p", "/srv/p"},
		{"rel", filepath.Join(wd, "rel")},
	}
	for _, tt := range tests {
		if got, err := PiCwd(tt.cwd); err != nil || got != tt.want {
			t.Errorf("PiCwd(%q) = %q, %v, want %q", tt.cwd, got, err, tt.want)
		}
	}
	if _, err := PiCwd("file://host/p"); err == nil {
		t.Error("a file URL with a host: no error")
	}
}
