package linttest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/linter/linttest"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// In a test, linttest.Run(t, "testdata/pass", []*linter.Rule{rule}) does
// all of this and reports each problem with t.Errorf. Here the steps are
// spelt out.
func Example() {
	f, err := linttest.ReadFixture("testdata/fail/mismatch.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	pkg, err := parser.Parse(ctx, bytes.NewReader(f.Data), parser.WithFile(f.Name))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := linter.Lint(ctx, pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(noDeployment()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, problem := range linttest.Check(f, res.Diagnostics) {
		fmt.Println(problem)
	}
	// Output:
	// mismatch.yaml:7: misplaced diagnostic T001 no-deployment: "kind Deployment \"web\" is not wanted": want it at line 9
	// mismatch.yaml:13:1: unexpected diagnostic T001 no-deployment: "Deployment \"api\" has no spec"
	// mismatch.yaml:13:1: unexpected diagnostic T001 no-deployment: "kind Deployment \"api\" is not wanted"
	// mismatch.yaml:2: no T001 diagnostic matching "never reported"
}

// In a test, linttest.RunFixes(t, "testdata/fix", rules) lints each
// fixture, applies the suggested fixes and compares the text with
// NAME.yaml.golden (go test -update rewrites it). Here the steps are
// spelt out.
func ExampleRunFixes() {
	f, err := linttest.ReadFixture("testdata/fix/deployment.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	pkg, err := parser.Parse(ctx, bytes.NewReader(f.Data), parser.WithFile(f.Name))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := linter.Lint(ctx, pkg, linter.WithRuleSet(toStatefulSet()))
	if err != nil {
		fmt.Println(err)
		return
	}
	var fixes []linter.SuggestedFix
	for _, d := range res.Diagnostics {
		fixes = append(fixes, d.SuggestedFixes...)
	}
	fixed, _, _ := linter.ApplyFixes(f.Name, f.Data, fixes)
	golden, err := os.ReadFile("testdata/fix/deployment.yaml.golden")
	fmt.Println(err == nil && bytes.Equal(fixed, golden))
	// Output:
	// true
}

// In a test, linttest.RunSubject(t, linter.ScopeChange, res,
// []string{"testdata/change/new.yaml"}, changerules.Rules()) runs the
// change rules over Diff's result and checks the new package's want
// comments. Here the steps are spelt out.
func ExampleRunSubject() {
	ctx := context.Background()
	read := func(path string) (*linttest.Fixture, *parser.Package) {
		f, err := linttest.ReadFixture(path)
		if err != nil {
			panic(err)
		}
		pkg, err := parser.Parse(ctx, bytes.NewReader(f.Data), parser.WithFile(f.Name))
		if err != nil {
			panic(err)
		}
		return f, pkg
	}
	_, oldPkg := read("testdata/change/old.yaml")
	f, newPkg := read("testdata/change/new.yaml")
	diff, err := apidiff.Diff(ctx, oldPkg, newPkg, apidiff.WithVersions("v1.0.0", "v1.1.0"))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := linter.LintSubject(ctx, linter.ScopeChange, diff, linter.WithRuleSet(changerules.Rules()...))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res.Diagnostics), "diagnostics,", len(linttest.Check(f, res.Diagnostics)), "problems")
	// Output:
	// 2 diagnostics, 0 problems
}
