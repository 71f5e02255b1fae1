//go:build unix

package cli

import (
	"io/fs"
	"syscall"
)

// idOf is the identity of the file at path whose (link-following) stat is
// info: its device and inode.
func idOf(_ string, info fs.FileInfo) (fileID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}
