package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ScratchFile is a file of the system's temporary directory that a run
// needs for a while (a session read from standard input, a migrated copy
// to index, a spool past its memory): never the user's, removed on Close,
// and recorded in Temps meanwhile so that Ctrl-C removes it too.
type ScratchFile struct {
	*os.File
	temps *Temps
	named bool // still under its name
}

// Scratch creates a scratch file in the system's temporary directory,
// readable and writable by this user only, named after pattern as
// os.CreateTemp names files (the last "*" is replaced by random hex
// digits), and records it in temps (nil records nothing). It is opened
// sharing deletion (so Unlink works on Windows too) and never through a
// symbolic link.
func Scratch(temps *Temps, pattern string) (*ScratchFile, error) {
	return scratchIn(os.TempDir(), temps, pattern)
}

func scratchIn(dir string, temps *Temps, pattern string) (*ScratchFile, error) {
	if strings.ContainsRune(pattern, filepath.Separator) || strings.ContainsRune(pattern, '/') {
		return nil, &Error{Code: CreateFailed, Path: pattern, Err: errors.New("a scratch file's pattern names no directory")}
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	_, f, err := createUnique(OS(), temps, dir, prefix, suffix, 0o600)
	if err != nil {
		return nil, &Error{Code: CreateFailed, Path: filepath.Join(dir, pattern), Err: err}
	}
	return &ScratchFile{File: f.(*os.File), temps: temps, named: true}, nil // OS() opens an *os.File
}

// Unlink removes the file's name at once, for a caller that only needs
// the open descriptor: nothing is left behind whatever ends the process,
// even SIGKILL. Where the name cannot be removed while the file is open,
// it stays until Close.
func (s *ScratchFile) Unlink() {
	if s.named && os.Remove(s.Name()) == nil {
		s.named = false
		s.temps.done(s.Name())
	}
}

// Close closes the file and removes it.
func (s *ScratchFile) Close() error {
	err := s.File.Close()
	if s.named {
		if rerr := os.Remove(s.Name()); rerr == nil || errors.Is(rerr, fs.ErrNotExist) {
			s.named = false
		} else if err == nil {
			err = rerr
		}
		s.temps.done(s.Name())
	}
	return err
}
