package xpkg_test

import (
	"context"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/cache"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// BenchmarkOpenLintRemote compares linting the monolith (102 MB of YAML in
// a 12 MB layer) from its local .xpkg with linting it by reference from a
// loopback docker-registry: pulled on every iteration (no cache), and from
// a warm cache (no request at all). It reports wall time and the process's
// CPU time (cpu-ns/op; the registry's own CPU, in its own process, is not
// counted). Compare with `benchstat -col /source`.
func BenchmarkOpenLintRemote(b *testing.B) {
	reg := registrytest.Start(b, registrytest.Plain)
	for _, name := range []string{"provider-aws", "provider-upjet-aws-monolith"} {
		b.Run(name, func(b *testing.B) { benchOpenLintRemote(b, reg, name) })
	}
}

func benchOpenLintRemote(b *testing.B, reg *registrytest.Registry, name string) {
	local := testcorpus.Path(b, name+".xpkg")
	ctx := context.Background()
	pusher, _ := remote.New(remote.WithAnonymous())
	src, err := oci.Open(ctx, local)
	if err != nil {
		b.Fatal(err)
	}
	img, err := oci.Resolve(ctx, src)
	if err != nil {
		b.Fatal(err)
	}
	repo, _ := pusher.Repository(reg.Host + "/corpus/" + name)
	if err := repo.PushImage(ctx, src, img.Descriptor, []string{"v1"}); err != nil {
		b.Fatal(err)
	}
	src.Close()
	ref := reg.Host + "/corpus/" + name + ":v1"

	cc, err := cache.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	cached, _ := remote.New(remote.WithAnonymous(), remote.WithCache(cc))
	if _, err := xpkg.Open(ctx, ref, xpkg.WithRemote(cached)); err != nil { // warm the cache
		b.Fatal(err)
	}
	uncached, _ := remote.New(remote.WithAnonymous())

	for _, bc := range []struct {
		source string
		open   func() (*xpkg.Package, error)
	}{
		{"local", func() (*xpkg.Package, error) { return xpkg.Open(ctx, local) }},
		{"registry", func() (*xpkg.Package, error) { return xpkg.Open(ctx, ref, xpkg.WithRemote(uncached)) }},
		{"cache", func() (*xpkg.Package, error) { return xpkg.Open(ctx, ref, xpkg.WithRemote(cached)) }},
	} {
		b.Run("source="+bc.source, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			defer func() { b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op") }()
			for b.Loop() {
				p, err := bc.open()
				if err != nil {
					b.Fatal(err)
				}
				res, err := rules.LintPackage(ctx, p)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Failures) > 0 {
					b.Fatal(res.Failures)
				}
			}
		})
	}
}
