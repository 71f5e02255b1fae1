package session

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// DirName is the name pi 1.6.0 gives the directory of a working
// directory's sessions under <agent dir>/sessions (getDefaultSessionDirPath
// of core/session-manager.js): "--", the resolved cwd without one leading
// '/' or '\', every '/', '\' and ':' made '-', then "--". cwd is the path
// as resolvePath leaves it on the machine pi runs on (PiCwd on this one),
// so a Windows cwd is read with its own separators on every system:
// `C:\Users\x` is "--C--Users-x--", `/home/u/p` "--home-u-p--". The
// encoding loses information: "/a-b/c" and "/a/b-c" are both "--a-b-c--".
func DirName(cwd string) string {
	if cwd != "" && (cwd[0] == '/' || cwd[0] == '\\') {
		cwd = cwd[1:]
	}
	return "--" + strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' {
			return '-'
		}
		return r
	}, cwd) + "--"
}

// PiCwd is the working directory pi 1.6.0 makes of a header's cwd, which
// it writes in every header it creates (resolvePath of utils/paths.js):
// "~" and "~/…" in the home directory, a file:// URL its path, then made
// absolute against the working directory and cleaned (no trailing '/').
// A file URL pi cannot read (with a host, or an escaped '/') is an error:
// pi fails to open such a session.
func PiCwd(cwd string) (string, error) {
	switch {
	case cwd == "~" || strings.HasPrefix(cwd, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("the cwd %q: %w", cwd, err)
		}
		cwd = filepath.Join(home, cwd[1:])
	case strings.HasPrefix(cwd, "file://"):
		u, err := url.Parse(cwd)
		if err != nil || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) || strings.Contains(strings.ToLower(u.EscapedPath()), "%2f") {
			return "", fmt.Errorf("the cwd %q is a file URL pi cannot read (pi fails to open the session)", cwd)
		}
		cwd = u.Path
	}
	return filepath.Abs(cwd)
}
