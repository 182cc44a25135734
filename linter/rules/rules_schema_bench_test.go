package rules_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
)

// BenchmarkLintCorpus lints each corpus package but the monolith (see
// BenchmarkLint), parsed outside the timed loop; compare runs with
// benchstat.
func BenchmarkLintCorpus(b *testing.B) {
	for _, name := range testcorpus.Names() {
		if name == monolith {
			continue
		}
		b.Run(name, func(b *testing.B) {
			pkg := parseCorpus(b, name)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			start, n := cpuTime(), 0
			for b.Loop() {
				n++
				if _, err := linter.Lint(ctx, pkg, linter.WithRuleSet(rules.Builtin()...)); err != nil {
					b.Fatal(err)
				}
			}
			// Wall time on a loaded machine is noise; CPU time is not.
			b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(n), "cpu-ms/op")
		})
	}
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
