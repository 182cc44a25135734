package rules_test

import (
	"context"
	"os"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/rules"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestExampleSchema lints testdata/rules/XP408/package with its examples:
// a fixture is one stream, and examples are a second.
func TestExampleSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fsys := os.DirFS("testdata/rules/XP408/package")
	pkg, err := parser.ParseFS(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/rules/XP408/package/examples/bucket.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	examples, err := parser.Parse(ctx, f, parser.WithFile("examples/bucket.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := linter.Lint(ctx, pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(rules.Lookup("XP408")), rules.WithExamples(examples))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, d.String())
	}
	want := []string{
		`examples/bucket.yaml:13:1: warning XP408 example-schema: example Bucket "bad": spec.region: required field is missing (CustomResourceDefinition "buckets.example.org" version "v1") (1 CEL rules of the schema not evaluated)`,
		`examples/bucket.yaml:14:3: warning XP408 example-schema: example Bucket "bad": spec.size: want integer, found string (CustomResourceDefinition "buckets.example.org" version "v1") (1 CEL rules of the schema not evaluated)`,
		`examples/bucket.yaml:15:3: warning XP408 example-schema: example Bucket "bad": spec.colour: unknown field: the API server prunes it (CustomResourceDefinition "buckets.example.org" version "v1") (1 CEL rules of the schema not evaluated)`,
		`examples/bucket.yaml:17:1: warning XP408 example-schema: example Bucket "old": version "v1alpha1" of CustomResourceDefinition "buckets.example.org" is not served: the API server refuses it`,
		`examples/bucket.yaml:23:1: info XP408 example-schema: example Bucket "dep-1": no definition of the package serves this kind (it may come from a dependency), so it is not validated`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}
