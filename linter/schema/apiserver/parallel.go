package apiserver

import (
	"context"
	"runtime"
)

// maxInFlightBytes bounds the source bytes of the definitions validated at
// once beyond the first: decoding a definition costs tens of times its
// size in memory (the YAML node tree, the decoded content, the API
// server's types), so concurrency is bounded by memory as well as by
// CPUs.
const maxInFlightBytes = 2 << 20

// ordered runs work on every item of items, up to GOMAXPROCS at once and
// at most maxInFlightBytes of them (by size) beyond the first, and calls
// emit with each result in the items' order, from the calling goroutine
// (a linter.Pass is used by one goroutine). Items started but not yet
// emitted are at most GOMAXPROCS, so memory holds that many results. It
// returns the context's error as soon as ctx is done (the API server's
// validation does not look at a context: a worker still running goes on in
// the background, its result dropped), and emit's first error.
func ordered[I, T any](ctx context.Context, items []I, size func(I) int, work func(I) T, emit func(I, T) error) error {
	workers := min(runtime.GOMAXPROCS(0), len(items))
	type slot struct {
		item I
		size int
		done chan T
	}
	var (
		pending  []slot // started, in order
		inFlight int    // bytes of pending
		next     int
	)
	for next < len(items) || len(pending) > 0 {
		for next < len(items) && len(pending) < max(workers, 1) {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := size(items[next])
			if len(pending) > 0 && inFlight+n > maxInFlightBytes {
				break
			}
			s := slot{item: items[next], size: n, done: make(chan T, 1)}
			go func() { s.done <- work(s.item) }()
			pending = append(pending, s)
			inFlight += n
			next++
		}
		head := pending[0]
		select {
		case r := <-head.done:
			pending = pending[1:]
			inFlight -= head.size
			if err := emit(head.item, r); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}
