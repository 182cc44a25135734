package parser

import (
	"container/list"
	"context"
	"sync"
)

// defaultDecodeMemory is the memory budget of the documents one parse
// decodes at once, unless WithDecodeMemory says otherwise.
const defaultDecodeMemory = 64 << 20

// Estimated cost of decoding a document, for the decode budget: bytes per
// counted node (a yaml.Node, the slices holding it, and what converting it
// builds: about 170 bytes of tree and 100 of garbage and outline per node
// measured, for at most one node per count) and per byte of the document
// (its copy, and the strings of its scalars).
const (
	costPerNode = 300
	costPerByte = 4
)

// decodeCost estimates the peak memory of decoding a document of size
// bytes whose nodes count n (see countNodes).
func decodeCost(n int64, size int) int64 {
	return n*costPerNode + int64(size)*costPerByte
}

// budget is a weighted semaphore: decoding goroutines acquire the estimated
// cost of their document before they parse it and release it after, so the
// documents decoded at once fit the budget however many CPUs there are. A
// document costing more than the whole budget waits until it can run alone.
// Waiters are served in order, so a large document is not starved by small
// ones.
type budget struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters list.List // of *budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newBudget(size int64) *budget { return &budget{size: size} }

// acquire takes n from the budget (the whole budget when n is larger),
// waiting until it is free or ctx is done. It returns the amount taken, to
// give back with release.
func (b *budget) acquire(ctx context.Context, n int64) (int64, error) {
	if n > b.size {
		n = b.size
	}
	b.mu.Lock()
	if b.size-b.used >= n && b.waiters.Len() == 0 {
		b.used += n
		b.mu.Unlock()
		return n, nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	e := b.waiters.PushBack(w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return n, nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready: // acquired meanwhile: give it back
			b.used -= n
		default:
			b.waiters.Remove(e)
		}
		b.notify()
		b.mu.Unlock()
		return 0, ctx.Err()
	}
}

// release gives back n taken by acquire.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.notify()
	b.mu.Unlock()
}

// notify wakes the waiters at the front that now fit. b.mu is held.
func (b *budget) notify() {
	for {
		e := b.waiters.Front()
		if e == nil {
			return
		}
		w := e.Value.(*budgetWaiter)
		if b.size-b.used < w.n {
			return
		}
		b.used += w.n
		b.waiters.Remove(e)
		close(w.ready)
	}
}
