//go:build !linux

package safefile

import (
	"io/fs"
	"time"
)

// atimeOf: the access time is not read on this platform; the new file
// gets the modification time for both.
func atimeOf(info fs.FileInfo) time.Time { return info.ModTime() }

// copyXattrs: extended attributes are not copied on this platform (on
// macOS the new generation has none of the original's, com.apple.* and
// others; on Windows NTFS extended attributes and alternate data streams,
// Zone.Identifier among them).
func copyXattrs(File, File) error { return nil }
