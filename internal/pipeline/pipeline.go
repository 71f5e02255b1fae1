// Package pipeline is pisess's one ordered worker pipeline: the caller
// submits batches in order, Workers goroutines process them, and each
// batch is settled in submit order on the caller's goroutine. At most
// InFlight batches are submitted and not yet settled, so memory is
// bounded by the batches, whatever the input's size. With one worker
// nothing is started: Submit processes and settles the batch itself.
//
// The first error, of a batch's processing or of its settling, in submit
// order, stops the pipeline: the batches after it are not settled, those
// not yet begun are not processed, and Submit and Wait return it. Close
// stops it early (on an error of the caller's own, or a return it did not
// plan): it waits for the batches being processed, drops the rest, and
// returns once every worker has exited. Deferring Close right after New
// is how a caller never leaks a goroutine.
//
//	p := pipeline.New(pipeline.Config[*batch]{Workers: n, Work: work, Settle: settle})
//	defer p.Close()
//	for ... {
//		if err := p.Submit(b); err != nil {
//			return err
//		}
//	}
//	return p.Wait()
package pipeline

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Config says how a Pipeline processes and settles its batches.
type Config[B any] struct {
	// Workers is the number of goroutines that process batches; 1 or
	// fewer processes each on the caller's goroutine, in Submit.
	Workers int
	// InFlight bounds the batches submitted and not settled, the one
	// being submitted included; 0 is 2 × Workers.
	InFlight int
	// Work processes one batch, on one of the workers; worker is its
	// number, in [0, Workers), for state a worker keeps of its own. It
	// must not touch another batch.
	Work func(worker int, b B) error
	// Settle takes a processed batch, in submit order, on the caller's
	// goroutine (in Submit or Wait). nil settles nothing.
	Settle func(b B) error
}

// Pipeline is one run of batches through a Config's Work and Settle. It
// is used by one goroutine, the caller's.
type Pipeline[B any] struct {
	cfg      Config[B]
	work     chan *slot[B] // nil: processed inline
	queue    []*slot[B]    // submitted, not settled, in submit order
	workers  sync.WaitGroup
	stopping atomic.Bool // workers skip the batches not yet begun
	err      error
	closed   bool
}

// slot is one submitted batch and what its processing returned.
type slot[B any] struct {
	b    B
	err  error
	done chan struct{}
}

// ErrClosed is Submit's error after Wait or Close.
var ErrClosed = errors.New("pipeline: submit after Wait or Close")

// New starts the workers of a pipeline.
func New[B any](cfg Config[B]) *Pipeline[B] {
	cfg.Workers = max(cfg.Workers, 1)
	if cfg.InFlight <= 0 {
		cfg.InFlight = 2 * cfg.Workers
	}
	p := &Pipeline[B]{cfg: cfg}
	if cfg.Workers == 1 {
		return p
	}
	p.work = make(chan *slot[B], cfg.InFlight) // never full: the queue is no longer
	for w := range cfg.Workers {
		p.workers.Go(func() { p.worker(w) })
	}
	return p
}

func (p *Pipeline[B]) worker(w int) {
	for s := range p.work {
		if !p.stopping.Load() {
			s.err = p.cfg.Work(w, s.b)
		}
		close(s.done)
	}
}

// Submit queues b, after the batches submitted before it, and settles
// those ahead of it that are done; it waits for the oldest while InFlight
// batches are pending. Its error is the pipeline's first (or ErrClosed),
// and b is then never settled.
func (p *Pipeline[B]) Submit(b B) error {
	switch {
	case p.err != nil:
		return p.err
	case p.closed:
		return ErrClosed
	case p.work == nil:
		if err := p.cfg.Work(0, b); err != nil {
			return p.fail(err)
		}
		return p.settle(b)
	}
	for len(p.queue) >= p.cfg.InFlight {
		if err := p.settleHead(); err != nil {
			return err
		}
	}
	s := &slot[B]{b: b, done: make(chan struct{})}
	p.queue = append(p.queue, s)
	p.work <- s
	for len(p.queue) > 0 && isDone(p.queue[0]) {
		if err := p.settleHead(); err != nil {
			return err
		}
	}
	return nil
}

// Drain settles every batch submitted so far, leaving the pipeline open
// for more: a caller that must do something between two batches (process
// one too large to have company in memory) drains first.
func (p *Pipeline[B]) Drain() error {
	if p.err != nil {
		return p.err
	}
	for len(p.queue) > 0 {
		if err := p.settleHead(); err != nil {
			return err
		}
	}
	return nil
}

// Wait settles every batch submitted, stops the workers and returns the
// pipeline's first error (ErrClosed after Close or Wait when there was
// none).
func (p *Pipeline[B]) Wait() error {
	if p.closed {
		if p.err != nil {
			return p.err
		}
		return ErrClosed
	}
	err := p.Drain()
	p.Close()
	return err
}

// Close stops the pipeline without settling what is pending: the workers
// finish the batch they are at, skip the rest and exit before Close
// returns. It may be called more than once, and after Wait.
func (p *Pipeline[B]) Close() {
	if p.closed {
		return
	}
	p.closed = true
	p.queue = nil
	if p.work != nil {
		p.stopping.Store(true)
		close(p.work)
		p.workers.Wait()
	}
}

// settleHead waits for the oldest pending batch and settles it.
func (p *Pipeline[B]) settleHead() error {
	s := p.queue[0]
	<-s.done
	p.queue[0] = nil // the batch is the caller's again
	p.queue = p.queue[1:]
	if s.err != nil {
		return p.fail(s.err)
	}
	return p.settle(s.b)
}

func (p *Pipeline[B]) settle(b B) error {
	if p.cfg.Settle == nil {
		return nil
	}
	if err := p.cfg.Settle(b); err != nil {
		return p.fail(err)
	}
	return nil
}

// fail records the pipeline's first error and tells the workers to skip
// what they have not begun.
func (p *Pipeline[B]) fail(err error) error {
	p.err = err
	p.stopping.Store(true)
	p.queue = nil
	return err
}

func isDone[B any](s *slot[B]) bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
