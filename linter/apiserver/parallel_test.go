package apiserver

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestOrdered checks that ordered emits every result in the items' order,
// keeps at most GOMAXPROCS items started and not emitted (and one item at
// a time when they are larger than maxInFlightBytes), stops at emit's
// first error, and returns as soon as the context is done even while a
// worker is still running.
func TestOrdered(t *testing.T) {
	t.Parallel()
	items := make([]int, 200)
	for i := range items {
		items[i] = i
	}
	for _, tc := range []struct {
		name    string
		size    int
		maxLive int64
	}{
		{"small", 1, int64(runtime.GOMAXPROCS(0))},
		{"large", maxInFlightBytes, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var live, peak atomic.Int64
			var got []int
			err := ordered(context.Background(), items, func(int) int { return tc.size }, func(i int) int {
				n := live.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				if i%7 == 0 {
					time.Sleep(time.Millisecond) // out of order completion
				}
				return i * 2
			}, func(i, r int) error {
				live.Add(-1)
				if r != i*2 {
					t.Errorf("item %d: result %d", i, r)
				}
				got = append(got, i)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("emitted %v, want the items' order", got)
				}
			}
			if len(got) != len(items) {
				t.Fatalf("emitted %d items, want %d", len(got), len(items))
			}
			if p := peak.Load(); p > tc.maxLive {
				t.Errorf("%d items started and not emitted at once, want at most %d", p, tc.maxLive)
			}
		})
	}
	t.Run("emit error", func(t *testing.T) {
		t.Parallel()
		stop := errors.New("stop")
		n := 0
		err := ordered(context.Background(), items, func(int) int { return 1 }, func(i int) int { return i }, func(i, _ int) error {
			n++
			if i == 10 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 11 {
			t.Errorf("err %v after %d emits, want stop after 11", err, n)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		release := make(chan struct{})
		defer close(release)
		go func() {
			time.Sleep(10 * time.Millisecond)
			cancel()
		}()
		// The workers block until ordered has returned: waiting for
		// them would hang the test.
		err := ordered(ctx, items, func(int) int { return 1 }, func(i int) int {
			<-release // a worker that never looks at the context
			return i
		}, func(int, int) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
	})
}
