package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/celskip"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestResultSkippedCEL checks that Result counts the CEL rules a
// validation left out: without a CEL extension, every rule of the
// schemas an example was validated against.
func TestResultSkippedCEL(t *testing.T) {
	t.Parallel()
	const pkgYAML = `apiVersion: meta.pkg.crossplane.io/v1
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
            properties:
              size: {type: integer}
            x-kubernetes-validations:
            - rule: self.size > 0
            - rule: self.size >= oldSelf.size
`
	const exYAML = "apiVersion: example.org/v1\nkind: Bucket\nmetadata:\n  name: a\nspec:\n  size: 1\n---\napiVersion: example.org/v1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  size: 2\n"
	pkg, err := parser.Parse(context.Background(), strings.NewReader(pkgYAML))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := parser.Parse(context.Background(), strings.NewReader(exYAML))
	if err != nil {
		t.Fatal(err)
	}
	res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(rules.Lookup("XP408")), rules.WithExamples(ex))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := celskip.FromTallies(res.Tallies), (celskip.Counts{Unevaluated: 4}); got != want {
		t.Errorf("SkippedCEL = %+v, want %+v", got, want)
	}
	if n := celskip.FromTallies(res.Tallies).Total(); n != 4 {
		t.Errorf("Total = %d, want 4", n)
	}
}
