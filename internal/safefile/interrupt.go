package safefile

import (
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Temps records the temp files of the rewrites under way (and a backup
// copy while it is being written), so that a process stopped by a signal
// (Ctrl-C, SIGTERM) can remove them before it ends: the promise that a
// failed run leaves nothing behind holds for an interrupted one too (only
// SIGKILL and power loss are beyond it). The zero value is ready; it is
// safe for concurrent use.
type Temps struct {
	mu      sync.Mutex
	names   map[string]bool
	stopped bool
}

// errStopped refuses a temp file created after RemoveAll.
var errStopped = errors.New("the run was interrupted")

// add records a temp file just created; after RemoveAll it removes the
// file at once and refuses it.
func (t *Temps) add(fsys FS, name string) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		fsys.Remove(name)
		return errStopped
	}
	if t.names == nil {
		t.names = map[string]bool{}
	}
	t.names[name] = true
	return nil
}

// done forgets a temp file that was renamed over its original or removed.
func (t *Temps) done(name string) {
	if t == nil || name == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.names, name)
}

// RemoveAll removes every recorded temp file and makes later ones fail.
// A temp file renamed meanwhile is no longer under its name: removing it
// finds nothing, and the new generation stays in place.
func (t *Temps) RemoveAll(fsys FS) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	for name := range t.names {
		if err := fsys.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue // nothing more can be done on the way out
		}
		delete(t.names, name)
	}
}

// RemoveOnSignal makes SIGINT and SIGTERM remove the recorded temp files
// and then end the process by that signal, as it would have ended without
// the handler; where the signal cannot be sent again (Windows), by exit(2),
// main's os.Exit handed down (nil: the command goes on, and its next temp
// file fails). stop undoes it.
func (t *Temps) RemoveOnSignal(fsys FS, exit func(code int)) (stop func()) {
	ch := make(chan os.Signal, 1)
	quit := make(chan struct{})
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-ch:
			t.RemoveAll(fsys)
			signal.Reset(sig)
			p, err := os.FindProcess(os.Getpid())
			if err != nil || p.Signal(sig) != nil {
				if exit != nil {
					exit(2) // no signal to send here: end as an I/O failure
				}
				return
			}
			select {} // the signal ends the process
		case <-quit:
		}
	}()
	return sync.OnceFunc(func() {
		signal.Stop(ch)
		close(quit)
	})
}
