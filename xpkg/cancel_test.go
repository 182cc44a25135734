package xpkg_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/testbudget"
	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// cancelBound is how long Open+Lint may take to return once its context is
// cancelled. The target is 100 ms; the bound is generous because
// the machine is shared and the race detector slows everything down. The
// measured latency is logged; the bound is asserted with the budgets on
// (testbudget: .ci/run's hostile step), as a measurement.
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
			landed := 0
			for _, after := range []time.Duration{200 * time.Millisecond, 1500 * time.Millisecond} {
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				go func() {
					pkg, err := xpkg.Open(ctx, src)
					if err == nil {
						_, err = rules.LintPackage(ctx, pkg)
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
					landed++
					if !errors.Is(err, context.Canceled) {
						t.Errorf("cancelled after %v: err = %v, want context.Canceled", after, err)
					}
					if latency > cancelBound {
						testbudget.Errorf(t, "cancelled after %v: returned %v after the cancellation, want under %v", after, latency, cancelBound)
					}
				case <-time.After(cancelBound + 30*time.Second):
					t.Fatalf("cancelled after %v: still running %v later", after, cancelBound+30*time.Second)
				}
			}
			if landed == 0 {
				t.Errorf("every open and lint finished before its cancellation: nothing was tested")
			}
		})
	}
}

// TestCancelMonolithLint opens the monolith (2065 CRDs), then lints it with
// a rule that cancels the context when it runs, placed among the built-in
// rules: the call returns context.Canceled, promptly, whatever the other
// rules were doing then. The cancellation comes from inside the work, so
// it always lands while Lint is running (a timer would race the lint, which
// takes a few tens of milliseconds). That every built-in rule stops at a
// cancelled context is tested rule by rule in the linter
// (TestRulesStopWhenCancelled).
func TestCancelMonolithLint(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the 102 MB monolith package")
	}
	name := "provider-upjet-aws-monolith"
	if raceEnabled {
		// A minute to parse under the race detector; the cancellation
		// from inside a rule is the same on a smaller package. .ci/run
		// runs the monolith without -race.
		name = "provider-aws"
	}
	src := testcorpus.Path(t, name) + "/package.yaml"
	pkg, err := xpkg.Open(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	builtin := rules.Builtin()
	for _, at := range []int{0, len(builtin) / 2, len(builtin)} {
		ctx, cancel := context.WithCancel(t.Context())
		var cancelled time.Time
		canceller := &linter.Rule{
			ID: "CANCEL", Name: "cancel", Severity: linter.SeverityInfo, Doc: "Cancels the Lint call's context.",
			Run: func(*linter.Pass) error {
				cancelled = time.Now()
				cancel()
				return nil
			},
		}
		set := slices.Insert(slices.Clone(builtin), at, canceller)
		_, err := rules.LintPackage(ctx, pkg, linter.WithRuleSet(set...))
		returned := time.Now()
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("canceller at %d of %d rules: err = %v, want context.Canceled", at, len(set), err)
		}
		latency := returned.Sub(cancelled)
		t.Logf("canceller at %d of %d rules: Lint returned %v after the cancellation", at, len(set), latency)
		if latency > cancelBound {
			testbudget.Errorf(t, "canceller at %d of %d rules: returned %v after the cancellation, want under %v", at, len(set), latency, cancelBound)
		}
	}
}
