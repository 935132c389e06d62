package pgtest

import "sync"

// Release runs fn in n goroutines that a barrier starts together, and waits
// for all of them: the shape of every race test.
func Release(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}
