package xpkgtest_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// A dependency graph in memory: two versions of a provider, and a root
// Configuration whose constraint selects the older one.
func ExampleGraph() {
	const provider = "xpkg.example.org/acme/provider-a"
	src := deps.NewMemorySource()
	g := xpkgtest.NewGraph().
		Add(provider, "v1.0.0", xpkgtest.NewProvider("provider-a")).
		Add(provider, "v2.0.0", xpkgtest.NewProvider("provider-a"))
	// g.Source(t) does this in a test.
	for _, tag := range []string{"v1.0.0", "v2.0.0"} {
		src.Add(provider, tag, xpkgtest.NewProvider("provider-a").YAML())
	}
	fmt.Println(g.Len(), "package versions")

	root := xpkgtest.NewConfiguration("platform").WithDependency(meta.KindProvider, provider, "<v2.0.0")
	ctx := context.Background()
	pkg, _ := parser.Parse(ctx, bytes.NewReader(root.YAML()))
	summary, _ := deps.Summarize(ctx, pkg, "")
	graph, _ := deps.NewResolver(src).Resolve(ctx, summary)
	for _, n := range graph.Nodes[1:] {
		fmt.Println(n.Label(), n.Package.Kind)
	}
	// Output:
	// 2 package versions
	// xpkg.example.org/acme/provider-a:v1.0.0 Provider
}
