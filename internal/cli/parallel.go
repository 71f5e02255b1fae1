package cli

import "github.com/pisess/pisess/internal/pipeline"

// ordered runs work(i) for i in [0,n) on up to jobs goroutines and calls
// emit(i, result) in index order, as soon as each result's turn comes: the
// output is stable whatever the scheduling, and at most 2 × jobs results
// wait in memory ahead of their turn. One job runs inline.
func ordered[R any](n, jobs int, work func(i int) R, emit func(i int, r R)) {
	type job struct {
		i int
		r R
	}
	p := pipeline.New(pipeline.Config[*job]{
		Workers: jobs,
		Work:    func(_ int, j *job) error { j.r = work(j.i); return nil },
		Settle:  func(j *job) error { emit(j.i, j.r); return nil },
	})
	defer p.Close()
	for i := range n {
		p.Submit(&job{i: i}) // neither work nor emit fails
	}
	p.Wait()
}

// eachTarget runs work on each target, jobs at a time, and hands emit the
// outcomes in the order given (ordered); a target whose path could not be
// read reaches emit with that error, and work never sees it.
func eachTarget[R any](targets []target, jobs int, work func(target) (R, error), emit func(target, R, error)) {
	type outcome struct {
		r   R
		err error
	}
	ordered(len(targets), workers(jobs), func(i int) outcome {
		if targets[i].Err != nil {
			return outcome{err: targets[i].Err}
		}
		r, err := work(targets[i])
		return outcome{r, err}
	}, func(i int, o outcome) { emit(targets[i], o.r, o.err) })
}
