package apiserver_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
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
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.sise > 0
            properties:
              size: {type: integer}
`
	p, err := parser.Parse(context.Background(), strings.NewReader(pkg))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := linter.Lint(context.Background(), p, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(apiserver.Rules()...))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range res.Diagnostics {
		fmt.Println(d.Pos.Line, d.RuleID, d.Severity)
		fmt.Println(d.Message)
	}
	// Output:
	// 25 XP420 error
	// CustomResourceDefinition "buckets.example.org": the API server refuses it: spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].rule: Invalid value: compilation failed: ERROR: <input>:1:5: undefined field 'sise'
}
