package sim

import (
	"runtime"
	"sync"
)

// Parallel calls fn(i) for every i in [0, n) on up to workers goroutines
// (all cores for workers < 1) and returns the error of the lowest i that
// failed. Each call must write only its own results: callers store them by
// index, so the output does not depend on which goroutine ran what, or when.
// This is the only place the simulator starts goroutines, and no run shares
// anything with another: every run is still one goroutine, deterministic.
func Parallel(n, workers int, fn func(i int) error) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	errs := make([]error, n)
	if workers <= 1 {
		for i := range n {
			if errs[i] = fn(i); errs[i] != nil {
				return errs[i]
			}
		}
		return nil
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
