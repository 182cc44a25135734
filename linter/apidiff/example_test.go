package apidiff_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/parser"
)

func Example() {
	const v1 = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: buckets.example.org}
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
          spec:
            type: object
            properties:
              size: {type: integer}
              tier: {type: string, enum: [basic, premium]}
`
	v2 := strings.Replace(v1, "enum: [basic, premium]", "enum: [basic]", 1)
	ctx := context.Background()
	oldPkg, _ := parser.Parse(ctx, strings.NewReader(v1), parser.WithFile("v1.0.0/package.yaml"))
	newPkg, _ := parser.Parse(ctx, strings.NewReader(v2), parser.WithFile("v1.1.0/package.yaml"))
	res, err := apidiff.Diff(ctx, oldPkg, newPkg, apidiff.WithVersions("v1.0.0", "v1.1.0"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Changes {
		fmt.Println(c.New.Pos, c.Kind, c.Class, "error:", c.Error)
		fmt.Println(c.Message)
	}
	// Output:
	// v1.1.0/package.yaml:20:36 api-enum-narrowed breaking error: true
	// CustomResourceDefinition "buckets.example.org" version v1: spec.tier: the enum no longer allows "premium" (semver violation: v1.0.0 -> v1.1.0 is not a major version change)
}
