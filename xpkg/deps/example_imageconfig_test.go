package deps_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

func ExampleRewriteSource() {
	ctx := context.Background()
	// The mirror holds the packages the graph declares on xpkg.crossplane.io.
	src := deps.NewMemorySource()
	src.Add("registry.internal.example/crossplane/acme/provider-a", "v1.0.0",
		[]byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-a\n"))

	set, err := imageconfig.ParseAll(ctx, []imageconfig.Input{{Reader: strings.NewReader(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: internal-mirror
spec:
  matchImages:
  - prefix: xpkg.crossplane.io/
  rewriteImage:
    prefix: registry.internal.example/crossplane/
`)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	pp, _ := parser.Parse(ctx, strings.NewReader(`apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: platform
spec:
  dependsOn:
  - provider: xpkg.crossplane.io/acme/provider-a
    version: ">=v1.0.0"
`), parser.WithFile("crossplane.yaml"))
	root, _ := deps.Summarize(ctx, pp, "")
	g, err := deps.NewResolver(deps.RewriteSource(src, set)).Resolve(ctx, root)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range g.Lock().Packages {
		fmt.Printf("%s:%s from %s (ImageConfig %s)\n", p.Package, p.Version, p.Resolved, p.ImageConfig)
	}
	// Output:
	// xpkg.crossplane.io/acme/provider-a:v1.0.0 from registry.internal.example/crossplane/acme/provider-a:v1.0.0 (ImageConfig internal-mirror)
}
