package cli

import "sync"

// ordered runs work(i) for i in [0,n) on up to jobs goroutines and calls
// emit(i, result) in index order, as soon as each result's turn comes: the
// output is stable whatever the scheduling, and at most about jobs results
// wait in memory ahead of their turn.
func ordered[R any](n, jobs int, work func(i int) R, emit func(i int, r R)) {
	jobs = max(jobs, 1)
	type done struct {
		i int
		r R
	}
	next := make(chan int)
	results := make(chan done, jobs)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range next {
				results <- done{i, work(i)}
			}
		})
	}
	go func() {
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
		close(results)
	}()
	waiting := make(map[int]R)
	want := 0
	for d := range results {
		waiting[d.i] = d.r
		for r, ok := waiting[want]; ok; r, ok = waiting[want] {
			delete(waiting, want)
			emit(want, r)
			want++
		}
	}
}
