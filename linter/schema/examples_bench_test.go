package schema_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// BenchmarkValidateCorpusExamples validates the examples of each corpus
// package that has some (src/examples) against the package's own
// definitions, as XP408 does: one op builds a Validator and validates
// every example it serves. Compare runs with benchstat.
func BenchmarkValidateCorpusExamples(b *testing.B) {
	for _, name := range testcorpus.Names() {
		src := filepath.Join(testcorpus.Path(b, name), "src")
		if _, err := os.Stat(filepath.Join(src, "examples")); err != nil {
			continue
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			pkg, err := parser.ParseFS(ctx, os.DirFS(src))
			if err != nil {
				b.Fatal(err)
			}
			examples, err := parser.ParseFS(ctx, os.DirFS(filepath.Join(src, "examples")))
			if err != nil {
				b.Fatal(err)
			}
			var objs []map[string]any
			v := lschema.New(pkg.Objects)
			for _, o := range examples.Objects {
				if !v.Serves(o.GroupVersionKind()) {
					continue
				}
				u, err := o.Unstructured()
				if err != nil {
					b.Fatal(err)
				}
				objs = append(objs, u.Object)
			}
			if len(objs) == 0 {
				b.Skip("no example of a kind the package defines")
			}
			b.ReportAllocs()
			for b.Loop() {
				v := lschema.New(pkg.Objects)
				for _, o := range objs {
					if _, err := v.Validate(ctx, o); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
