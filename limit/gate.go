package limit

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
)

// GateLimits bound what a Gate admits. A zero field takes its default
// (DefaultGateLimits); Unlimited (any negative value) lifts that limit, as
// in every Limits struct of this module.
type GateLimits struct {
	// MaxActive is how many calls run at once.
	MaxActive int
	// MaxQueued is how many calls wait for their turn; one more is refused
	// at once.
	MaxQueued int
	// MaxBytesInFlight bounds the sum of the bytes the running calls said
	// they may hold (Gate.Enter's n). A call that alone says more is
	// refused at once; one that does not fit beside the running calls
	// waits.
	MaxBytesInFlight int64
}

// DefaultGateLimits returns the default GateLimits: 4 calls at once, 64
// waiting, 128 MiB in flight.
func DefaultGateLimits() GateLimits {
	return GateLimits{MaxActive: 4, MaxQueued: 64, MaxBytesInFlight: 128 << 20}
}

func (l GateLimits) withDefaults() GateLimits {
	d := DefaultGateLimits()
	l.MaxActive = limitval.Or(l.MaxActive, d.MaxActive)
	l.MaxQueued = limitval.Or(l.MaxQueued, d.MaxQueued)
	l.MaxBytesInFlight = limitval.Or(l.MaxBytesInFlight, d.MaxBytesInFlight)
	return l
}

// Gate is the admission of a server that does heavy work per request
// (verifying, linting or indexing an uploaded package): at most MaxActive
// calls run at once, holding at most MaxBytesInFlight between them; at
// most MaxQueued more wait, in arrival order, until they fit or their
// context is done; any other is refused at once with a *Error, which a
// server answers with 503. A Gate is safe for concurrent use; its zero
// value is not usable: make one with NewGate.
type Gate struct {
	lim     GateLimits
	mu      sync.Mutex
	active  int
	bytes   int64
	waiters list.List // of *gateWaiter
}

type gateWaiter struct {
	n     int64
	ready chan struct{}
}

// NewGate returns a Gate with the limits l (zero fields: defaults).
func NewGate(l GateLimits) *Gate {
	return &Gate{lim: l.withDefaults()}
}

// Limits returns the gate's limits, defaults applied.
func (g *Gate) Limits() GateLimits { return g.lim }

// Enter admits a call that may hold up to n bytes while it runs, waiting
// for its turn until ctx is done. It returns the function that ends the
// call (call it once, when the work and its bytes are released), or an
// error: a *Error (matching ErrExceeded) naming MaxBytesInFlight when n
// alone exceeds it, or MaxQueued when the queue is full; ctx's error,
// wrapped, when ctx ends the wait.
func (g *Gate) Enter(ctx context.Context, n int64) (release func(), err error) {
	if n < 0 {
		n = 0
	}
	if n > g.lim.MaxBytesInFlight {
		return nil, &Error{Limit: limitval.MaxBytesInFlight, Value: n, Max: g.lim.MaxBytesInFlight}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("limit: waiting for the gate: %w", err)
	}
	g.mu.Lock()
	if g.waiters.Len() == 0 && g.fits(n) {
		g.take(n)
		g.mu.Unlock()
		return g.releaser(n), nil
	}
	if g.waiters.Len() >= g.lim.MaxQueued {
		queued := g.waiters.Len()
		g.mu.Unlock()
		return nil, &Error{Limit: limitval.MaxQueued, Value: int64(queued) + 1, Max: int64(g.lim.MaxQueued)}
	}
	w := &gateWaiter{n: n, ready: make(chan struct{})}
	e := g.waiters.PushBack(w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return g.releaser(n), nil
	case <-ctx.Done():
		g.mu.Lock()
		select {
		case <-w.ready: // admitted meanwhile: give the turn back
			g.give(n)
		default:
			g.waiters.Remove(e)
			g.notify() // the front may have been the one that did not fit
		}
		g.mu.Unlock()
		return nil, fmt.Errorf("limit: waiting for the gate: %w", ctx.Err())
	}
}

// Load returns the calls running, the bytes they hold and the calls
// waiting, at the moment of the call.
func (g *Gate) Load() (active int, bytes int64, queued int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.active, g.bytes, g.waiters.Len()
}

// fits reports whether a call of n bytes can run now. g.mu is held.
func (g *Gate) fits(n int64) bool {
	return g.active < g.lim.MaxActive && g.bytes+n <= g.lim.MaxBytesInFlight
}

func (g *Gate) take(n int64) { g.active++; g.bytes += n }

// give ends a call of n bytes and admits the waiters that now fit. g.mu
// is held.
func (g *Gate) give(n int64) {
	g.active--
	g.bytes -= n
	g.notify()
}

// notify admits the waiters at the front that fit, in order, so that a
// large call is not starved by small ones behind it. g.mu is held.
func (g *Gate) notify() {
	for {
		e := g.waiters.Front()
		if e == nil {
			return
		}
		w := e.Value.(*gateWaiter)
		if !g.fits(w.n) {
			return
		}
		g.take(w.n)
		g.waiters.Remove(e)
		close(w.ready)
	}
}

func (g *Gate) releaser(n int64) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.give(n)
			g.mu.Unlock()
		})
	}
}
