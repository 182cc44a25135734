package verdictcache_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/apiserver/verdictcache"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

func Example() {
	const pkg = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata:
  name: provider-example
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: buckets.example.org
spec:
  group: example.org
  names: {kind: Bucket, plural: buckets}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          size: {type: integer, default: "ten"}
`
	dir, err := os.MkdirTemp("", "verdicts")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	cache, err := verdictcache.OpenDir(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cache.Close()
	ctx := context.Background()
	// The first run validates the CRD and stores what it finds; the
	// second reads it from the cache, with the same diagnostics.
	for range 2 {
		p, err := parser.Parse(ctx, strings.NewReader(pkg))
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := linter.Lint(ctx, p, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(apiserver.Rules(apiserver.WithCache(cache))...))
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, d := range res.Diagnostics {
			fmt.Println(d.Pos.Line, d.RuleID, d.Message)
		}
	}
	// Output:
	// 22 XP420 CustomResourceDefinition "buckets.example.org": the API server refuses it: spec.versions[0].schema.openAPIV3Schema.properties.size.default: Invalid value:  in body must be of type integer: "string"
	// 22 XP420 CustomResourceDefinition "buckets.example.org": the API server refuses it: spec.versions[0].schema.openAPIV3Schema.properties.size.default: Invalid value:  in body must be of type integer: "string"
}
