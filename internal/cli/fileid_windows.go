//go:build windows

package cli

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// idOf is the identity of the file or directory at path (links followed,
// as os.Stat follows them): the volume serial number and file index that
// os.SameFile compares, read from an open handle because Windows keeps
// them out of the stat information. A path that cannot be opened has no
// identity (it is then read under each of its names).
func idOf(path string, _ fs.FileInfo) (fileID, bool) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return fileID{}, false
	}
	// No access rights asked for: the attributes can be read even of a
	// file another program holds open exclusively. BACKUP_SEMANTICS opens
	// directories too.
	h, err := windows.CreateFile(name, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return fileID{}, false
	}
	defer windows.CloseHandle(h)
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return fileID{}, false
	}
	return fileID{uint64(d.VolumeSerialNumber), uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)}, true
}
