package changerules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/parser"
)

// crd returns a CRD whose served storage version v1 has a spec.forProvider
// schema of body (indented as under forProvider's type: object).
func crd(body string) string {
	s := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: buckets.example.org\nspec:\n  group: example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  versions:\n" +
		"  - name: v1\n    served: true\n    storage: true\n" +
		"    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              forProvider:\n                type: object\n"
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		s += "                " + l + "\n"
	}
	return s
}

func parse(t testing.TB, file, text string) *parser.Package {
	t.Helper()
	p, err := parser.Parse(context.Background(), strings.NewReader(text), parser.WithFile(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Errors) > 0 {
		t.Fatalf("%s: %v", file, p.Errors)
	}
	return p
}
