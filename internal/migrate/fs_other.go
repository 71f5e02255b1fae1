//go:build !unix

package migrate

import "io/fs"

// oNoFollow is not available: Rewrite still refuses a path that Lstat
// reports as a symbolic link.
const oNoFollow = 0

// chownLike: file ownership is not changed on this platform.
func chownLike(string, fs.FileInfo) error { return nil }

// syncDir: directories cannot be opened for fsync on this platform; the
// rename itself is the durable step.
func syncDir(string) error { return nil }
