package xpkg_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// cancelBound is how long Open+Lint may take to return once its context is
// cancelled. The target is 100 ms; the bound is generous because
// the machine is shared and the race detector slows everything down. The
// measured latency is logged.
const cancelBound = 2 * time.Second

// TestCancelMonolith starts opening and linting the largest corpus package
// (a 102 MB package.yaml, and the same package as a .xpkg), cancels after
// 200 ms, and asserts that the call returns context.Canceled promptly.
func TestCancelMonolith(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the 102 MB monolith package")
	}
	dir := testcorpus.Path(t, "provider-upjet-aws-monolith")
	sources := map[string]string{
		"package.yaml": dir + "/package.yaml",
		"xpkg":         dir + ".xpkg",
		"oci-layout":   dir + ".oci",
	}
	for _, name := range []string{"package.yaml", "xpkg", "oci-layout"} {
		src := sources[name]
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(src); err != nil {
				t.Skipf("corpus source absent: %v", err)
			}
			for _, after := range []time.Duration{200 * time.Millisecond, 1500 * time.Millisecond} {
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				go func() {
					pkg, err := xpkg.Open(ctx, src)
					if err == nil {
						_, err = pkg.Lint(ctx)
					}
					done <- err
				}()
				time.Sleep(after)
				cancelled := time.Now()
				cancel()
				select {
				case err := <-done:
					latency := time.Since(cancelled)
					t.Logf("cancelled after %v: returned %v later: %v", after, latency, err)
					if err == nil {
						t.Logf("finished before the cancellation took effect")
						continue
					}
					if !errors.Is(err, context.Canceled) {
						t.Errorf("cancelled after %v: err = %v, want context.Canceled", after, err)
					}
					if latency > cancelBound {
						t.Errorf("cancelled after %v: returned %v after the cancellation, want under %v", after, latency, cancelBound)
					}
				case <-time.After(cancelBound + 30*time.Second):
					t.Fatalf("cancelled after %v: still running %v later", after, cancelBound+30*time.Second)
				}
			}
		})
	}
}

// TestCancelMonolithLint opens the monolith, then cancels its lint after
// 20 ms (it takes a few hundred): the rules must stop as promptly as the readers.
func TestCancelMonolithLint(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the 102 MB monolith package")
	}
	src := testcorpus.Path(t, "provider-upjet-aws-monolith") + "/package.yaml"
	if _, err := os.Stat(src); err != nil {
		t.Skipf("corpus source absent: %v", err)
	}
	pkg, err := xpkg.Open(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := pkg.Lint(ctx)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		latency := time.Since(cancelled)
		t.Logf("lint returned %v after the cancellation: %v", latency, err)
		if err == nil {
			t.Skip("lint finished within 20 ms: nothing to cancel")
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if latency > cancelBound {
			t.Errorf("returned %v after the cancellation, want under %v", latency, cancelBound)
		}
	case <-time.After(cancelBound + 30*time.Second):
		t.Fatal("lint still running long after the cancellation")
	}
}
