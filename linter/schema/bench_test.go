package schema_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// monolithObjects parses the monolith and draws n objects of kinds kinds
// of its CRDs (every 20th CRD, the storage version), each with a spec the
// CRDs of upjet providers share.
func monolithObjects(b *testing.B, kinds, n int) (*parser.Package, []map[string]any) {
	b.Helper()
	path := filepath.Join(testcorpus.Path(b, "provider-upjet-aws-monolith"), "package.yaml")
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	pkg, err := parser.Parse(context.Background(), f)
	if err != nil {
		b.Fatal(err)
	}
	var gvks [][2]string
	for i, o := range pkg.Objects {
		if i%20 != 0 || len(gvks) == kinds {
			continue
		}
		spec, _ := o.Outline()["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		versions, _ := spec["versions"].([]any)
		for _, v := range versions {
			vm, _ := v.(map[string]any)
			if st, _ := vm["storage"].(bool); st {
				name, _ := vm["name"].(string)
				gvks = append(gvks, [2]string{group + "/" + name, kind})
			}
		}
	}
	if len(gvks) < kinds {
		b.Fatalf("found %d kinds, want %d", len(gvks), kinds)
	}
	objs := make([]map[string]any, n)
	for i := range objs {
		g := gvks[i%kinds]
		objs[i] = map[string]any{
			"apiVersion": g[0], "kind": g[1],
			"metadata": map[string]any{"name": "example", "labels": map[string]any{"team": "a"}},
			"spec": map[string]any{
				"forProvider":                map[string]any{"region": "us-east-1", "tags": map[string]any{"env": "dev"}},
				"providerConfigRef":          map[string]any{"name": "default"},
				"deletionPolicy":             "Delete",
				"writeConnectionSecretToRef": map[string]any{"name": "s", "namespace": "ns"},
			},
		}
	}
	return pkg, objs
}

// BenchmarkValidateMonolith builds a Validator for the monolith's 2065 CRDs
// and validates 1000 objects of 100 kinds with GOMAXPROCS goroutines, cold:
// each op builds a new Validator, so it pays for converting the 100 schemas
// it touches (and only those). heap-MB is the live heap after the op, the
// Validator and its converted schemas included, above the parsed package;
// cpu-s/op the CPU time of an op (wall time on a loaded machine is not).
func BenchmarkValidateMonolith(b *testing.B) {
	pkg, objs := monolithObjects(b, 100, 1000)
	ctx := context.Background()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var peak uint64
	var cpu time.Duration
	ops := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ops++
		start := cpuTime()
		v := lschema.New(pkg.Objects)
		var wg sync.WaitGroup
		next := make(chan map[string]any)
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for o := range next {
					if _, err := v.Validate(ctx, o); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		for _, o := range objs {
			next <- o
		}
		close(next)
		wg.Wait()
		cpu += cpuTime() - start
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if after.HeapAlloc > before.HeapAlloc && after.HeapAlloc-before.HeapAlloc > peak {
			peak = after.HeapAlloc - before.HeapAlloc
		}
		runtime.KeepAlive(v)
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-MB")
	// On a shared machine wall time depends on the load; CPU time does not.
	b.ReportMetric(cpu.Seconds()/float64(ops), "cpu-s/op")
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
