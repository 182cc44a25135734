package deps_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

// ExampleGraph_Footprint counts what a graph installs at v2.4: a
// Provider's ProviderConfig CRD stays a CRD, its Bucket CRD becomes an
// active MRD (the Provider does not declare safe-start), and prints the
// MRAP that activates exactly what the Composition composes.
func ExampleGraph_Footprint() {
	ctx := context.Background()
	crd := func(kind, plural string) string {
		return "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + plural +
			".s3.example.org\nspec:\n  group: s3.example.org\n  names:\n    kind: " + kind + "\n    plural: " + plural +
			"\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"
	}
	src := deps.NewMemorySource()
	src.Add("xpkg.example.org/acme/provider-s3", "v1.0.0", []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-s3\n"+
		crd("ProviderConfig", "providerconfigs")+crd("Bucket", "buckets")))
	root := `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: platform
spec:
  dependsOn:
  - apiVersion: pkg.crossplane.io/v1
    kind: Provider
    package: xpkg.example.org/acme/provider-s3
    version: ">=v1.0.0"
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: storage
spec:
  compositeTypeRef: {apiVersion: x.example.org/v1, kind: XStorage}
  mode: Pipeline
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: bucket
        base: {apiVersion: s3.example.org/v1, kind: Bucket}
`
	pkg, err := parser.Parse(ctx, strings.NewReader(root), parser.WithFile("crossplane.yaml"))
	if err != nil {
		panic(err)
	}
	summary, err := deps.Summarize(ctx, pkg, "")
	if err != nil {
		panic(err)
	}
	g, err := deps.NewResolver(src).Resolve(ctx, summary)
	if err != nil {
		panic(err)
	}
	f, err := g.Footprint("v2.4.0")
	if err != nil {
		panic(err)
	}
	for _, p := range f.Packages {
		fmt.Printf("%s: %d CRDs, %d MRDs active, %d inactive\n", p.Package, p.CRDs, p.MRDsActive, p.MRDsInactive)
	}
	fmt.Printf("API server: about %d MiB (%d to %d)\n", f.APIServerBytes>>20, f.APIServerBytesLow>>20, f.APIServerBytesHigh>>20)
	mrap, err := g.MinimalMRAP("platform", "v2.4.0")
	if err != nil {
		panic(err)
	}
	fmt.Print(string(mrap))
	// Output:
	// xpkg.example.org/acme/provider-s3: 1 CRDs, 1 MRDs active, 0 inactive
	// API server: about 8 MiB (4 to 16)
	// apiVersion: apiextensions.crossplane.io/v1alpha1
	// kind: ManagedResourceActivationPolicy
	// metadata:
	//   name: "platform"
	// spec:
	//   activate:
	//   - "buckets.s3.example.org"
}
