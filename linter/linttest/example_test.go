package linttest_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/xpkgkit/xpkgkit/linter/rules"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/linttest"
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
