package pipeline

import (
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// noLeak fails t when goroutines started during the test are still
// running at its end (the tests of this file do not run in parallel).
func noLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Errorf("%d goroutines before the test, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// job is a test batch: its number and what Work made of it.
type job struct {
	n      int
	square int
	worker int
}

// run submits batches 0..n-1 through a pipeline of cfg (Work squares,
// Settle records) and returns the batches settled, the first error of
// Submit or Wait, and the largest number of batches pending at once.
func run(t *testing.T, cfg Config[*job], n int) (settled []int, err error, peak int64) {
	t.Helper()
	var pending atomic.Int64
	work := cfg.Work
	cfg.Work = func(w int, b *job) error {
		if w < 0 || w >= max(cfg.Workers, 1) {
			t.Errorf("worker %d of %d", w, cfg.Workers)
		}
		b.square, b.worker = b.n*b.n, w
		if work != nil {
			return work(w, b)
		}
		return nil
	}
	settle := cfg.Settle
	cfg.Settle = func(b *job) error {
		pending.Add(-1)
		if b.square != b.n*b.n {
			t.Errorf("batch %d settled unprocessed", b.n)
		}
		settled = append(settled, b.n)
		if settle != nil {
			return settle(b)
		}
		return nil
	}
	p := New(cfg)
	defer p.Close()
	for i := range n {
		pending.Add(1)
		if err := p.Submit(&job{n: i}); err != nil {
			return settled, err, peak
		}
		peak = max(peak, pending.Load())
	}
	return settled, p.Wait(), peak
}

func upTo(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestOrderAndBound(t *testing.T) {
	tests := []struct {
		name              string
		workers, inFlight int
		n                 int
		wantPeak          int64 // the bound of pending batches
	}{
		{"inline", 1, 0, 100, 0},
		{"no batches", 4, 0, 0, 0},
		{"two workers", 2, 0, 1000, 4},
		{"eight workers, in flight 3", 8, 3, 1000, 3},
		{"in flight 1", 4, 1, 200, 1},
		{"zero workers is one", 0, 0, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeak(t)
			cfg := Config[*job]{Workers: tt.workers, InFlight: tt.inFlight}
			cfg.Work = func(int, *job) error {
				runtime.Gosched() // let the batches finish out of order
				return nil
			}
			settled, err, peak := run(t, cfg, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(settled, upTo(tt.n)) {
				t.Errorf("settled %v, want 0..%d in order", settled, tt.n-1)
			}
			if peak > tt.wantPeak {
				t.Errorf("%d batches pending at once, want at most %d", peak, tt.wantPeak)
			}
		})
	}
}

// TestInline: one worker processes and settles each batch in Submit, on
// the caller's goroutine, with no goroutine of its own.
func TestInline(t *testing.T) {
	before := runtime.NumGoroutine()
	var settled []int
	var during int
	p := New(Config[*job]{Workers: 1,
		Work: func(_ int, b *job) error {
			during = runtime.NumGoroutine()
			return nil
		},
		Settle: func(b *job) error { settled = append(settled, b.n); return nil },
	})
	defer p.Close()
	for i := range 3 {
		if err := p.Submit(&job{n: i}); err != nil {
			t.Fatal(err)
		}
		if len(settled) != i+1 {
			t.Fatalf("after Submit of batch %d, settled %v", i, settled)
		}
	}
	if during != before {
		t.Errorf("%d goroutines while working inline, %d before", during, before)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
}

var errBad = errors.New("bad batch")

func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		workers int
		work    func(w int, b *job) error
		settle  func(b *job) error
		n       int
		want    []int // settled before the error
	}{
		{"work fails, inline", 1, failAt(5), nil, 20, upTo(5)},
		{"work fails", 4, failAt(5), nil, 200, upTo(5)},
		{"work fails at the first", 3, failAt(0), nil, 200, nil},
		{"work fails at the last", 2, failAt(9), nil, 10, upTo(9)},
		{"settle fails, inline", 1, nil, settleFailAt(7), 20, upTo(8)},
		{"settle fails", 4, nil, settleFailAt(7), 200, upTo(8)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeak(t)
			settled, err, _ := run(t, Config[*job]{Workers: tt.workers, Work: tt.work, Settle: tt.settle}, tt.n)
			if !errors.Is(err, errBad) {
				t.Errorf("error %v, want %v", err, errBad)
			}
			if !slices.Equal(settled, tt.want) {
				t.Errorf("settled %v, want %v", settled, tt.want)
			}
		})
	}
}

func failAt(k int) func(int, *job) error {
	return func(_ int, b *job) error {
		if b.n == k {
			return errBad
		}
		return nil
	}
}

func settleFailAt(k int) func(*job) error {
	return func(b *job) error {
		if b.n == k {
			return errBad
		}
		return nil
	}
}

// TestErrorStops: after an error no batch is settled, Submit and Wait
// return it, and the batches after it are not all processed.
func TestErrorStops(t *testing.T) {
	noLeak(t)
	var worked atomic.Int64
	release := make(chan struct{})
	p := New(Config[*job]{Workers: 2, InFlight: 4,
		Work: func(_ int, b *job) error {
			worked.Add(1)
			if b.n == 0 {
				<-release
				return errBad
			}
			return nil
		},
		Settle: func(b *job) error { t.Errorf("batch %d settled", b.n); return nil },
	})
	defer p.Close()
	for i := range 3 {
		if err := p.Submit(&job{n: i}); err != nil {
			t.Fatalf("Submit %d: %v", i, err)
		}
	}
	close(release)
	err := p.Submit(&job{n: 3}) // waits for none: four are allowed
	for i := 4; err == nil && i < 100; i++ {
		err = p.Submit(&job{n: i})
	}
	if !errors.Is(err, errBad) {
		t.Fatalf("Submit: %v, want %v", err, errBad)
	}
	if err := p.Submit(&job{n: 100}); !errors.Is(err, errBad) {
		t.Errorf("Submit after the error: %v", err)
	}
	if err := p.Wait(); !errors.Is(err, errBad) {
		t.Errorf("Wait: %v", err)
	}
	if n := worked.Load(); n > 8 {
		t.Errorf("%d batches processed after the first failed", n)
	}
}

// TestClose: Close abandons what is pending, stops every worker (noLeak)
// and is idempotent; a Submit after it is refused.
func TestClose(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		noLeak(t)
		var settled int
		p := New(Config[*job]{Workers: workers, InFlight: 16,
			Work:   func(int, *job) error { time.Sleep(time.Millisecond); return nil },
			Settle: func(*job) error { settled++; return nil },
		})
		for i := range 10 {
			if err := p.Submit(&job{n: i}); err != nil {
				t.Fatal(err)
			}
		}
		p.Close()
		p.Close()
		if workers > 1 && settled == 10 {
			t.Errorf("%d workers: Close settled every batch", workers)
		}
		if err := p.Submit(&job{}); !errors.Is(err, ErrClosed) {
			t.Errorf("Submit after Close: %v", err)
		}
		if err := p.Wait(); !errors.Is(err, ErrClosed) {
			t.Errorf("Wait after Close: %v", err)
		}
	}
}

// TestDrain: Drain settles everything submitted and the pipeline goes on.
func TestDrain(t *testing.T) {
	noLeak(t)
	var settled []int
	p := New(Config[*job]{Workers: 3,
		Work:   func(int, *job) error { return nil },
		Settle: func(b *job) error { settled = append(settled, b.n); return nil },
	})
	defer p.Close()
	for i := range 5 {
		p.Submit(&job{n: i})
	}
	if err := p.Drain(); err != nil || !slices.Equal(settled, upTo(5)) {
		t.Fatalf("Drain: %v, settled %v", err, settled)
	}
	for i := 5; i < 10; i++ {
		p.Submit(&job{n: i})
	}
	if err := p.Wait(); err != nil || !slices.Equal(settled, upTo(10)) {
		t.Fatalf("Wait: %v, settled %v", err, settled)
	}
}

// TestWorkersShareTheLoad: with several workers, batches run at once.
func TestWorkersShareTheLoad(t *testing.T) {
	noLeak(t)
	var running, most atomic.Int64
	p := New(Config[*job]{Workers: 4,
		Work: func(int, *job) error {
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(2 * time.Millisecond)
			running.Add(-1)
			return nil
		},
	})
	defer p.Close()
	for i := range 40 {
		p.Submit(&job{n: i})
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if most.Load() < 2 {
		t.Errorf("at most %d batch processed at a time by 4 workers", most.Load())
	}
}
