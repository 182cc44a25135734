package apiserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

func parseCorpus(tb testing.TB, name string) *parser.Package {
	tb.Helper()
	path := filepath.Join(testcorpus.Path(tb, name), "package.yaml")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	pkg, err := parser.Parse(context.Background(), f, parser.WithFile(path))
	if err != nil {
		tb.Fatal(err)
	}
	return pkg
}

// BenchmarkRules runs this package's rules alone on corpus packages.
func BenchmarkRules(b *testing.B) {
	for _, name := range []string{"provider-aws", "platform-ref-aws", "provider-upjet-aws-monolith"} {
		b.Run(name, func(b *testing.B) {
			pkg := parseCorpus(b, name)
			start := cpuTime()
			for b.Loop() {
				if _, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(Rules()...)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
