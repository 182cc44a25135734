package apidiff_test

import (
	"context"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// FuzzDiff diffs two arbitrary YAML streams: Diff must not panic, and
// every change it reports must carry a kind with a rule, a class and a
// position in the new package's files.
func FuzzDiff(f *testing.F) {
	f.Add(crd("properties:\n  size: {type: integer, minimum: 1}\n"), crd("properties:\n  size: {type: string, minimum: 2}\n"))
	f.Add(crd("properties:\n  tier: {type: string, enum: [a, b]}\n"), crd("required: [tier]\nproperties:\n  tier: {type: string, enum: [a]}\n"))
	f.Add(xrdV1, xrdV2)
	f.Add(crd("type: object"), "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: buckets.example.org}\nspec: {versions: [1, {name: v1, schema: {openAPIV3Schema: {properties: []}}}]}\n")
	f.Fuzz(func(t *testing.T, oldText, newText string) {
		ctx := context.Background()
		oldPkg, err := parser.Parse(ctx, strings.NewReader(oldText), parser.WithFile("old.yaml"))
		if err != nil {
			return
		}
		newPkg, err := parser.Parse(ctx, strings.NewReader(newText), parser.WithFile("new.yaml"))
		if err != nil {
			return
		}
		res, err := apidiff.Diff(ctx, oldPkg, newPkg, apidiff.WithVersions("v1.0.0", "v1.1.0"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Changes {
			if changerules.RuleOf(c.Kind) == "" || c.Message == "" {
				t.Fatalf("change %+v", c)
			}
		}
		if _, err := changerules.Lint(context.Background(), res); err != nil {
			t.Fatal(err)
		}
	})
}
