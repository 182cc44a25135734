package apiserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// BenchmarkValidateMonolithCEL is linter/schema's BenchmarkValidateMonolith
// (1000 objects of 100 kinds of the monolith, a new Validator per op, so
// the 100 schemas are converted and their CEL rules compiled each op) with
// and without the CEL extension, sequentially; compare with benchstat.
func BenchmarkValidateMonolithCEL(b *testing.B) {
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
		if i%20 != 0 || len(gvks) == 100 {
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
	obj := func(i int) map[string]any {
		g := gvks[i%len(gvks)]
		return map[string]any{
			"apiVersion": g[0], "kind": g[1],
			"metadata": map[string]any{"name": "example"},
			"spec": map[string]any{
				"forProvider":       map[string]any{"region": "us-east-1", "tags": map[string]any{"env": "dev"}},
				"providerConfigRef": map[string]any{"name": "default"},
			},
		}
	}
	for _, mode := range []string{"plain", "cel"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			start := cpuTime()
			defer func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }()
			for b.Loop() {
				var opts []lschema.Option
				if mode == "cel" {
					opts = append(opts, lschema.WithExtension(newCEL(1<<62)))
				}
				v := lschema.New(pkg.Objects, opts...)
				for i := range 1000 {
					if _, err := v.Validate(ctx, obj(i)); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
