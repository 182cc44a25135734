package apiserver

import (
	"context"
	"runtime"
)

// maxInFlightBytes bounds the source bytes of the definitions validated at
// once beyond the first: validating a definition costs up to a hundred
// times its size in memory (the YAML node tree, the decoded content, the
// derived schemas, the API server's types; an XRD of 0.7 MB took 80 MiB
// more with a second XRD beside it, lint-cost-xrd-design), so
// concurrency is bounded by memory as well as by CPUs. Most CRDs are far
// smaller (the upjet monolith's: 28 KB median, 96 KB at the 90th
// percentile).
const maxInFlightBytes = 256 << 10

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
