package schema_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// BenchmarkTypesOnlyCorpus type-checks the outline of every object of a
// package kind in a corpus provider (its CRDs), as XP005 does: one op is
// the whole package.
func BenchmarkTypesOnlyCorpus(b *testing.B) {
	f, err := os.Open(filepath.Join(testcorpus.Path(b, "provider-aws"), "package.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	pkg, err := parser.Parse(context.Background(), f)
	if err != nil {
		b.Fatal(err)
	}
	kinds := schema.PackageKinds()
	var outlines []map[string]any
	for _, o := range pkg.Objects {
		if kinds.Serves(o.GroupVersionKind()) && o.Outline() != nil {
			outlines = append(outlines, o.Outline())
		}
	}
	if len(outlines) == 0 {
		b.Fatal("no object of a package kind")
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range outlines {
			r, err := kinds.Validate(ctx, o, schema.WithTypesOnly())
			if err != nil || len(r.Violations) != 0 {
				b.Fatal(err, r)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(outlines)), "ns/object")
}
