//go:build unix

package session

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO nobody writes to made validate, audit, tree, path and context
// hang in open(2) forever; OpenFile reads it as empty. A pipe with a writer
// still reads to the end, waiting for the data.
func TestOpenFileNeverBlocksOnAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "s.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte, 1)
	go func() {
		f, err := OpenFile(fifo)
		if err != nil {
			t.Error(err)
			done <- nil
			return
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			t.Error(err)
		}
		done <- b
	}()
	select {
	case b := <-done:
		if len(b) != 0 {
			t.Errorf("read %q from a FIFO without a writer", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenFile blocked on a FIFO without a writer")
	}

	// With a writer that takes its time: every byte arrives.
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer w.Close()
		for _, part := range []string{"{\"type\":", "\"session\"}\n"} {
			time.Sleep(50 * time.Millisecond)
			w.WriteString(part)
		}
	}()
	time.Sleep(20 * time.Millisecond) // let the writer wait in open
	f, err := OpenFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "{\"type\":\"session\"}\n" {
		t.Errorf("read %q, %v", b, err)
	}
}

func TestOpenFileReadsRegularFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || string(b) != "{}\n" {
		t.Errorf("read %q, %v", b, err)
	}
}
