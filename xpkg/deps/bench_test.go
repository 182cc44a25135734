package deps_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/meta"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

// peakHeap samples the live heap every millisecond until stop is called,
// and returns the highest value seen.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

func benchResolve(b *testing.B, dir string, root *deps.Package) {
	ctx := context.Background()
	b.ReportAllocs()
	var peak uint64
	var nodes int
	for b.Loop() {
		runtime.GC()
		stop := peakHeap()
		g, err := deps.NewResolver(deps.NewDirSource(dir)).Resolve(ctx, root)
		if err != nil {
			b.Fatal(err)
		}
		res, err := graphrules.Lint(ctx, g, linter.WithCrossplaneVersion("v2.1.0"))
		if err != nil {
			b.Fatal(err)
		}
		ds := res.Diagnostics
		if len(ds) != 0 {
			b.Fatalf("%d diagnostics, first %s", len(ds), ds[0])
		}
		peak = max(peak, stop())
		nodes = len(g.Nodes)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(nodes), "packages")
}

// BenchmarkResolveDir200 resolves and lints a graph of 200 packages (plus
// the root) read from .xpkg files in a directory.
func BenchmarkResolveDir200(b *testing.B) {
	g, root := wideGraph(199)
	benchResolve(b, g.Dir(b), rootSummary(b, root))
}

// BenchmarkResolveDirLarge adds ten providers, each the corpus's
// provider-aws (7.4 MB of package.yaml, 200 CRDs), to the 200-package
// graph: the peak heap grows with the largest package times the
// concurrency, not with the sum of the packages.
func BenchmarkResolveDirLarge(b *testing.B) {
	g, root := wideGraph(199)
	dir := g.Dir(b)
	aws := testcorpus.Path(b, "provider-aws.xpkg")
	for i := range 10 {
		name := fmt.Sprintf("%sprovider-big-%d", reg, i)
		p := filepath.Join(dir, filepath.FromSlash(name), "v1.0.0.xpkg")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.Symlink(aws, p); err != nil {
			b.Fatal(err)
		}
		root = root.WithDependency(meta.KindProvider, name, "v1")
	}
	benchResolve(b, dir, rootSummary(b, root))
}
