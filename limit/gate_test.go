package limit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/limit"
)

// TestGateRefuses: a call that alone exceeds the bytes in flight, and a
// call beyond a full queue, are refused at once with the limit named; a
// call whose context is done is refused with its error.
func TestGateRefuses(t *testing.T) {
	t.Parallel()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name      string
		lim       limit.GateLimits
		running   []int64 // calls admitted first and held
		ctx       context.Context
		n         int64
		wantLimit limit.Name
		wantCtx   bool
	}{
		{"too large alone", limit.GateLimits{MaxBytesInFlight: 10}, nil, context.Background(), 11, "MaxBytesInFlight", false},
		{"queue full", limit.GateLimits{MaxActive: 1, MaxQueued: 1}, []int64{0}, context.Background(), 0, "MaxQueued", false},
		{"context done", limit.GateLimits{}, nil, done, 0, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := limit.NewGate(tc.lim)
			for _, n := range tc.running {
				rel, err := g.Enter(context.Background(), n)
				if err != nil {
					t.Fatal(err)
				}
				defer rel()
			}
			// One waiter fills a queue of one.
			if tc.wantLimit == "MaxQueued" {
				wctx, wcancel := context.WithCancel(context.Background())
				defer wcancel()
				go func() {
					if rel, err := g.Enter(wctx, 0); err == nil {
						rel()
					}
				}()
				waitLoad(t, g, func(_ int, _ int64, q int) bool { return q == 1 })
			}
			rel, err := g.Enter(tc.ctx, tc.n)
			if err == nil {
				rel()
				t.Fatal("admitted, want a refusal")
			}
			var le *limit.Error
			switch {
			case tc.wantCtx:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("got %v, want context.Canceled", err)
				}
			case !errors.As(err, &le) || le.Limit != tc.wantLimit || !errors.Is(err, limit.ErrExceeded):
				t.Errorf("got %v, want a *limit.Error for %s", err, tc.wantLimit)
			}
		})
	}
}

// waitLoad waits until the gate's load satisfies ok.
func waitLoad(t *testing.T, g *limit.Gate, ok func(active int, bytes int64, queued int) bool) {
	t.Helper()
	for i := 0; ; i++ {
		if ok(g.Load()) {
			return
		}
		if i == 5000 {
			a, b, q := g.Load()
			t.Fatalf("gate load stuck at %d active, %d bytes, %d queued", a, b, q)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGateBounds: many callers never run more than MaxActive at once nor
// hold more than MaxBytesInFlight; every one is admitted in the end; a
// waiter that gives up leaves the gate's count as it was.
func TestGateBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		lim   limit.GateLimits
		sizes []int64
	}{
		{"by count", limit.GateLimits{MaxActive: 3, MaxQueued: 100, MaxBytesInFlight: limit.Unlimited}, []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"by bytes", limit.GateLimits{MaxActive: 100, MaxQueued: 100, MaxBytesInFlight: 10}, []int64{6, 5, 4, 3, 10, 2, 9, 1, 7, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := limit.NewGate(tc.lim)
			lim := g.Limits()
			type result struct{ err error }
			results := make(chan result, len(tc.sizes))
			for _, n := range tc.sizes {
				go func() {
					rel, err := g.Enter(context.Background(), n)
					if err == nil {
						a, b, _ := g.Load()
						if a > lim.MaxActive || b > lim.MaxBytesInFlight {
							err = errors.New("over the gate's limits")
						}
						time.Sleep(time.Millisecond)
						rel()
						rel() // a second call is a no-op
					}
					results <- result{err}
				}()
			}
			for range tc.sizes {
				if r := <-results; r.err != nil {
					t.Error(r.err)
				}
			}
			if a, b, q := g.Load(); a != 0 || b != 0 || q != 0 {
				t.Errorf("load after all released: %d active, %d bytes, %d queued; want none", a, b, q)
			}
		})
	}
	t.Run("waiter gives up", func(t *testing.T) {
		t.Parallel()
		g := limit.NewGate(limit.GateLimits{MaxActive: 1})
		rel, err := g.Enter(context.Background(), 5)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		if _, err := g.Enter(ctx, 5); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want context.DeadlineExceeded", err)
		}
		rel()
		if a, b, q := g.Load(); a != 0 || b != 0 || q != 0 {
			t.Errorf("load: %d active, %d bytes, %d queued; want none", a, b, q)
		}
	})
}
