package graphrules_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

func Example() {
	ctx := context.Background()
	provider := func(xp string) []byte {
		return []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-a\nspec:\n  crossplane:\n    version: \"" + xp + "\"\n")
	}
	src := deps.NewMemorySource()
	src.Add("xpkg.example.org/acme/provider-a", "v1.0.0", provider(">=v1.14.0"))
	src.Add("xpkg.example.org/acme/provider-a", "v1.1.0", provider(">=v1.14.0, <v2.0.0"))
	src.Add("xpkg.example.org/acme/provider-a", "v2.0.0-rc.1", provider(">=v2.0.0"))

	root := `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: platform
spec:
  dependsOn:
  - apiVersion: pkg.crossplane.io/v1
    kind: Provider
    package: xpkg.example.org/acme/provider-a
    version: ">=v1.0.0"
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
	for _, p := range g.Lock().Packages {
		fmt.Println(p.Package, p.Version, "asked by", p.RequiredBy[0].By, "at", p.RequiredBy[0].Position)
	}
	res, err := graphrules.Lint(ctx, g, linter.WithCrossplaneVersion("v2.1.0"), linter.WithDisabled("graph-footprint"))
	if err != nil {
		panic(err)
	}
	for _, d := range res.Diagnostics {
		fmt.Println(d)
	}
	// Output:
	// xpkg.example.org/acme/provider-a v1.1.0 asked by platform at crossplane.yaml:9:5
	// crossplane.yaml:9:5: error XP605 graph-crossplane-version: dependency 0: xpkg.example.org/acme/provider-a:v1.1.0 requires Crossplane ">=v1.14.0, <v2.0.0", which excludes v2.1.0
}
