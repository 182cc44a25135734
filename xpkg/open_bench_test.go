package xpkg_test

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// BenchmarkOpenLint is the end-to-end benchmark: the .xpkg of a corpus
// package, opened (docker archive indexed, base layer found, package.yaml
// streamed out of its gzip layer and parsed) and linted with the built-in
// rules. The monolith (2065 CRDs, 102 MB of YAML) is the largest.
func BenchmarkOpenLint(b *testing.B) {
	for _, name := range []string{"provider-aws", "provider-upjet-aws-monolith"} {
		b.Run(name, func(b *testing.B) {
			path := testcorpus.Path(b, name+".xpkg")
			b.ReportAllocs()
			for b.Loop() {
				p, err := xpkg.Open(b.Context(), path)
				if err != nil {
					b.Fatal(err)
				}
				res, err := rules.LintPackage(b.Context(), p)
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

// BenchmarkOpen measures Open alone on the same packages, from each form.
func BenchmarkOpen(b *testing.B) {
	for _, src := range []string{"provider-upjet-aws-monolith.xpkg", "provider-upjet-aws-monolith.oci", "provider-upjet-aws-monolith/package.yaml"} {
		b.Run(src, func(b *testing.B) {
			path := testcorpus.Path(b, src)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := xpkg.Open(b.Context(), path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
